//===- Shard.cpp - Splitting an audit over machines and merging it --------===//

#include "audit/Shard.h"
#include "audit/ReportFiles.h"

#include "support/PathText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

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
struct MergedBundle {
  std::string path; ///< exact bytes: the sort key
  size_t input;     ///< which report it came from
  const Json *bundle;
};

/// Inputs must hold the same fields, or merging would lose or invent some.
bool sameKeys(const Json &a, const Json &b) {
  return a.size() == b.size() && llvm::all_of(a.items(), [&](const auto &item) {
           return b.contains(item.key());
         });
}
} // namespace

llvm::Expected<Json>
aimodel::audit::mergeReports(const std::vector<std::string> &paths) {
  if (paths.empty())
    return fail("no report to merge");
  std::vector<Json> docs;
  std::vector<std::string> names;
  for (const std::string &path : paths) {
    llvm::Expected<Json> doc = readReport(path);
    if (!doc)
      return doc.takeError();
    docs.push_back(std::move(*doc));
    names.push_back(support::printablePath(path));
  }

  const Json &first = docs.front();
  for (size_t i = 1; i < docs.size(); ++i) {
    const Json &doc = docs[i];
    bool top = sameKeys(first, doc);
    if (!top || !sameKeys(first["summary"], doc["summary"])) {
      std::string what = top ? "summary counts" : "top-level keys";
      return fail(llvm::formatv("{0}: its {1} differ from those of {2}: "
                                "reports of different aimodel versions?",
                                names[i], what, names[0]));
    }
    for (const auto &item : first.items()) {
      if (item.key() == "bundles" || item.key() == "summary" ||
          doc[item.key()] == item.value())
        continue;
      return fail(llvm::formatv("{0}: \"{1}\" is {2}, but {3} in {4}: shards "
                                "must come from one aimodel and one run",
                                names[i], item.key(), doc[item.key()].dump(),
                                item.value().dump(), names[0]));
    }
  }

  std::vector<MergedBundle> bundles;
  for (size_t i = 0; i < docs.size(); ++i)
    for (const Json &bundle : docs[i]["bundles"])
      bundles.push_back({exactPath(bundle, "path"), i, &bundle});
  // The audit sorts by std::string, whose comparison is by unsigned bytes.
  std::stable_sort(bundles.begin(), bundles.end(),
                   [](const MergedBundle &a, const MergedBundle &b) {
                     return a.path < b.path;
                   });
  for (size_t i = 1; i < bundles.size(); ++i) {
    if (bundles[i].path != bundles[i - 1].path)
      continue;
    std::string path = Json(support::printablePath(bundles[i].path)).dump();
    size_t a = bundles[i - 1].input, b = bundles[i].input;
    if (a == b)
      return fail(
          llvm::formatv("{0}: bundle {1} is listed twice", names[b], path));
    return fail(llvm::formatv("bundle {0} is in both {1} and {2}: shards "
                              "overlap",
                              path, names[a], names[b]));
  }

  Json merged = Json::object();
  for (const auto &item : first.items()) {
    if (item.key() == "bundles") {
      Json all = Json::array();
      for (const MergedBundle &bundle : bundles)
        all.push_back(*bundle.bundle);
      merged["bundles"] = std::move(all);
    } else if (item.key() == "summary") {
      Json summary = Json::object();
      for (const auto &count : item.value().items()) {
        uint64_t total = 0;
        for (const Json &doc : docs)
          total += doc["summary"][count.key()].get<uint64_t>();
        summary[count.key()] = total;
      }
      merged["summary"] = std::move(summary);
    } else {
      merged[item.key()] = item.value();
    }
  }
  return merged;
}
