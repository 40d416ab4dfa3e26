//===- Shard.cpp - Splitting an audit over machines and merging it --------===//

#include "audit/Shard.h"
#include "audit/ReportFiles.h"

#include "support/Parallel.h"
#include "support/PathText.h"

#include "bundle/FileReading.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

using namespace aimodel;
using namespace aimodel::audit;
using Json = nlohmann::ordered_json;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<ShardSpec> aimodel::audit::parseShard(llvm::StringRef text) {
  auto [k, n] = text.split('/');
  auto isNumber = [](llvm::StringRef s) {
    return !s.empty() && llvm::all_of(s, llvm::isDigit);
  };
  ShardSpec spec;
  if (!isNumber(k) || !isNumber(n) || k.getAsInteger(10, spec.index) ||
      n.getAsInteger(10, spec.count) || spec.index < 1 ||
      spec.index > spec.count)
    return fail("expected K/N, shard K of N with 1 <= K <= N, not " +
                Json(support::printablePath(text)).dump());
  if (spec.count > kMaxShards)
    return fail(
        llvm::formatv("at most {0} shards, not {1}", kMaxShards, spec.count));
  return spec;
}

unsigned aimodel::audit::shardOf(llvm::StringRef bundlePath, unsigned count) {
  // XXH3 reads its input as little-endian words on every host, and its
  // output for given bytes is fixed by its specification.
  return static_cast<unsigned>(llvm::xxh3_64bits(bundlePath) % count) + 1;
}

bool aimodel::audit::inShard(const ShardSpec &shard,
                             llvm::StringRef bundlePath) {
  return shard.count > 0 && shardOf(bundlePath, shard.count) == shard.index;
}

namespace {

/// A field of a tree record: its bytes and a NUL, so no two lists of
/// fields give the same bytes.
void addField(std::string &record, llvm::StringRef field) {
  record += field;
  record += '\0';
}

/// lstat's size of `path`, as text; "?" when it cannot be told.
std::string sizeOf(const std::string &path) {
  llvm::sys::fs::file_status status;
  return llvm::sys::fs::status(path, status, /*Follow=*/false)
             ? std::string("?")
             : std::to_string(status.getSize());
}

/// treeRecord() of a bundle no audit of this run listed: opened here.
std::string recordOf(const bundle::FoundBundle &found,
                     bundle::FolderCache &folders) {
  if (found.entryType == bundle::DirEntry::Type::Directory) {
    // Followed as named, as the walk below a named folder always was.
    bundle::FoundBundle named = found;
    named.named = true;
    llvm::Expected<bundle::OpenedBundle> opened =
        bundle::openBundle(named, &folders);
    if (opened)
      return treeRecord(found, opened->fd.get(), opened->entries);
    llvm::consumeError(opened.takeError());
  }
  std::string record;
  addField(record, found.path);
  addField(record, bundle::bundleKindName(found.kind));
  addField(record, found.entryType == bundle::DirEntry::Type::Directory
                       ? "unreadable:"
                       : sizeOf(found.path));
  return record;
}

} // namespace

std::string
aimodel::audit::treeRecord(const bundle::FoundBundle &found, int dirFd,
                           const std::vector<bundle::DirEntry> &top) {
  std::string record;
  addField(record, found.path);
  addField(record, bundle::bundleKindName(found.kind));
  std::vector<bundle::WalkError> errors = bundle::walkFolders(
      dirFd,
      [&](int fd, const std::string &rel,
          const std::vector<bundle::DirEntry> &entries) {
        for (const bundle::DirEntry &entry : entries) {
          std::string name = bundle::joinPath(rel, entry.name);
          addField(record, name);
          addField(record, std::to_string(int(entry.type)));
          if (entry.type == bundle::DirEntry::Type::File)
            addField(record, entry.examined
                                 ? std::to_string(entry.size)
                                 : sizeOf(bundle::joinPath(found.path, name)));
          else if (entry.type == bundle::DirEntry::Type::Symlink)
            addField(record, entry.symlinkTarget);
        }
      },
      [](const bundle::DirEntry &) { return true; }, &top);
  for (const bundle::WalkError &error : errors)
    addField(record, "unreadable:" + error.name);
  return record;
}

std::string
aimodel::audit::treeDigest(const std::vector<bundle::FoundBundle> &bundles,
                           const AuditReport *audited, unsigned jobs) {
  llvm::StringMap<const std::string *> listed;
  if (audited)
    for (const BundleReport &bundle : audited->bundles)
      if (bundle.treeRecord)
        listed[bundle.path] = &*bundle.treeRecord;
  std::vector<const bundle::FoundBundle *> sorted;
  for (const bundle::FoundBundle &found : bundles)
    sorted.push_back(&found);
  llvm::sort(sorted,
             [](const bundle::FoundBundle *a, const bundle::FoundBundle *b) {
               return a->path < b->path;
             });
  // Bundles the audit did not list (another shard's, symlinks, IR files,
  // unreadable ones) are listed here, in parallel.
  std::vector<std::string> records(sorted.size());
  bundle::FolderCache folders;
  support::forEachIndex(sorted.size(), jobs, [&](size_t i) {
    if (!listed.count(sorted[i]->path))
      records[i] = recordOf(*sorted[i], folders);
    return true;
  });
  bundle::Sha256 hash; // OpenSSL's: the same digest, faster
  for (size_t i = 0; i < sorted.size(); ++i) {
    auto it = listed.find(sorted[i]->path);
    hash.update(it == listed.end() ? records[i] : *it->second);
  }
  return bundle::toHex(hash.finish());
}

namespace {
/// One shard's report, checked and read back into the report model.
struct ShardReport {
  std::string name; ///< the file, printable
  ShardSpec spec;
  AuditReport report;
  Json runFields; ///< "run" without the per-shard counts, to compare
};

/// a + b, or an error when the count does not fit.
llvm::Expected<unsigned> addCounts(uint64_t a, uint64_t b,
                                   const std::string &what) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum) ||
      sum > std::numeric_limits<unsigned>::max())
    return fail(what + ": counts overflow when added up");
  return unsigned(sum);
}

std::optional<bundle::BundleKind> kindNamed(llvm::StringRef name) {
  for (bundle::BundleKind kind :
       {bundle::BundleKind::Asset, bundle::BundleKind::CompiledAsset,
        bundle::BundleKind::BundleDir, bundle::BundleKind::IRFile})
    if (bundle::bundleKindName(kind) == name)
      return kind;
  return std::nullopt;
}

llvm::Expected<Finding> readFinding(const Json &f, const std::string &at) {
  Finding finding;
  finding.rule = findRule(f["rule"].get<std::string>());
  if (!finding.rule)
    return fail(at + ": unknown rule " + f["rule"].dump() +
                " (not in this aimodel's catalogue)");
  auto severity = f.find("severity");
  std::optional<Severity> level;
  if (severity != f.end() && severity->is_string())
    level = parseSeverity(severity->get<std::string>());
  if (!level)
    return fail(
        at + ": severity " +
        (severity == f.end() ? std::string("missing") : severity->dump()) +
        " is not \"error\", \"warning\" or \"info\"");
  finding.severity = *level;
  auto message = f.find("message");
  if (message == f.end() || !message->is_string())
    return fail(at + ": \"message\" is missing or not a string");
  finding.message = message->get<std::string>();
  finding.file = exactPath(f, "file");
  for (const char *key : {"ops", "block_arguments"}) {
    auto count = f.find(key);
    if (count == f.end())
      continue;
    if (!count->is_number_unsigned())
      return fail(at + ": \"" + key + "\" is not a count");
    (std::string(key) == "ops" ? finding.ops : finding.blockArguments) =
        count->get<uint64_t>();
  }
  if (auto examples = f.find("examples"); examples != f.end()) {
    if (!examples->is_array())
      return fail(at + ": \"examples\" is not an array");
    for (const Json &example : *examples) {
      if (!example.is_string())
        return fail(at + ": an example is not a string");
      finding.examples.push_back(example.get<std::string>());
    }
  }
  return finding;
}

/// The shard's run record: what it audited, as which shard.
llvm::Error readRun(const Json &doc, ShardReport &shard) {
  auto run = doc.find("run");
  if (run == doc.end() || !run->is_object())
    return fail("has no \"run\" record: not a shard report of this aimodel "
                "(audit with --shard K/N --format json)");
  auto spec = run->find("shard");
  if (spec == run->end() || !spec->is_string())
    return fail("is not a shard report (its run has no --shard K/N): there "
                "is nothing to merge it with");
  llvm::Expected<ShardSpec> parsed = parseShard(spec->get<std::string>());
  if (!parsed)
    return fail("run.shard: " + llvm::toString(parsed.takeError()));
  shard.spec = *parsed;
  RunRecord &record = shard.report.run;
  auto inputs = run->find("inputs");
  if (inputs == run->end() || !inputs->is_array())
    return fail("run.inputs is missing or not an array");
  auto hex = run->find("inputs_bytes");
  for (size_t i = 0; i < inputs->size(); ++i) {
    if (!(*inputs)[i].is_string())
      return fail("run.inputs holds something other than paths");
    Json one = {{"path", (*inputs)[i]}};
    if (hex != run->end() && hex->is_array() && i < hex->size())
      one["path_bytes"] = (*hex)[i];
    record.inputs.push_back(exactPath(one, "path"));
  }
  auto text = [&](const Json &object, const char *key) {
    auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>()
                                                 : std::string();
  };
  record.tree = text(*run, "tree");
  record.runId = text(*run, "run_id");
  auto flag = run->find("pre_commit");
  record.preCommit = flag != run->end() && flag->is_boolean() && bool(*flag);
  auto config = run->find("config");
  if (config != run->end() && config->is_object()) {
    record.configFile = exactPath(*config, "file");
    record.configDigest = text(*config, "sha256");
    if (std::string floor = text(*config, "stale_compiler_floor");
        !floor.empty())
      record.configFloor = floor;
    if (auto ignore = config->find("ignore");
        ignore != config->end() && ignore->is_array())
      for (const Json &entry : *ignore)
        if (entry.is_string())
          record.configIgnore.push_back(entry.get<std::string>());
    if (auto severity = config->find("severity");
        severity != config->end() && severity->is_array())
      for (const Json &o : *severity)
        if (o.is_string())
          record.configSeverity.push_back(o.get<std::string>());
    auto suppressed = config->find("suppressed");
    if (suppressed == config->end() || !suppressed->is_number_unsigned() ||
        suppressed->get<uint64_t>() > std::numeric_limits<unsigned>::max())
      return fail("run.config.suppressed is not a count");
    record.suppressedByConfig = suppressed->get<unsigned>();
  }
  if (auto file = run->find("baseline");
      file != run->end() && file->is_object())
    record.baselineFile = exactPath(*file, "file");
  auto metadataOnly = run->find("metadata_only");
  record.metadataOnly = metadataOnly != run->end() &&
                        metadataOnly->is_boolean() && bool(*metadataOnly);
  auto baseline = run->find("baseline_suppressed");
  if (baseline != run->end()) {
    if (!baseline->is_number_unsigned() ||
        baseline->get<uint64_t>() > std::numeric_limits<unsigned>::max())
      return fail("run.baseline_suppressed is not a count");
    record.suppressedByBaseline = baseline->get<unsigned>();
  }
  if (auto overrides = run->find("severity_overrides");
      overrides != run->end() && overrides->is_array())
    for (const Json &o : *overrides)
      if (o.is_string())
        record.severityOverrides.push_back(o.get<std::string>());
  // What every shard of one run shares.
  shard.runFields = *run;
  shard.runFields.erase("shard");
  if (shard.runFields.contains("config") &&
      shard.runFields["config"].is_object())
    shard.runFields["config"].erase("suppressed");
  shard.runFields.erase("baseline_suppressed");
  return llvm::Error::success();
}

/// Every shard linked compiled bundles to sources over the whole run, so
/// the merged links must agree both ways: a compiled bundle's source lists
/// it, and every bundle a source lists names that source.
llvm::Error checkLinks(const AuditReport &merged) {
  std::map<std::string, const BundleReport *> byPath;
  for (const BundleReport &bundle : merged.bundles)
    byPath[bundle.path] = &bundle;
  auto name = [](const std::string &path) {
    return Json(support::printablePath(path)).dump();
  };
  for (const BundleReport &bundle : merged.bundles) {
    if (bundle.source) {
      auto it = byPath.find(bundle.source->path);
      if (it == byPath.end() || it->second->kind != bundle::BundleKind::Asset ||
          !llvm::is_contained(it->second->compiled, bundle.path))
        return fail("the shards disagree on provenance: " + name(bundle.path) +
                    " names " + name(bundle.source->path) +
                    " as its source, which does not list it: edited?");
    }
    for (const std::string &compiled : bundle.compiled) {
      auto it = byPath.find(compiled);
      if (it == byPath.end() || !it->second->source ||
          it->second->source->path != bundle.path)
        return fail("the shards disagree on provenance: " + name(bundle.path) +
                    " lists " + name(compiled) +
                    " as compiled from it, which does not name it: edited?");
    }
  }
  return llvm::Error::success();
}

/// "shard 3/8", "shards 2-4/8, 7/8", "shards 2-9999999/10000000": the
/// shards no report is for, as ranges, a few at most.
std::string missingShards(llvm::ArrayRef<const ShardReport *> byIndex) {
  constexpr size_t kMostRanges = 8;
  unsigned count = unsigned(byIndex.size() - 1);
  std::vector<std::pair<unsigned, unsigned>> ranges;
  unsigned shards = 0;
  for (unsigned k = 1; k <= count; ++k) {
    if (byIndex[k])
      continue;
    ++shards;
    if (!ranges.empty() && ranges.back().second + 1 == k)
      ranges.back().second = k;
    else
      ranges.push_back({k, k});
  }
  if (ranges.empty())
    return "";
  std::string text = shards == 1 ? "shard " : "shards ";
  for (size_t i = 0; i < std::min(ranges.size(), kMostRanges); ++i) {
    auto [from, to] = ranges[i];
    text += (i ? ", " : "") +
            (from == to ? llvm::formatv("{0}/{1}", from, count).str()
                        : llvm::formatv("{0}-{1}/{2}", from, to, count).str());
  }
  if (ranges.size() > kMostRanges)
    text += llvm::formatv(" and {0} more ranges", ranges.size() - kMostRanges);
  return text;
}

llvm::Expected<ShardReport> readShard(const std::string &path,
                                      llvm::StringRef toolVersion) {
  llvm::Expected<Json> doc = readReport(path);
  if (!doc)
    return doc.takeError();
  ShardReport shard;
  shard.name = support::printablePath(path);
  auto inFile = [&](llvm::Error error) {
    return fail(shard.name + ": " + llvm::toString(std::move(error)));
  };
  const Json &tool = (*doc)["tool"];
  auto field = [&](const char *key) {
    auto it = tool.find(key);
    return it != tool.end() && it->is_string() ? it->get<std::string>()
                                               : std::string();
  };
  if (field("name") != "aimodel" || field("version") != toolVersion)
    return inFile(fail("written by " + tool.dump() + ", not by this aimodel (" +
                       toolVersion + "): merge with the aimodel that audited"));
  if (llvm::Error error = readRun(*doc, shard))
    return inFile(std::move(error));

  const Json &bundles = (*doc)["bundles"];
  for (size_t i = 0; i < bundles.size(); ++i) {
    const Json &b = bundles[i];
    std::string at = llvm::formatv("bundles[{0}]", i);
    BundleReport bundle;
    bundle.path = exactPath(b, "path");
    if (shardOf(bundle.path, shard.spec.count) != shard.spec.index)
      return inFile(fail(llvm::formatv(
          "{0} ({1}) is not in shard {2}/{3}: the report was edited, or "
          "the shards were given other PATHs",
          at, Json(support::printablePath(bundle.path)).dump(),
          shard.spec.index, shard.spec.count)));
    auto kind = b.find("kind");
    std::optional<bundle::BundleKind> parsedKind;
    if (kind != b.end() && kind->is_string())
      parsedKind = kindNamed(kind->get<std::string>());
    if (!parsedKind)
      return inFile(fail(at + ": \"kind\" is not a bundle kind"));
    bundle.kind = *parsedKind;
    auto producer = b.find("producer");
    if (producer != b.end() && producer->is_string())
      bundle.producer = producer->get<std::string>();
    auto record = b.find("strip_record");
    if (record != b.end() && record->is_object()) {
      auto text = [&](const char *key) {
        auto it = record->find(key);
        return it != record->end() && it->is_string() ? it->get<std::string>()
                                                      : std::string();
      };
      bundle::StripRecord r;
      r.tool = text("tool");
      r.version = text("version");
      r.date = text("date");
      r.from.sha256 = text("from_sha256");
      r.to.sha256 = text("sha256");
      bundle.stripRecord = std::move(r);
    }
    // Provenance, as every shard computed it over the whole tree.
    auto source = b.find("source");
    if (source != b.end() && source->is_object())
      bundle.source = SourceLink{
          exactPath(*source, "path"),
          source->contains("matched_by") && (*source)["matched_by"].is_string()
              ? (*source)["matched_by"].get<std::string>()
              : std::string()};
    auto compiled = b.find("compiled");
    if (compiled != b.end() && compiled->is_array())
      for (const Json &one : *compiled)
        if (one.is_object())
          bundle.compiled.push_back(exactPath(one, "path"));
    if (auto ran = b.find("rules_run"); ran != b.end()) {
      if (!ran->is_array())
        return inFile(fail(at + ": \"rules_run\" is not an array"));
      for (const Json &id : *ran) {
        const Rule *rule =
            id.is_string() ? findRule(id.get<std::string>()) : nullptr;
        if (!rule)
          return inFile(fail(at + ": \"rules_run\" holds " + id.dump() +
                             ", not a rule of this aimodel"));
        bundle.rulesRun.push_back(rule);
      }
    }
    const Json &findings = b["findings"];
    for (size_t j = 0; j < findings.size(); ++j) {
      std::string where = at + llvm::formatv(".findings[{0}]", j).str();
      llvm::Expected<Finding> finding = readFinding(findings[j], where);
      if (!finding)
        return inFile(finding.takeError());
      // A rule is reported at one severity in a run: its default, or what
      // the run's config and --severity made it.
      Severity expected = severityInRun(*finding->rule, shard.report.run);
      if (finding->severity != expected)
        return inFile(fail(where + ": " + finding->rule->id.str() +
                           " is reported at " +
                           severityName(finding->severity).str() +
                           ", but this run reports it at " +
                           severityName(expected).str() + ": edited?"));
      bundle.findings.push_back(std::move(*finding));
    }
    shard.report.bundles.push_back(std::move(bundle));
  }
  // The shard's own summary must be what its findings say.
  recountSeverities(shard.report);
  const auto &counts = shard.report.countBySeverity;
  const Json &summary = (*doc)["summary"];
  std::pair<const char *, uint64_t> expected[] = {
      {"bundles", bundles.size()},
      {"error", counts[static_cast<int>(Severity::Error)]},
      {"warning", counts[static_cast<int>(Severity::Warning)]},
      {"info", counts[static_cast<int>(Severity::Info)]}};
  if (summary.size() != std::size(expected))
    return inFile(fail("its summary does not hold exactly \"bundles\", "
                       "\"error\", \"warning\" and \"info\""));
  for (auto [key, count] : expected) {
    auto said = summary.find(key);
    if (said == summary.end() || said->get<uint64_t>() != count)
      return inFile(fail(llvm::formatv(
          "its summary says {0} {1}, its findings hold {2}: edited?", key,
          said == summary.end() ? std::string("nothing") : said->dump(),
          count)));
  }
  return shard;
}
} // namespace

llvm::Expected<AuditReport>
aimodel::audit::mergeReports(const std::vector<std::string> &paths,
                             llvm::StringRef toolVersion) {
  if (paths.empty())
    return fail("no report to merge");
  std::vector<ShardReport> shards;
  for (const std::string &path : paths) {
    llvm::Expected<ShardReport> shard = readShard(path, toolVersion);
    if (!shard)
      return shard.takeError();
    shards.push_back(std::move(*shard));
  }

  // Exactly the shards 1/N .. N/N of one run, each once.
  const ShardReport &first = shards.front();
  unsigned count = first.spec.count;
  std::vector<const ShardReport *> byIndex(count + 1, nullptr);
  for (const ShardReport &shard : shards) {
    if (shard.spec.count != count)
      return fail(llvm::formatv("{0} is shard {1}/{2}, but {3} is {4}/{5}: "
                                "shards of different splits",
                                shard.name, shard.spec.index, shard.spec.count,
                                first.name, first.spec.index, count));
    if (const ShardReport *seen = byIndex[shard.spec.index])
      return fail(llvm::formatv("{0} and {1} are both shard {2}/{3}",
                                seen->name, shard.name, shard.spec.index,
                                count));
    byIndex[shard.spec.index] = &shard;
    // The tree and the run first: what a stale shard differs in.
    const RunRecord &run = shard.report.run, &firstRun = first.report.run;
    if (run.tree != firstRun.tree)
      return fail(llvm::formatv(
          "{0} walked another tree than {1} (tree {2} vs {3}): shards of two "
          "states of the tree do not merge; audit every shard again",
          shard.name, first.name, run.tree.empty() ? "unrecorded" : run.tree,
          firstRun.tree.empty() ? "unrecorded" : firstRun.tree));
    if (run.runId != firstRun.runId)
      return fail(llvm::formatv(
          "{0} is from run {1}, {2} from run {3}: shards of two runs do not "
          "merge",
          shard.name, Json(support::printableText(run.runId)).dump(),
          first.name, Json(support::printableText(firstRun.runId)).dump()));
    if (run.configDigest != firstRun.configDigest)
      return fail(llvm::formatv(
          "{0} was audited under another config than {1} (sha256 {2} vs "
          "{3}): shards must share one config",
          shard.name, first.name, run.configDigest, firstRun.configDigest));
    if (shard.runFields != first.runFields)
      return fail(llvm::formatv(
          "{0} audited other inputs or with another config or override "
          "than {1} (run {2} vs {3}): shards must come from one run",
          shard.name, first.name, shard.runFields.dump(),
          first.runFields.dump()));
  }
  std::string missing = missingShards(byIndex);
  if (!missing.empty())
    return fail(missing + " missing: merged without them, the report " +
                "would silently leave their bundles out");

  AuditReport merged;
  merged.run = first.report.run;
  merged.run.shardIndex = merged.run.shardCount = 0;
  merged.run.suppressedByConfig = merged.run.suppressedByBaseline = 0;
  for (ShardReport &shard : shards) {
    llvm::Expected<unsigned> config =
        addCounts(merged.run.suppressedByConfig,
                  shard.report.run.suppressedByConfig, shard.name);
    llvm::Expected<unsigned> baseline =
        addCounts(merged.run.suppressedByBaseline,
                  shard.report.run.suppressedByBaseline, shard.name);
    if (!config)
      return config.takeError();
    if (!baseline)
      return baseline.takeError();
    merged.run.suppressedByConfig = *config;
    merged.run.suppressedByBaseline = *baseline;
    for (BundleReport &bundle : shard.report.bundles)
      merged.bundles.push_back(std::move(bundle));
  }
  // The audit sorts by std::string, whose comparison is by unsigned bytes;
  // shards are disjoint by construction (each bundle is in its own shard),
  // so a path twice is one listed twice in one report.
  std::stable_sort(merged.bundles.begin(), merged.bundles.end(),
                   [](const BundleReport &a, const BundleReport &b) {
                     return a.path < b.path;
                   });
  for (size_t i = 1; i < merged.bundles.size(); ++i)
    if (merged.bundles[i].path == merged.bundles[i - 1].path)
      return fail("bundle " +
                  Json(support::printablePath(merged.bundles[i].path)).dump() +
                  " is listed twice in its shard's report");
  uint64_t findings = 0;
  for (const BundleReport &bundle : merged.bundles)
    findings += bundle.findings.size();
  if (findings > std::numeric_limits<unsigned>::max())
    return fail("more findings than can be counted");
  if (llvm::Error error = checkLinks(merged))
    return error;
  recountSeverities(merged);
  return merged;
}
