//===- PeopleReports.cpp - Counts and verdict for the reports for people --===//

#include "audit/PeopleReports.h"

#include "support/PathText.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>

using namespace aimodel;
using namespace aimodel::audit;

PeopleSummary aimodel::audit::summarise(const AuditReport &report,
                                        const PeopleReportOptions &options) {
  PeopleSummary out;
  std::map<llvm::StringRef, RuleCount> byRule;
  for (const BundleReport &bundle : report.bundles) {
    std::set<llvm::StringRef> seen;
    for (const Finding &f : bundle.findings) {
      RuleCount &count =
          byRule.try_emplace(f.rule->id, RuleCount{f.rule, f.severity})
              .first->second;
      ++count.findings;
      if (seen.insert(f.rule->id).second)
        ++count.bundles;
    }
  }
  for (auto &[id, count] : byRule)
    out.rules.push_back(count);
  const auto &n = report.countBySeverity;
  unsigned errors = n[static_cast<int>(Severity::Error)],
           warnings = n[static_cast<int>(Severity::Warning)],
           info = n[static_cast<int>(Severity::Info)];
  std::optional<Severity> worst = report.worst();
  out.fails = options.failOn && worst && *worst >= *options.failOn;
  std::string gate = options.failOn
                         ? ("--fail-on " + severityName(*options.failOn)).str()
                         : std::string("--fail-on never");
  out.verdict =
      llvm::formatv("{0} the gate ({1}): {2}, {3}, {4}, {5} info",
                    out.fails ? "fails" : "passes", gate,
                    plural(report.bundles.size(), "bundle"),
                    plural(errors, "error"), plural(warnings, "warning"), info)
          .str();
  return out;
}

std::string aimodel::audit::plural(size_t n, llvm::StringRef word) {
  return llvm::formatv("{0} {1}{2}", n, word, n == 1 ? "" : "s");
}

std::string aimodel::audit::configSentence(const RunRecord &run) {
  if (!run.configFile)
    return "";
  std::string text = "Config " + support::printablePath(*run.configFile) +
                     " suppressed " + plural(run.suppressedByConfig, "finding");
  if (!run.configIgnore.empty()) {
    text += " (ignore: ";
    for (size_t i = 0; i < run.configIgnore.size(); ++i)
      text += (i ? "; " : "") + support::printableText(run.configIgnore[i]);
    text += ")";
  }
  for (const std::string &severity : run.configSeverity) {
    auto [id, level] = llvm::StringRef(severity).split('=');
    text += "; " + id.str() + " reported as " + level.str();
  }
  if (run.configFloor)
    text +=
        "; AIM013's floor moved to " + support::printableText(*run.configFloor);
  return text + ".";
}

std::string aimodel::audit::baselineSentence(const RunRecord &run) {
  if (!run.baselineFile)
    return "";
  return plural(run.suppressedByBaseline, "known finding") +
         " not reported (baseline " +
         support::printablePath(*run.baselineFile) + ").";
}
