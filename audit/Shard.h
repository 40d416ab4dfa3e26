//===- Shard.h - Splitting an audit over machines and merging it -*- C++ -*-=//
//
// `--shard K/N` audits only the bundles of shard K of N, so N CI jobs can
// share a large tree; `--merge A.json B.json ...` joins their JSON reports
// into exactly the document one unsharded run prints. A bundle's shard is a
// hash of its reported path's bytes (XXH3-64, a fixed published algorithm):
// it does not depend on the walk order, the machine or the other bundles,
// so every bundle is in exactly one shard as long as every job is given the
// same PATH arguments.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_SHARD_H
#define AIMODEL_AUDIT_SHARD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace aimodel::audit {

struct ShardSpec {
  unsigned index = 1; ///< K, 1-based
  unsigned count = 1; ///< N
};

/// Parses "K/N": decimal, 1 <= K <= N. The error says what is wrong with
/// the text (the caller names the flag).
llvm::Expected<ShardSpec> parseShard(llvm::StringRef text);

/// The shard a bundle's reported path (raw bytes) belongs to, 1-based.
unsigned shardOf(llvm::StringRef bundlePath, unsigned count);

/// True when the bundle at `bundlePath` belongs to `shard`.
bool inShard(const ShardSpec &shard, llvm::StringRef bundlePath);

/// Merges "aimodel-audit/1" reports of disjoint shards: bundles joined and
/// sorted by their paths' bytes ("path_bytes" when present, as the audit
/// sorts), summary counts added up, every other top-level field ("schema",
/// "tool", ...) required equal in all inputs and copied, in the first
/// input's key order. Errors (one line, naming the file): unreadable, not
/// JSON or not a report, schema/tool/fields that differ, a bundle in two
/// inputs, summaries with different counts.
llvm::Expected<nlohmann::ordered_json>
mergeReports(const std::vector<std::string> &paths);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_SHARD_H
