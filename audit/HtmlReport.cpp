//===- HtmlReport.cpp - `aimodel audit --format html` ---------------------===//
//
// One self-contained page for a migration audit of a big tree: inline CSS,
// no script, no URL, so it opens offline as a CI artifact. Every string from
// the files goes through the printable form, then htmlEscape.
//
//===----------------------------------------------------------------------===//

#include "audit/Fixes.h"
#include "audit/PeopleReports.h"
#include "audit/RepairPlan.h"

#include "support/MarkupText.h"
#include "support/PathText.h"

#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

using namespace aimodel;
using namespace aimodel::audit;

static std::string htmlPath(llvm::StringRef bytes) {
  return support::htmlEscape(support::printablePath(bytes));
}

static std::string htmlText(llvm::StringRef bytes) {
  return support::htmlEscape(support::printableText(bytes));
}

static llvm::StringRef folderOf(llvm::StringRef path) {
  llvm::StringRef parent =
      llvm::sys::path::parent_path(path, llvm::sys::path::Style::posix);
  return parent.empty() ? llvm::StringRef(".") : parent;
}

static const char *kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #1d1d1f; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { border: 1px solid #d2d2d7; padding: .25em .6em; text-align: left;
         vertical-align: top; }
th { background: #f5f5f7; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font-family: ui-monospace, monospace; }
pre { background: #f5f5f7; padding: .6em; overflow-x: auto; }
.verdict { font-size: 1.2em; font-weight: 600; padding: .3em .7em;
           display: inline-block; border-radius: 4px; }
.verdict.passes { color: #1a7f37; background: #e6f4ea; }
.verdict.fails { color: #b42318; background: #fdecea; }
.error { color: #b42318; } .warning { color: #9a6700; } .info { color: #0b57d0; }
.bar { height: 1em; display: inline-block; vertical-align: middle; }
.bar.error { background: #d92d20; } .bar.warning { background: #dc6803; }
.bar.info { background: #1570ef; }
details { margin: .3em 0; } summary { cursor: pointer; }
/* Paths and names are long and unbroken: wrap them inside the page. */
td, code, h2, h3, p, summary { overflow-wrap: anywhere; }
table { max-width: 100%; }
)css";

void aimodel::audit::writeHtmlReport(llvm::raw_ostream &os,
                                     const AuditReport &report,
                                     const PeopleReportOptions &options) {
  PeopleSummary summary = summarise(report, options);
  const auto &n = report.countBySeverity;
  unsigned legacy = 0, compiled = 0;
  for (const BundleReport &bundle : report.bundles) {
    compiled += bundle.kind == bundle::BundleKind::CompiledAsset;
    legacy += llvm::any_of(bundle.findings, [](const Finding &f) {
      return f.rule == &rules::LegacyDebugLocation;
    });
  }
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
     << "<title>aimodel audit</title><style>" << kStyle
     << "</style></head>\n<body>\n<h1>aimodel audit</h1>\n";
  os << "<p class=\"verdict " << (summary.fails ? "fails" : "passes")
     << "\">Verdict: " << support::htmlEscape(summary.verdict) << "</p>\n";

  os << "<h2>Totals</h2>\n<table>\n<thead><tr><th>bundles</th><th>errors</th>"
     << "<th>warnings</th><th>info</th><th>legacy assets (AIM002)</th>"
     << "<th>compiled bundles</th></tr></thead>\n<tbody><tr>";
  for (unsigned value :
       {unsigned(report.bundles.size()), n[static_cast<int>(Severity::Error)],
        n[static_cast<int>(Severity::Warning)],
        n[static_cast<int>(Severity::Info)], legacy, compiled})
    os << "<td class=\"n\">" << value << "</td>";
  os << "</tr></tbody>\n</table>\n";
  for (const std::string &sentence :
       {configSentence(report.run), baselineSentence(report.run)})
    if (!sentence.empty())
      os << "<p>" << support::htmlEscape(sentence) << "</p>\n";

  // A bar per rule, scaled to the rule with the most findings.
  unsigned most = 1;
  for (const RuleCount &count : summary.rules)
    most = std::max(most, count.findings);
  os << "<h2>Findings by rule</h2>\n<table>\n<thead><tr><th>rule</th>"
     << "<th>severity</th><th>findings</th><th>bundles</th><th></th>"
     << "<th>what to do</th></tr></thead>\n<tbody>\n";
  for (const RuleCount &count : summary.rules) {
    llvm::StringRef severity = severityName(count.severity);
    unsigned width = std::max(1u, count.findings * 300 / most);
    os << "<tr><td>" << count.rule->id << " " << count.rule->name
       << "</td><td class=\"" << severity << "\">" << severity
       << "</td><td class=\"n\">" << count.findings << "</td><td class=\"n\">"
       << count.bundles << "</td><td><span class=\"bar " << severity
       << "\" style=\"width:" << width << "px\"></span></td><td>"
       << support::htmlEscape(count.rule->help) << "</td></tr>\n";
  }
  os << "</tbody>\n</table>\n";

  // A row per folder holding bundles.
  struct Folder {
    unsigned bundles = 0, errors = 0, warnings = 0, legacy = 0;
  };
  std::map<std::string, Folder> folders;
  for (const BundleReport &bundle : report.bundles) {
    Folder &folder = folders[folderOf(bundle.path).str()];
    ++folder.bundles;
    for (const Finding &f : bundle.findings) {
      folder.errors += f.severity == Severity::Error;
      folder.warnings += f.severity == Severity::Warning;
      folder.legacy += f.rule == &rules::LegacyDebugLocation;
    }
  }
  os << "<h2>By folder</h2>\n<table>\n<thead><tr><th>folder</th>"
     << "<th>bundles</th><th>errors</th><th>warnings</th>"
     << "<th>legacy assets</th></tr></thead>\n<tbody>\n";
  for (const auto &[path, folder] : folders)
    os << "<tr><td><code>" << htmlPath(path) << "</code></td><td class=\"n\">"
       << folder.bundles << "</td><td class=\"n\">" << folder.errors
       << "</td><td class=\"n\">" << folder.warnings << "</td><td class=\"n\">"
       << folder.legacy << "</td></tr>\n";
  os << "</tbody>\n</table>\n";

  // What strip repairs, and what it cannot (audit/RepairPlan.h). The
  // commands are quoted for the shell already: only the markup is escaped.
  RepairPlan plan = planRepair(report);
  os << "<h2>Repair</h2>\n";
  if (plan.empty())
    os << "<p>Nothing here for <code>aimodel strip</code> to repair.</p>\n";
  if (plan.stripped)
    os << "<pre>" << support::htmlEscape(plan.command) << "</pre>\n<p>It "
       << htmlText(strippedSentence(plan)) << ".</p>\n";
  if (plan.rehashed)
    os << "<pre>" << support::htmlEscape(plan.rehashCommand) << "</pre>\n<p>It "
       << htmlText(rehashSentence(plan)) << ".</p>\n";
  if (!plan.skipped.empty()) {
    os << "<p>Not repaired by <code>aimodel strip</code>:</p>\n<ul>\n";
    for (const RepairPlan::Skip &skip : plan.skipped)
      os << "<li>" << htmlText(skipNoun(skip)) << ": "
         << htmlText(skipRemedy(skip.why)) << "</li>\n";
    os << "</ul>\n";
  }

  // Every finding with its fix, folder by folder.
  os << "<h2>Findings</h2>\n";
  std::map<std::string, std::vector<const BundleReport *>> byFolder;
  for (const BundleReport &bundle : report.bundles)
    if (!bundle.findings.empty())
      byFolder[folderOf(bundle.path).str()].push_back(&bundle);
  if (byFolder.empty())
    os << "<p>No findings.</p>\n";
  for (const auto &[path, bundles] : byFolder) {
    unsigned count = 0;
    for (const BundleReport *bundle : bundles)
      count += bundle->findings.size();
    os << "<details><summary><code>" << htmlPath(path) << "</code>: " << count
       << (count == 1 ? " finding" : " findings") << "</summary>\n"
       << "<table>\n<thead><tr><th>severity</th><th>rule</th><th>where</th>"
       << "<th>message</th><th>fix</th></tr></thead>\n<tbody>\n";
    for (const BundleReport *bundle : bundles)
      for (const Finding &f : bundle->findings) {
        llvm::StringRef severity = severityName(f.severity);
        os << "<tr><td class=\"" << severity << "\">" << severity << "</td><td>"
           << f.rule->id << "</td><td><code>" << htmlPath(bundle->pathOf(f))
           << "</code></td><td>" << htmlText(f.message) << "</td><td>"
           << htmlText(fixFor(f, *bundle)) << "</td></tr>\n";
      }
    os << "</tbody>\n</table>\n</details>\n";
  }
  os << "</body></html>\n";
}
