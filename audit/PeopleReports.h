//===- PeopleReports.h - What the Markdown and HTML reports share -*- C++
//-*-===//
//
// Internal to audit/: the counts and verdict both reports for people show,
// computed once from an AuditReport.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_PEOPLEREPORTS_H
#define AIMODEL_AUDIT_PEOPLEREPORTS_H

#include "audit/ReportFormats.h"

#include <string>
#include <vector>

namespace aimodel::audit {

/// Per rule that fired: its severity in this run (--severity and the
/// config may move it; one per rule), findings, and bundles with at least
/// one.
struct RuleCount {
  const Rule *rule;
  Severity severity;
  unsigned findings = 0, bundles = 0;
};

struct PeopleSummary {
  bool fails = false;  ///< the gate fails (a finding at or above failOn)
  std::string verdict; ///< "fails the gate (--fail-on error): 3 errors"
  std::vector<RuleCount> rules; ///< by rule ID
};

PeopleSummary summarise(const AuditReport &report,
                        const PeopleReportOptions &options);

/// "1 bundle", "3 errors".
std::string plural(size_t n, llvm::StringRef word);

/// Everything the run's config changed, in words, printable (the caller
/// escapes it): "Config ./.aimodel.json suppressed 2 findings (ignore:
/// legacy/*: AIM001); AIM009 reported as warning; AIM013's floor moved to
/// coreai-build-0." Empty without a config.
std::string configSentence(const RunRecord &run);

/// "51 known findings not reported (baseline old.json)." Empty without a
/// baseline. Printable; the caller escapes it.
std::string baselineSentence(const RunRecord &run);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_PEOPLEREPORTS_H
