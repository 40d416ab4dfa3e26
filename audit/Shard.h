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

#include "audit/Audit.h"
#include "bundle/TreeWalk.h"

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

/// The most shards a run may have: far more machines than any CI gives,
/// few enough that a merge may list them all.
inline constexpr unsigned kMaxShards = 65536;

/// Parses "K/N": decimal, 1 <= K <= N <= kMaxShards. The error says what
/// is wrong with the text (the caller names the flag).
llvm::Expected<ShardSpec> parseShard(llvm::StringRef text);

/// The shard a bundle's reported path (raw bytes) belongs to, 1-based.
unsigned shardOf(llvm::StringRef bundlePath, unsigned count);

/// True when the bundle at `bundlePath` belongs to `shard`.
bool inShard(const ShardSpec &shard, llvm::StringRef bundlePath);

/// What tree a run walked, as 64 hex digits: SHA-256 over every bundle's
/// path and kind, and the name, type and size of every entry below it (a
/// file changed in size, added, removed or renamed changes it). Every
/// shard of a run computes it over all bundles, so all record the same.
/// A bundle of `audited` with a treeRecord is not listed again; the others
/// are, `jobs` at a time.
std::string treeDigest(const std::vector<bundle::FoundBundle> &bundles,
                       const AuditReport *audited = nullptr, unsigned jobs = 1);

/// One bundle's part of treeDigest (its fields, each NUL-ended), from its
/// open folder `dirFd` listed as `top` (EntryDetail::Full).
std::string treeRecord(const bundle::FoundBundle &found, int dirFd,
                       const std::vector<bundle::DirEntry> &top);

/// Merges the "aimodel-audit/1" JSON reports of the shards of one run into
/// the report one unsharded run makes: bundles joined and sorted by their
/// paths' bytes, the summary recomputed from the findings (each shard's
/// own summary must agree with its findings). Nothing a shard says is
/// taken on trust: every finding's rule and severity must be in this
/// aimodel's catalogue, every bundle must belong to the shard that lists
/// it, the shards must be exactly 1/N .. N/N once each, written by this
/// aimodel (`toolVersion`) for the same inputs, config and overrides.
/// Errors (one line, naming the file): unreadable, not a report, a shard
/// missing, repeated or from another run, a finding or summary that does
/// not check.
llvm::Expected<AuditReport> mergeReports(const std::vector<std::string> &paths,
                                         llvm::StringRef toolVersion);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_SHARD_H
