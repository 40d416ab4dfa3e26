#include "audit/Shard.h"
#include "audit/Audit.h"
#include "audit/ReportFiles.h"

#include "bundle/FileReading.h"
#include "testing/TestFiles.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::audit;
using Json = nlohmann::ordered_json;

namespace {
constexpr llvm::StringLiteral kVersion = "0.1.0";

std::string errorOf(llvm::Expected<AuditReport> merged) {
  if (merged)
    return "(merged)";
  return llvm::toString(merged.takeError());
}

std::string jsonOf(const AuditReport &report) {
  return toJson(report, kVersion).dump(2);
}

/// A report as the audit makes it: bundles sorted by bytes, names that are
/// not UTF-8 among them (escaped text sorts otherwise than bytes).
AuditReport fullReport() {
  std::vector<std::string> paths = {
      "m/caf\xe9.aimodel",     // Latin-1: written "caf\\xe9" + path_bytes
      "m/caf\xc3\xa9.aimodel", // UTF-8 "café"
      "m/cafe.aimodel",        "pkg", "pkg/x.aimodel", "z/tab\there.aimodel"};
  for (int i = 0; i < 14; ++i)
    paths.push_back(llvm::formatv("models/n{0}.h18p.aimodelc", i));
  std::sort(paths.begin(), paths.end());
  AuditReport report;
  const Rule *cycle[] = {&rules::HashMismatch, &rules::MissingProducer,
                         &rules::UnexpectedFile};
  for (size_t i = 0; i < paths.size(); ++i) {
    BundleReport bundle;
    bundle.path = paths[i];
    bundle.kind = paths[i] == "pkg" ? bundle::BundleKind::BundleDir
                                    : bundle::BundleKind::Asset;
    if (i % 2)
      bundle.producer = "coreai-core 1.0.0b2";
    for (size_t j = 0; j < i % 4; ++j) {
      Finding f;
      f.rule = cycle[j % 3];
      f.severity = f.rule->severity;
      f.message = "message";
      f.file = j == 2 ? "f\xff" : "main.hash";
      bundle.findings.push_back(std::move(f));
    }
    report.bundles.push_back(std::move(bundle));
  }
  recountSeverities(report);
  return report;
}

AuditReport shardOfReport(const AuditReport &full, const ShardSpec &spec) {
  AuditReport shard;
  shard.run = full.run;
  shard.run.shardIndex = spec.index;
  shard.run.shardCount = spec.count;
  for (const BundleReport &bundle : full.bundles)
    if (inShard(spec, bundle.path))
      shard.bundles.push_back(bundle);
  recountSeverities(shard);
  return shard;
}

/// Writes shard K of N of `full` as --format json would; returns the file
/// names.
std::vector<std::string> writeShards(const aimodel::testing::ScratchDir &dir,
                                     const AuditReport &full, unsigned n) {
  std::vector<std::string> files;
  for (unsigned k = 1; k <= n; ++k) {
    AuditReport shard = shardOfReport(full, {k, n});
    EXPECT_FALSE(shard.bundles.empty()) << "shard " << k << " of " << n;
    files.push_back(dir.write(llvm::formatv("shard{0}.json", k).str(),
                              jsonOf(shard) + "\n"));
  }
  return files;
}
} // namespace

TEST(Shard, ParsesKOfN) {
  const std::tuple<const char *, unsigned, unsigned> good[] = {
      {"1/1", 1, 1}, {"2/3", 2, 3}, {"10/10", 10, 10}, {"007/8", 7, 8}};
  for (auto [text, k, n] : good) {
    llvm::Expected<ShardSpec> spec = parseShard(text);
    ASSERT_TRUE(bool(spec)) << text << llvm::toString(spec.takeError());
    EXPECT_EQ(spec->index, k);
    EXPECT_EQ(spec->count, n);
  }
  for (const char *bad :
       {"", "3", "0/3", "4/3", "1/0", "0/0", "a/b", "1/", "/3", "1-3", "+1/3",
        "-1/3", " 1/3", "1/3 ", "1/2/3", "1/99999999999", "0x1/2"}) {
    llvm::Expected<ShardSpec> spec = parseShard(bad);
    ASSERT_FALSE(bool(spec)) << bad;
    std::string error = llvm::toString(spec.takeError());
    EXPECT_NE(error.find("expected K/N"), std::string::npos) << error;
  }
}

TEST(Shard, EveryBundleIsInExactlyOneShardByAFixedHash) {
  // XXH3-64 of no bytes is fixed by its specification: the shard of a path
  // cannot change with the machine or the LLVM version.
  EXPECT_EQ(shardOf("", 1000), 0x2D06800538D394C2ull % 1000 + 1);
  std::vector<unsigned> sizes(4);
  for (int i = 0; i < 1000; ++i) {
    std::string path = llvm::formatv("models/m{0}.aimodel", i);
    for (unsigned n = 1; n <= 7; ++n) {
      unsigned in = 0;
      for (unsigned k = 1; k <= n; ++k)
        in += inShard({k, n}, path);
      EXPECT_EQ(in, 1u) << path << " in " << n << " shards";
    }
    EXPECT_TRUE(inShard({1, 1}, path));
    ++sizes[shardOf(path, 4) - 1];
  }
  for (unsigned size : sizes)
    EXPECT_GT(size, 200u); // spread, not all in one shard
}

TEST(Shard, MergingShardsGivesTheUnshardedDocument) {
  aimodel::testing::ScratchDir dir;
  AuditReport full = fullReport();
  full.run.inputs = {"m", "pkg", "models", "z"};
  std::string expected = jsonOf(full);
  ASSERT_NE(expected.find("path_bytes"), std::string::npos);
  for (unsigned n : {1u, 2u, 3u}) {
    std::vector<std::string> files = writeShards(dir, full, n);
    llvm::Expected<AuditReport> merged = mergeReports(files, kVersion);
    ASSERT_TRUE(bool(merged)) << llvm::toString(merged.takeError());
    EXPECT_EQ(jsonOf(*merged), expected) << n << " shards";
    std::reverse(files.begin(), files.end());
    llvm::Expected<AuditReport> reversed = mergeReports(files, kVersion);
    ASSERT_TRUE(bool(reversed)) << llvm::toString(reversed.takeError());
    EXPECT_EQ(jsonOf(*reversed), expected) << n << " shards, reversed";
  }
}

TEST(Shard, SuppressedCountsAddUpAndTheConfigIsKept) {
  aimodel::testing::ScratchDir dir;
  AuditReport full = fullReport();
  full.run.configFile = "repo/.aimodel.json";
  std::vector<std::string> files;
  for (unsigned k = 1; k <= 2; ++k) {
    AuditReport shard = shardOfReport(full, {k, 2});
    shard.run.suppressedByConfig = k;
    shard.run.suppressedByBaseline = 10 * k;
    files.push_back(
        dir.write(llvm::formatv("s{0}.json", k).str(), jsonOf(shard)));
  }
  llvm::Expected<AuditReport> merged = mergeReports(files, kVersion);
  ASSERT_TRUE(bool(merged)) << llvm::toString(merged.takeError());
  EXPECT_EQ(merged->run.configFile, full.run.configFile);
  EXPECT_EQ(merged->run.suppressedByConfig, 3u);
  EXPECT_EQ(merged->run.suppressedByBaseline, 30u);
  EXPECT_EQ(merged->run.shardCount, 0u);
}

/// Every way to edit or mix shard reports that the merge must refuse.
TEST(Shard, MergeRefusesWhatDoesNotCheck) {
  aimodel::testing::ScratchDir dir;
  AuditReport full = fullReport();
  std::vector<std::string> files = writeShards(dir, full, 3);
  auto variant = [&](const char *name, auto edit, size_t which = 1) {
    llvm::Expected<Json> doc = readReport(files[which]);
    EXPECT_TRUE(bool(doc));
    edit(*doc);
    return dir.write(name, doc->dump(2));
  };
  auto refused = [&](std::vector<std::string> inputs, llvm::StringRef what) {
    std::string error = errorOf(mergeReports(inputs, kVersion));
    EXPECT_NE(error.find(what.str()), std::string::npos)
        << "want \"" << what.str() << "\", got: " << error;
  };

  refused({}, "no report to merge");
  refused({files[0], files[1]}, "shard 3/3 missing");
  refused({files[0], files[2]}, "shard 2/3 missing");
  refused({files[0], files[1], files[2], files[0]}, "are both shard 1/3");
  refused({files[0], files[1], files[1]}, "are both shard 2/3");

  // Summaries set to anything but what the findings say.
  for (const char *key : {"error", "warning", "info", "bundles"}) {
    std::string zero = variant("zero.json", [&](Json &doc) {
      doc["summary"][key] = doc["summary"][key].get<uint64_t>() + 1;
    });
    refused({files[0], zero, files[2]}, "its summary says " + std::string(key));
  }
  std::string huge = variant("huge.json", [](Json &doc) {
    doc["summary"]["error"] = uint64_t(1) << 63;
  });
  refused({files[0], huge, files[2]}, "its summary says error");
  std::string extraCount = variant(
      "count.json", [](Json &doc) { doc["summary"]["suppressed"] = 0; });
  refused({files[0], extraCount, files[2]}, "does not hold exactly");

  // Findings outside the catalogue.
  auto firstFinding = [](Json &doc) -> Json & {
    for (Json &bundle : doc["bundles"])
      if (!bundle["findings"].empty())
        return bundle["findings"][0];
    ADD_FAILURE() << "no finding";
    return doc;
  };
  std::string rule = variant(
      "rule.json", [&](Json &doc) { firstFinding(doc)["rule"] = "AIM999"; });
  refused({files[0], rule, files[2]}, "unknown rule \"AIM999\"");
  std::string level = variant("level.json", [&](Json &doc) {
    firstFinding(doc)["severity"] = "fatal";
  });
  refused({files[0], level, files[2]}, "severity \"fatal\" is not");
  // A finding dropped from a shard, with the summary fixed to match, still
  // merges (the merge cannot know); one moved to a bundle of another shard
  // cannot:
  std::string moved = variant("moved.json", [&](Json &doc) {
    Json bundle = doc["bundles"][0];
    bundle["path"] = "elsewhere.aimodel";
    bundle.erase("path_bytes");
    doc["bundles"].push_back(bundle);
    doc["summary"]["bundles"] = doc["bundles"].size();
  });
  if (shardOf("elsewhere.aimodel", 3) != 2)
    refused({files[0], moved, files[2]}, "is not in shard 2/3");

  // Reports of another run, tool or kind.
  std::string inputs = variant("inputs.json", [](Json &doc) {
    doc["run"]["inputs"] = Json::array({"other"});
  });
  refused({files[0], inputs, files[2]}, "audited other inputs");
  std::string config = variant("config.json", [](Json &doc) {
    doc["run"]["config"] = {{"file", "x/.aimodel.json"}, {"suppressed", 0}};
  });
  refused({files[0], config, files[2]}, "with another config");
  std::string tool =
      variant("tool.json", [](Json &doc) { doc["tool"]["version"] = "0.2.0"; });
  refused({files[0], tool, files[2]}, "not by this aimodel");
  std::string split =
      variant("split.json", [](Json &doc) { doc["run"]["shard"] = "2/4"; });
  refused({files[0], split, files[2]}, "2/4");
  std::string unsharded = variant(
      "unsharded.json", [](Json &doc) { doc["run"]["shard"] = nullptr; });
  refused({unsharded}, "is not a shard report");
  std::string norun =
      variant("norun.json", [](Json &doc) { doc.erase("run"); });
  refused({files[0], norun, files[2]}, "has no \"run\" record");
  std::string twice = variant("twice.json", [](Json &doc) {
    doc["bundles"].push_back(doc["bundles"][0]);
    doc["summary"]["bundles"] = doc["bundles"].size();
    uint64_t errors = 0, warnings = 0, infos = 0;
    for (const Json &bundle : doc["bundles"])
      for (const Json &f : bundle["findings"])
        ++(f["severity"] == "error"     ? errors
           : f["severity"] == "warning" ? warnings
                                        : infos);
    doc["summary"]["error"] = errors;
    doc["summary"]["warning"] = warnings;
    doc["summary"]["info"] = infos;
  });
  refused({files[0], twice, files[2]}, "is listed twice");

  std::string schema = variant(
      "schema.json", [](Json &doc) { doc["schema"] = "aimodel-audit/2"; });
  refused({files[0], schema, files[2]}, "has schema \"aimodel-audit/2\"");
  refused({files[0], dir.path("missing.json"), files[2]}, "no such file");
  std::string notJson = dir.write("text.json", "aimodel: 3 bundles audited\n");
  refused({files[0], notJson, files[2]}, "is not valid JSON at byte");
}

/// Whatever a shard report's bytes are, a merge answers: a report, or one
/// short error naming the file. Every byte of a real shard replaced by
/// values that break JSON's shape (a quote, a digit, a brace, a letter)
/// and the document cut at every length.
TEST(Shard, EveryByteMutatedMergesOrIsRefusedInOneLine) {
  aimodel::testing::ScratchDir dir;
  AuditReport full = fullReport();
  full.run.configFile = "repo/.aimodel.json";
  full.run.tree = std::string(64, 'a');
  std::vector<std::string> files = writeShards(dir, full, 2);
  llvm::Expected<std::string> shard = bundle::readSmallFile(files[1], 1 << 20);
  ASSERT_TRUE(bool(shard));
  std::string original = *shard;
  std::string mutated = dir.path("mutated.json");
  size_t merged = 0, refused = 0;
  auto tryMerge = [&](const std::string &bytes) {
    dir.write("mutated.json", bytes);
    llvm::Expected<AuditReport> result =
        mergeReports({files[0], mutated}, kVersion);
    if (result) {
      ++merged;
      return;
    }
    ++refused;
    std::string error = llvm::toString(result.takeError());
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_LT(error.size(), 4096u) << error;
  };
  for (size_t at = 0; at < original.size(); ++at)
    for (char value : {'"', '7', '{', 'x'}) {
      if (original[at] == value)
        continue;
      std::string bytes = original;
      bytes[at] = value;
      tryMerge(bytes);
    }
  for (size_t length = 0; length < original.size(); length += 7)
    tryMerge(original.substr(0, length));
  EXPECT_GT(refused, original.size()); // most mutations break it
  EXPECT_GT(merged, 0u);               // some (inside a message) do not
}

TEST(Shard, TheTreeDigestFromTheAuditsListingsIsThatOfAFreshWalk) {
  // Audited bundles hand their listing to the digest; the others (another
  // shard's, a symlink, an IR file) are listed by it. Either way the
  // digest is the same, and it changes with a file's size.
  aimodel::testing::ScratchDir dir;
  dir.write("t/a.aimodel/main.hash", "0123456789abcdef0123456789abcdef");
  dir.write("t/a.aimodel/metadata.json", "{\"assetVersion\": \"2.0\"}");
  dir.write("t/a.aimodel/sub/deeper/notes.txt", "notes");
  dir.write("t/b.h18p.aimodelc/metadata.json", "{}");
  dir.write("t/b.h18p.aimodelc/main-h18p-delegates/x.mpsgraph", "x");
  dir.write("t/bundle/metadata.json", "{\"metadata_version\": \"0.2\"}");
  dir.write("t/bundle/c.aimodel/metadata.json", "{}");
  dir.write("t/loose.mlirb", "ML\xEFR");
  ASSERT_EQ(::symlink("a.aimodel", dir.path("t/link.aimodel").c_str()), 0);
  llvm::Expected<bundle::WalkResult> walked =
      bundle::findBundles({dir.path("t")});
  ASSERT_TRUE(bool(walked)) << llvm::toString(walked.takeError());
  ASSERT_EQ(walked->bundles.size(), 6u);
  AuditOptions options;
  options.metadataOnly = true;
  AuditReport report = auditBundles(walked->bundles, options);
  size_t listedByAudit = 0;
  for (const BundleReport &bundle : report.bundles)
    listedByAudit += bool(bundle.treeRecord);
  EXPECT_EQ(listedByAudit, 4u); // the folders; not the link, the IR file
  std::string fresh = treeDigest(walked->bundles);
  EXPECT_EQ(treeDigest(walked->bundles, &report, 3), fresh);
  EXPECT_EQ(fresh.size(), 64u);
  dir.write("t/a.aimodel/sub/deeper/notes.txt", "longer notes");
  EXPECT_NE(treeDigest(walked->bundles), fresh);
}

TEST(Shard, TheJsonReportWrittenInParallelIsTheDocumentsDump) {
  // Entries dumped on their own and indented are the whole dump's bytes:
  // paths that are not UTF-8, tabs, findings with and without examples,
  // the runtime-contract rules run.
  AuditReport full = fullReport();
  full.bundles[1].findings.front().examples = {"a\nb", "\xff",
                                               "q\"\\\x01\x7f\b\f\r"};
  full.bundles[1].findings.front().ops = 7;
  full.bundles[1].findings.front().blockArguments = 2;
  full.bundles[2].compiled = {"models/n1.h18p.aimodelc", "m/caf\xe9.aimodel"};
  bundle::StripRecord record;
  record.tool = "aimodel\tstrip";
  record.version = "1.0";
  record.date = "2026";
  record.from.sha256 = std::string(64, 'f');
  record.to.sha256 = std::string(64, 'e');
  full.bundles[3].stripRecord = record;
  full.bundles[0].rulesRun = {&rules::StateCount, &rules::SingleTokenGraph};
  full.bundles[2].rulesRun = {&rules::IncompleteLanguageBundle};
  for (BundleReport &bundle : full.bundles)
    if (bundle.kind == bundle::BundleKind::Asset &&
        bundle.path.find("models/") == 0)
      bundle.kind = bundle::BundleKind::CompiledAsset;
  for (BundleReport &bundle : full.bundles)
    if (bundle.kind == bundle::BundleKind::CompiledAsset) {
      bundle.source = SourceLink{"m/caf\xe9.aimodel", "main.hash"};
      break;
    }
  full.run.inputs = {"m", "pkg"};
  full.run.tree = std::string(64, 'a');
  for (const AuditReport &report : {full, AuditReport()})
    for (unsigned jobs : {1u, 3u}) {
      std::string written;
      llvm::raw_string_ostream os(written);
      writeJsonReport(os, report, kVersion, jobs);
      os.flush();
      EXPECT_EQ(written, jsonOf(report) + "\n") << jobs;
    }
}
