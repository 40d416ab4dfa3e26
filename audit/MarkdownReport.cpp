//===- MarkdownReport.cpp - `aimodel audit --format markdown` -------------===//
//
// For a GitHub job summary (`>> $GITHUB_STEP_SUMMARY`) or a pull-request
// comment: the verdict first, counts per rule, the first findings with
// their fix. Every string from the files is escaped (support/MarkupText.h).
//
//===----------------------------------------------------------------------===//

#include "audit/Fixes.h"
#include "audit/PeopleReports.h"
#include "audit/RepairPlan.h"

#include "support/MarkupText.h"
#include "support/PathText.h"

using namespace aimodel;
using namespace aimodel::audit;

using support::MarkdownPlace;

/// Untrusted bytes in a table cell.
static std::string mdPath(llvm::StringRef bytes) {
  return support::markdownEscape(support::printablePath(bytes),
                                 MarkdownPlace::TableCell);
}

static std::string mdText(llvm::StringRef bytes) {
  return support::markdownEscape(support::printableText(bytes),
                                 MarkdownPlace::TableCell);
}

void aimodel::audit::writeMarkdownReport(llvm::raw_ostream &os,
                                         const AuditReport &report,
                                         const PeopleReportOptions &options) {
  PeopleSummary summary = summarise(report, options);
  os << "### aimodel audit: " << (summary.fails ? "❌ " : "✅ ")
     << summary.verdict << "\n\n";
  for (const std::string &sentence :
       {configSentence(report.run), baselineSentence(report.run)})
    if (!sentence.empty())
      os << support::markdownEscape(sentence, MarkdownPlace::LineStart)
         << "\n\n";
  if (summary.rules.empty()) {
    os << "No findings.\n";
    return;
  }
  os << "| rule | name | severity | findings | bundles |\n";
  os << "|---|---|---|---:|---:|\n";
  for (const RuleCount &count : summary.rules)
    os << "| " << count.rule->id << " | " << count.rule->name << " | "
       << severityName(count.severity) << " | " << count.findings << " | "
       << count.bundles << " |\n";

  // What strip repairs (audit/RepairPlan.h): each command a code span of
  // its own line, so it is copied as it is.
  RepairPlan plan = planRepair(report);
  if (!plan.empty()) {
    os << "\n#### Repair\n\n";
    if (plan.stripped)
      os << "- " << support::markdownCode(plan.command, MarkdownPlace::Text)
         << " "
         << support::markdownEscape(strippedSentence(plan), MarkdownPlace::Text)
         << "\n";
    if (plan.rehashed)
      os << "- "
         << support::markdownCode(plan.rehashCommand, MarkdownPlace::Text)
         << " "
         << support::markdownEscape(rehashSentence(plan), MarkdownPlace::Text)
         << "\n";
    if (!plan.skipped.empty())
      os << "- "
         << support::markdownEscape(skippedSentence(plan), MarkdownPlace::Text)
         << "\n";
  }

  // Worst first, then in report order.
  std::vector<std::pair<const BundleReport *, const Finding *>> findings;
  for (Severity severity : {Severity::Error, Severity::Warning, Severity::Info})
    for (const BundleReport &bundle : report.bundles)
      for (const Finding &f : bundle.findings)
        if (f.severity == severity)
          findings.push_back({&bundle, &f});
  os << "\n#### Findings\n\n";
  os << "| severity | rule | where | message | fix |\n";
  os << "|---|---|---|---|---|\n";
  unsigned listed = 0;
  for (const auto &[bundle, f] : findings) {
    if (listed++ >= options.maxFindings)
      break;
    os << "| " << severityName(f->severity) << " | " << f->rule->id << " | "
       << mdPath(bundle->pathOf(*f)) << " | " << mdText(f->message) << " | "
       << mdText(fixFor(*f, *bundle)) << " |\n";
  }
  if (findings.size() > options.maxFindings)
    os << "\n…and " << findings.size() - options.maxFindings
       << " more: `aimodel audit` lists every finding.\n";
}
