//===- IRChecks.h - The IR rules for one bundle (audit-internal) -*- C++
//-*-===//
#ifndef AIMODEL_AUDIT_IRCHECKS_H
#define AIMODEL_AUDIT_IRCHECKS_H

#include "audit/Audit.h"
#include "bytecode/GraphInterface.h"
#include "support/SafeFile.h"

#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::audit::detail {

/// What one IR file of a bundle showed.
struct IRFileVerdict {
  std::string name; ///< member path relative to the bundle
  /// Why it cannot be decoded ("byte N: ..."), if it cannot (AIM006).
  std::optional<std::string> unreadable;
  std::vector<passes::IRFinding> findings;
  /// Its entry graphs' interfaces, when asked for and it decoded.
  std::optional<std::vector<bytecode::EntryGraphFacts>> graphs;
};

/// Decodes the IR file `file` (one decoder for every command), and runs the
/// IR rules `rules` (passes::IRRule bits) for which its tables show
/// evidence, or all of them with options.forceImport; with `withGraphs`,
/// also reads its entry graphs' interfaces from the same decode.
IRFileVerdict checkIRFile(support::RegularFile file, const std::string &name,
                          unsigned rules, const AuditOptions &options,
                          bool withGraphs = false);

/// The same for an IR file already read into `bytes` (not under
/// options.forceImport, whose import needs the file).
IRFileVerdict checkIRBytes(std::unique_ptr<llvm::MemoryBuffer> bytes,
                           const std::string &name, unsigned rules,
                           bool withGraphs = false);

/// Audits one IR file outside any asset (IRFileAudit.cpp): the rules that
/// read IR alone.
BundleReport auditIRFile(const bundle::FoundBundle &found,
                         const AuditOptions &options);

/// Turns the verdicts on an asset's IR files into findings: AIM002, AIM006,
/// AIM007, AIM012 for a .aimodel; AIM006, AIM007 and the legacy-location
/// part of AIM008 for a .aimodelc (`compiledSummary` starts AIM008's text).
std::vector<Finding> irFindings(bundle::BundleKind kind,
                                const std::vector<IRFileVerdict> &verdicts,
                                const std::string &compiledSummary);

} // namespace aimodel::audit::detail

#endif // AIMODEL_AUDIT_IRCHECKS_H
