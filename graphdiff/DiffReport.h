//===- DiffReport.h - `aimodel diff` reports --------------------*- C++ -*-===//
//
// Formats a graphdiff::DiffResult. Every string that comes from a file (op
// names, symbols, details, module paths, source lines, input paths) is
// untrusted: text escapes what is not printable UTF-8 (support/PathText.h),
// JSON writes valid UTF-8 as is and escapes the rest the same way, HTML
// escapes markup on top of that. Nothing here reads the inputs.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_DIFFREPORT_H
#define AIMODEL_GRAPHDIFF_DIFFREPORT_H

#include "graphdiff/GraphDiff.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aimodel::graphdiff {

inline constexpr uint64_t kDefaultMaxItems = 100;

struct ReportOptions {
  /// Text and HTML list at most this many changes per graph: the first ones
  /// in graph order (source order, then target order), then grouped by
  /// module; a line says how many more there are. JSON lists every change.
  uint64_t maxItems = kDefaultMaxItems;
  /// Text only: ANSI colours (the caller decides; see Terminal.h).
  bool colour = false;
  /// The inputs as named on the command line (raw bytes), for headers.
  std::string golden, candidate;
};

/// True when every compared graph is identical (no graph at all counts as
/// identical): exit 0. Same as DiffResult::identical(), without linking the
/// matcher.
bool allIdentical(const DiffResult &result);

/// The graphs live in more than one file (a compiled bundle's delegates):
/// reports name each graph's file.
bool spansFiles(const DiffResult &result);

llvm::StringRef statusName(GraphStatus status); ///< "identical", "added", ...

/// Graphs by status (indexed by GraphStatus) and ops by kind, over all graphs.
struct DiffTotals {
  uint64_t graphs[4] = {0, 0, 0, 0};
  Counts ops;
  uint64_t weightsByShape = 0;
};
DiffTotals totalsOf(const DiffResult &result);

/// "2 graphs compared: 1 identical, 1 different, 0 added, 0 removed; ops: 2
/// modified, 1 added, 1 removed": every report's summary sentence.
std::string summaryText(const DiffResult &result);

/// An entry graph's interface changes, one line each, first in every
/// report ("interface changed: input 0 `ids`: tensor<1x512xi32> →
/// tensor<1x1024xi32>").
std::vector<std::string> interfaceLines(const GraphComparison &graph);

/// A graph's name ("main"), or both with `arrow` between when the symbols
/// differ ("rms_norm_k3 -> rms_norm_p0"); each name printable, then
/// through `escape` (the report's markup).
std::string graphLabel(const GraphComparison &graph, llvm::StringRef arrow,
                       llvm::function_ref<std::string(llvm::StringRef)> escape);
llvm::StringRef kindName(ChangeKind kind); ///< "modified", ...

/// The changes listed for one module, in graph order.
struct ModuleGroup {
  std::string module; ///< empty: no module known (no debug locations)
  std::vector<const Change *> changes;
};

/// The first `limit` of `changes` (graph order), grouped by module; groups in
/// the order of their first change, except that the group without a module
/// comes last.
std::vector<ModuleGroup> groupByModule(llvm::ArrayRef<Change> changes,
                                       uint64_t limit);

/// A module group's changes as listed: one change, or a run of added or
/// removed ones in a row (kMinRun or more), shown as one line.
inline constexpr size_t kMinRun = 4;
struct ListedChanges {
  ChangeKind kind;
  std::vector<const Change *> changes; ///< one, or the run's
  bool isRun() const { return changes.size() > 1; }
};
std::vector<ListedChanges> collapseRuns(const ModuleGroup &group);

/// "model.py:120, FX view, op id 22": where a change comes from, as debug
/// locations say (empty without them).
std::string sourceText(const Change &change);

/// The "aimodel-diff/1" JSON document (every change of every graph),
/// pretty-printed, ending in a newline.
std::string jsonReport(const DiffResult &result);

/// For people: a header line with the verdict, one block per graph (changes
/// grouped by module, capped by maxItems), a summary line.
void writeTextReport(llvm::raw_ostream &os, const DiffResult &result,
                     const ReportOptions &options);

/// One self-contained HTML page: inline CSS, no scripts, no network. A
/// summary (verdict, totals), a table of graphs, then each graph's changes
/// grouped by module (capped by maxItems).
void writeHtmlReport(llvm::raw_ostream &os, const DiffResult &result,
                     const ReportOptions &options);

/// Markdown for a GitHub job summary or a pull-request comment: the verdict
/// first, a table of graphs (file, status, op counts), then the first
/// maxItems changes over all graphs with what changed. Every string from
/// the inputs is escaped (support/MarkupText.h): it renders as text.
void writeMarkdownReport(llvm::raw_ostream &os, const DiffResult &result,
                         const ReportOptions &options);

/// Writes `content` to `path` atomically: a new temporary file beside it
/// (same folder, created O_EXCL|O_NOFOLLOW), flushed, then renamed over
/// `path`, so a reader sees the old file or the whole new one. The folder is
/// followed as named; `path` itself is never written through: when it is a
/// symlink (or a folder, or anything but a regular file) nothing is written
/// and the error says so.
llvm::Error writeFileAtomically(const std::string &path,
                                llvm::StringRef content);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_DIFFREPORT_H
