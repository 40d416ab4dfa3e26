//===- MarkdownReport.cpp - `aimodel diff --format markdown` --------------===//
//
// For a GitHub job summary or a pull-request comment: the verdict first,
// a table per graph, then the first changes. Every string from the inputs
// is escaped, so a crafted op or file name stays text.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/DiffReport.h"

#include "support/MarkupText.h"
#include "support/PathText.h"

using namespace aimodel;
using namespace aimodel::graphdiff;

using support::MarkdownPlace;

/// Untrusted bytes as Markdown text, in a table cell unless said.
static std::string md(llvm::StringRef bytes,
                      MarkdownPlace place = MarkdownPlace::TableCell) {
  return support::markdownEscape(support::printablePath(bytes), place);
}

static std::string graphName(const GraphComparison &graph,
                             MarkdownPlace place = MarkdownPlace::TableCell) {
  return graphLabel(graph, " → ", [place](llvm::StringRef text) {
    return support::markdownEscape(text, place);
  });
}

void aimodel::graphdiff::writeMarkdownReport(llvm::raw_ostream &os,
                                             const DiffResult &result,
                                             const ReportOptions &options) {
  bool identical = allIdentical(result);
  bool manyFiles = spansFiles(result);
  os << "### aimodel diff: " << (identical ? "✅ identical" : "❌ different")
     << "\n\n";
  os << md(options.golden, MarkdownPlace::LineStart) << " → "
     << md(options.candidate, MarkdownPlace::Text) << "\n\n";
  os << "**" << summaryText(result) << ".**\n\n";
  if (result.graphs.empty())
    return;
  // What an app binds to comes before any op.
  bool interfaces = false;
  for (const GraphComparison &graph : result.graphs)
    for (const std::string &line : interfaceLines(graph)) {
      os << "- **" << graphName(graph, MarkdownPlace::Text)
         << "**: " << md(line, MarkdownPlace::Text) << "\n";
      interfaces = true;
    }
  if (interfaces)
    os << "\n";

  os << "| graph |" << (manyFiles ? " file |" : "")
     << " status | ops | modified | added | removed |\n";
  os << "|---|" << (manyFiles ? "---|" : "") << "---|---:|---:|---:|---:|\n";
  for (const GraphComparison &graph : result.graphs) {
    os << "| " << graphName(graph) << " |";
    if (manyFiles)
      os << " " << md(graph.file) << " |";
    os << " " << statusName(graph.status) << " | " << graph.sourceOps << " → "
       << graph.targetOps << " | " << graph.counts.modified << " | "
       << graph.counts.added << " | " << graph.counts.removed << " |\n";
  }
  if (identical)
    return;

  // The first changes over all graphs, in graph order.
  uint64_t changes = 0;
  for (const GraphComparison &graph : result.graphs)
    changes += graph.changes.size();
  os << "\n#### Changes\n\n";
  os << "| graph | change | op | golden → new | what | module | source |\n";
  os << "|---|---|---|---|---|---|---|\n";
  uint64_t listed = 0;
  for (const GraphComparison &graph : result.graphs)
    for (const Change &change : graph.changes) {
      if (listed++ >= options.maxItems)
        break;
      auto index = [](const std::optional<uint64_t> &i) {
        return i ? std::to_string(*i) : std::string("–");
      };
      os << "| " << graphName(graph) << " | " << kindName(change.kind) << " | "
         << md(change.op) << " | " << index(change.sourceIndex) << " → "
         << index(change.targetIndex) << " | " << md(change.detail) << " | "
         << md(change.module) << " | " << md(sourceText(change)) << " |\n";
    }
  if (changes > options.maxItems)
    os << "\n…and " << changes - options.maxItems
       << " more (`--max-items`; `--format json` lists every change).\n";
}
