#include "audit/Shard.h"
#include "audit/Audit.h"
#include "audit/ReportFiles.h"

#include "testing/TestFiles.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace aimodel;
using namespace aimodel::audit;
using Json = nlohmann::ordered_json;

namespace {
std::string errorOf(llvm::Expected<Json> merged) {
  if (merged)
    return "(merged)";
  return llvm::toString(merged.takeError());
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
  for (const BundleReport &bundle : full.bundles)
    if (inShard(spec, bundle.path))
      shard.bundles.push_back(bundle);
  recountSeverities(shard);
  return shard;
}

/// Writes shard K of N of `full` as --format json would, with `extra`
/// top-level fields; returns the file names.
std::vector<std::string> writeShards(const aimodel::testing::ScratchDir &dir,
                                     const AuditReport &full, unsigned n,
                                     const Json &extra = Json::object()) {
  std::vector<std::string> files;
  for (unsigned k = 1; k <= n; ++k) {
    AuditReport shard = shardOfReport(full, {k, n});
    EXPECT_FALSE(shard.bundles.empty()) << "shard " << k << " of " << n;
    Json doc = toJson(shard, "0.1.0");
    for (const auto &item : extra.items())
      doc[item.key()] = item.value();
    files.push_back(
        dir.write(llvm::formatv("shard{0}.json", k).str(), doc.dump(2) + "\n"));
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
  std::string expected = toJson(full, "0.1.0").dump(2);
  ASSERT_NE(expected.find("path_bytes"), std::string::npos);
  for (unsigned n : {1u, 2u, 3u}) {
    std::vector<std::string> files = writeShards(dir, full, n);
    llvm::Expected<Json> merged = mergeReports(files);
    ASSERT_TRUE(bool(merged)) << llvm::toString(merged.takeError());
    EXPECT_EQ(merged->dump(2), expected) << n << " shards";
    std::reverse(files.begin(), files.end());
    llvm::Expected<Json> reversed = mergeReports(files);
    ASSERT_TRUE(bool(reversed)) << llvm::toString(reversed.takeError());
    EXPECT_EQ(reversed->dump(2), expected) << n << " shards, reversed";
  }
}

TEST(Shard, OtherTopLevelFieldsAreKeptInPlace) {
  aimodel::testing::ScratchDir dir;
  AuditReport full = fullReport();
  Json extra = {{"rules", {{{"id", "AIM001"}}, {{"id", "AIM003"}}}}};
  Json expected = toJson(full, "0.1.0");
  expected["rules"] = extra["rules"];
  llvm::Expected<Json> merged = mergeReports(writeShards(dir, full, 2, extra));
  ASSERT_TRUE(bool(merged)) << llvm::toString(merged.takeError());
  EXPECT_EQ(merged->dump(2), expected.dump(2));
}

TEST(Shard, MergeErrors) {
  aimodel::testing::ScratchDir dir;
  AuditReport full = fullReport();
  std::vector<std::string> files = writeShards(dir, full, 2);
  auto variant = [&](const char *name, auto edit) {
    llvm::Expected<Json> doc = readReport(files[1]);
    EXPECT_TRUE(bool(doc));
    edit(*doc);
    return dir.write(name, doc->dump(2));
  };

  EXPECT_EQ(errorOf(mergeReports({})), "no report to merge");

  std::string error = errorOf(mergeReports({files[0], files[1], files[0]}));
  EXPECT_NE(error.find("is in both " + files[0] + " and " + files[0] +
                       ": shards overlap"),
            std::string::npos)
      << error;

  std::string twice = variant("twice.json", [](Json &doc) {
    doc["bundles"].push_back(doc["bundles"][0]);
  });
  error = errorOf(mergeReports({files[0], twice}));
  EXPECT_EQ(error.rfind(twice + ": bundle ", 0), 0u) << error;
  EXPECT_NE(error.find("is listed twice"), std::string::npos) << error;

  std::string schema = variant(
      "schema.json", [](Json &doc) { doc["schema"] = "aimodel-audit/2"; });
  error = errorOf(mergeReports({files[0], schema}));
  EXPECT_EQ(error.rfind(schema + ": has schema \"aimodel-audit/2\"", 0), 0u)
      << error;

  std::string tool =
      variant("tool.json", [](Json &doc) { doc["tool"]["version"] = "0.2.0"; });
  error = errorOf(mergeReports({files[0], tool}));
  EXPECT_EQ(error.rfind(tool + ": \"tool\" is", 0), 0u) << error;
  EXPECT_NE(error.find("0.2.0"), std::string::npos) << error;

  std::string extra =
      variant("extra.json", [](Json &doc) { doc["extra"] = Json::array(); });
  error = errorOf(mergeReports({files[0], extra}));
  EXPECT_EQ(error.rfind(extra + ": its top-level keys differ", 0), 0u) << error;

  std::string summary = variant(
      "summary.json", [](Json &doc) { doc["summary"]["suppressed"] = 1; });
  error = errorOf(mergeReports({files[0], summary}));
  EXPECT_EQ(error.rfind(summary + ": its summary counts differ", 0), 0u)
      << error;

  error = errorOf(mergeReports({files[0], dir.path("missing.json")}));
  EXPECT_EQ(error.rfind(dir.path("missing.json") + ": ", 0), 0u) << error;
  EXPECT_NE(error.find("no such file"), std::string::npos) << error;

  std::string notJson = dir.write("text.json", "aimodel: 3 bundles audited\n");
  error = errorOf(mergeReports({files[0], notJson}));
  EXPECT_EQ(error.rfind(notJson + ": is not valid JSON at byte", 0), 0u)
      << error;

  std::string trailing =
      dir.write("trailing.json",
                toJson(shardOfReport(full, {2, 2}), "0.1.0").dump() + "\n{}");
  error = errorOf(mergeReports({files[0], trailing}));
  EXPECT_EQ(error.rfind(trailing + ": is not valid JSON", 0), 0u) << error;
}
