//===- HtmlReport.cpp - `aimodel diff --format html` ----------------------===//
//
// One self-contained page: inline CSS, no script, no external resource (no
// URL at all), so it can be attached to a CI run and opened offline. Every
// string from the inputs goes through printablePath and then htmlEscape.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/DiffReport.h"

#include "support/MarkupText.h"
#include "support/PathText.h"

using namespace aimodel;
using namespace aimodel::graphdiff;

/// Untrusted bytes as HTML text: printable UTF-8, escaped.
static std::string html(llvm::StringRef bytes) {
  return support::htmlEscape(support::printablePath(bytes));
}

static const char *kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #1d1d1f; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; }
h3 { font-size: 1em; margin: 1.2em 0 .4em; font-family: ui-monospace, monospace; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { border: 1px solid #d2d2d7; padding: .25em .6em; text-align: left;
         vertical-align: top; }
th { background: #f5f5f7; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code, td.op { font-family: ui-monospace, monospace; }
.verdict { font-size: 1.2em; font-weight: 600; padding: .3em .7em;
           display: inline-block; border-radius: 4px; }
.identical { color: #1a7f37; } .different { color: #b42318; }
.verdict.identical { background: #e6f4ea; }
.verdict.different { background: #fdecea; }
.added { color: #1a7f37; } .removed { color: #b42318; }
.modified { color: #9a6700; }
.more { color: #6e6e73; font-style: italic; }
.interface { font-weight: 600; color: #b42318; }
/* Paths and op names are long and unbroken: wrap them inside the page. */
td, code, h2, h3, p { overflow-wrap: anywhere; }
table { max-width: 100%; }
)css";

static void writeCell(llvm::raw_ostream &os, uint64_t n) {
  os << "<td class=\"n\">" << n << "</td>";
}

static void writeRow(llvm::raw_ostream &os, const Change &change) {
  llvm::StringRef kind = kindName(change.kind);
  os << "<tr><td class=\"" << kind << "\">" << kind << "</td><td class=\"op\">"
     << html(change.op) << "</td>";
  for (const std::optional<uint64_t> &index :
       {change.sourceIndex, change.targetIndex}) {
    if (index)
      writeCell(os, *index);
    else
      os << "<td></td>";
  }
  os << "<td>" << html(change.detail) << "</td><td>" << html(sourceText(change))
     << "</td></tr>\n";
}

static std::string graphTitle(const GraphComparison &graph) {
  return graphLabel(graph, " &rarr; ", support::htmlEscape);
}

static void writeChanges(llvm::raw_ostream &os, const GraphComparison &graph,
                         const ReportOptions &options, bool manyFiles) {
  os << "<h2>Changes in graph <code>" << graphTitle(graph) << "</code>";
  if (manyFiles)
    os << " in <code>" << html(graph.file) << "</code>";
  os << "</h2>\n";
  for (const std::string &line : interfaceLines(graph))
    os << "<p class=\"interface\">" << html(line) << "</p>\n";
  for (const ModuleGroup &group :
       groupByModule(graph.changes, options.maxItems)) {
    os << "<h3>"
       << (group.module.empty() ? std::string("(no module)")
                                : "module " + html(group.module))
       << "</h3>\n<table>\n<thead><tr><th>change</th><th>op</th>"
          "<th>golden op #</th><th>new op #</th><th>detail</th>"
          "<th>source</th></tr></thead>\n<tbody>\n";
    for (const ListedChanges &listed : collapseRuns(group)) {
      if (!listed.isRun()) {
        writeRow(os, *listed.changes.front());
        continue;
      }
      // A run of added or removed ops: one line, the list a click away.
      llvm::StringRef kind = kindName(listed.kind);
      os << "<tr><td class=\"" << kind << "\">" << kind
         << "</td><td colspan=\"5\"><details><summary>" << listed.changes.size()
         << " ops " << kind << "</summary>\n<table>\n<tbody>\n";
      for (const Change *change : listed.changes)
        writeRow(os, *change);
      os << "</tbody>\n</table>\n</details></td></tr>\n";
    }
    os << "</tbody>\n</table>\n";
  }
  if (graph.changes.size() > options.maxItems)
    os << "<p class=\"more\">" << graph.changes.size() - options.maxItems
       << (graph.changes.size() - options.maxItems == 1 ? " more change"
                                                        : " more changes")
       << " not listed (--max-items " << options.maxItems
       << "; the JSON report lists all).</p>\n";
}

void aimodel::graphdiff::writeHtmlReport(llvm::raw_ostream &os,
                                         const DiffResult &result,
                                         const ReportOptions &options) {
  bool identical = allIdentical(result);
  const char *verdict = identical ? "identical" : "different";
  DiffTotals totals = totalsOf(result);
  const auto &byStatus = totals.graphs;
  const Counts &total = totals.ops;

  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n"
        "<meta name=\"color-scheme\" content=\"light\">\n<title>aimodel diff: "
     << verdict << "</title>\n<style>" << kStyle
     << "</style>\n</head>\n<body>\n"
     << "<h1>aimodel diff</h1>\n<table>\n<tr><th>golden</th><td><code>"
     << html(options.golden) << "</code></td></tr>\n<tr><th>new</th><td><code>"
     << html(options.candidate) << "</code></td></tr>\n</table>\n"
     << "<p id=\"verdict\" class=\"verdict " << verdict
     << "\">Verdict: " << verdict << "</p>\n";

  os << "<h2>Summary</h2>\n<p id=\"totals\">" << summaryText(result)
     << ".</p>\n<table id=\"summary\">\n"
     << "<tr><th></th><th>identical</th><th>different</th><th>added</th>"
        "<th>removed</th></tr>\n<tr><th>graphs</th>";
  for (uint64_t n : byStatus) // in GraphStatus order
    writeCell(os, n);
  os << "</tr>\n<tr><th></th><th>identical</th><th>modified</th>"
        "<th>added</th><th>removed</th></tr>\n<tr><th>ops</th>";
  for (uint64_t n :
       {total.identical, total.modified, total.added, total.removed})
    writeCell(os, n);
  os << "</tr>\n</table>\n";

  os << "<h2>Graphs</h2>\n<table id=\"graphs\">\n<thead><tr><th>file</th>"
        "<th>golden</th><th>new</th><th>status</th><th>golden ops</th>"
        "<th>new ops</th><th>identical</th><th>modified</th><th>added</th>"
        "<th>removed</th></tr></thead>\n<tbody>\n";
  for (const GraphComparison &graph : result.graphs) {
    llvm::StringRef status = statusName(graph.status);
    os << "<tr><td><code>" << html(graph.file) << "</code></td><td><code>"
       << html(graph.source) << "</code></td><td><code>" << html(graph.target)
       << "</code></td><td class=\"" << status << "\">" << status << "</td>";
    for (uint64_t n :
         {graph.sourceOps, graph.targetOps, graph.counts.identical,
          graph.counts.modified, graph.counts.added, graph.counts.removed})
      writeCell(os, n);
    os << "</tr>\n";
  }
  os << "</tbody>\n</table>\n";

  for (const GraphComparison &graph : result.graphs)
    if (!graph.changes.empty())
      writeChanges(os, graph, options, spansFiles(result));
  os << "</body>\n</html>\n";
}
