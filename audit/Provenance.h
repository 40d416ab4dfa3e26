//===- Provenance.h - Which compiled bundle came from which source -*- C++
//-*-===//
//
// Across a tree: a compiled .aimodelc is linked to the source .aimodel whose
// identity matches its sourceHash. What sourceHash hashes is not documented,
// so only candidates computable without guessing a format are tried (the
// source's main.hash, i.e. the SHA-256 of its main.mlirb), and every link
// says which matched; a same-stem source that matches none is said to, never
// called stale. And the compiler floor below which a compiled bundle is
// reported stale (AIM013): community-reported, data in one place here,
// overridable by the config.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_PROVENANCE_H
#define AIMODEL_AUDIT_PROVENANCE_H

#include "audit/Audit.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace aimodel::audit {

/// "coreai-build-3600.67.5.8.1" -> {3600, 67, 5, 8, 1}: the leading
/// dot-separated decimal parts; what follows them ("-beta2", " (beta 2)",
/// "+build7", a newline) is not part of the version, and a part too large
/// for 64 bits saturates. nullopt for any other producer, or one naming
/// coreai-build without a leading number.
std::optional<std::vector<uint64_t>>
coreaiBuildVersion(llvm::StringRef producer);

/// AIM013's message when `producer` is older than `floor` (both
/// "coreai-build-<version>"; `floor` checked by the caller), or when it
/// names coreai-build with a version that cannot be read ("version not
/// understood": never a pass), else nullopt.
std::optional<std::string> staleCompilerMessage(llvm::StringRef producer,
                                                llvm::StringRef floor);

/// The stem an asset is known by: "X" for X.aimodel and for
/// X.<arch>.aimodelc (`name`: the name its kind was read from).
std::string assetStem(llvm::StringRef name);

/// Links every compiled bundle of `report` to its source among `all` (the
/// bundles of the whole run, also those another shard audits) and adds what
/// that says: AIM014 for a compiled bundle with no source, an AIM008 line
/// for a same-stem source that matches no candidate and for a source with
/// legacy locations. Sources not audited in `report` are read for their
/// main.hash (and, when linked, audited for AIM002) here.
void linkSources(AuditReport &report,
                 const std::vector<bundle::FoundBundle> &all,
                 const AuditOptions &options);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_PROVENANCE_H
