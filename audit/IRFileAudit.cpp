//===- IRFileAudit.cpp - One IR file, audited alone -----------------------===//
//
// An MLIR bytecode file outside any asset (named on the command line, or met
// by the walk: a backup's main.mlirb, a dump named .bin) gets every rule that
// reads IR alone, as an asset's mlirb would: AIM002, AIM006, AIM007, AIM012,
// AIM015. The rest need a bundle (metadata, hash, members, provenance).
//
//===----------------------------------------------------------------------===//

#include "audit/IRChecks.h"
#include "audit/ReportFiles.h"

#include "mlir-passes/RuleRunner.h"
#include "support/PathText.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::audit;

namespace {

bool readsIRAlone(const Rule *rule) {
  return rule == &rules::LegacyDebugLocation || rule == &rules::UnreadableIR ||
         rule == &rules::DebugPayload || rule == &rules::UnverifiedLocation ||
         rule == &rules::GraphTrap;
}

std::string idsWhere(bool applies) {
  std::string ids;
  for (const Rule *rule : allRules())
    if (readsIRAlone(rule) == applies)
      ids += (ids.empty() ? "" : ", ") + rule->id.str();
  return ids;
}

} // namespace

std::string
aimodel::audit::irFileRulesNote(const std::vector<std::string> &paths) {
  std::string which =
      paths.size() == 1
          ? support::printablePath(paths.front()) + ": one IR file"
          : std::to_string(paths.size()) + " IR files (the first " +
                support::printablePath(paths.front()) + ")";
  return which + ", not a bundle: the IR rules ran (" + idsWhere(true) + "); " +
         idsWhere(false) +
         " did not apply (they check a bundle's metadata, hash, members, "
         "provenance or place in a bundle folder)";
}

BundleReport
aimodel::audit::detail::auditIRFile(const bundle::FoundBundle &found,
                                    const AuditOptions &options) {
  BundleReport report;
  report.path = found.path;
  report.kind = bundle::BundleKind::IRFile;
  if (options.metadataOnly)
    return report;
  std::string name = bundle::baseName(found.path).str();
  // Only a path the user named may be a symlink to follow.
  llvm::Expected<support::RegularFile> file = support::openRegularFile(
      found.path,
      found.named ? support::Symlinks::Follow : support::Symlinks::Refuse);
  if (!file) {
    report.findings.push_back(
        {&rules::MissingFile, rules::MissingFile.severity,
         name + " cannot be read: " + llvm::toString(file.takeError())});
    return report;
  }
  unsigned irRules = passes::kLegacyDebugLocationRule |
                     passes::kDebugPayloadRule |
                     passes::kUnverifiedLocationRule | passes::kGraphTrapRule;
  std::vector<detail::IRFileVerdict> verdicts;
  verdicts.push_back(
      detail::checkIRFile(std::move(*file), name, irRules, options));
  // Judged as an asset's IR; each finding is about the file itself.
  report.findings = detail::irFindings(bundle::BundleKind::Asset, verdicts, "");
  for (Finding &finding : report.findings)
    finding.file.clear();
  sortFindings(report.findings);
  return report;
}
