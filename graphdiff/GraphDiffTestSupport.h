//===- GraphDiffTestSupport.h - Inputs for the graph matcher tests -*- C++ -*-//
//
// Programs as MLIR generic text (unregistered `coreai` ops), turned into
// stock bytecode by mlir-opt-22 and decoded by the project's reader.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_GRAPHDIFFTESTSUPPORT_H
#define AIMODEL_GRAPHDIFF_GRAPHDIFFTESTSUPPORT_H

#include "graphdiff/GraphDiff.h"
#include "testing/BytecodeTestSupport.h"

#include <gtest/gtest.h>

#include <string>

namespace aimodel::graphdiff::testing {

using bytecode::BytecodeFile;

/// `text` with every `{key}` replaced by its value.
inline std::string
fill(std::string text,
     std::initializer_list<std::pair<std::string, std::string>> values) {
  for (const auto &[key, value] : values) {
    std::string pattern = "{" + key + "}";
    for (size_t at = text.find(pattern); at != std::string::npos;
         at = text.find(pattern, at + value.size()))
      text.replace(at, pattern.size(), value);
  }
  return text;
}

/// `unit` written `times` times (hex blob bytes, element lists).
inline std::string repeat(const std::string &unit, int times) {
  std::string out;
  for (int i = 0; i < times; ++i)
    out += unit;
  return out;
}

class GraphDiffTest : public bytecode::testing::MlirTextTest {
protected:
  DiffResult diff(const std::string &golden, const std::string &candidate,
                  DiffOptions options = {}) {
    auto a = load(golden), b = load(candidate);
    if (!a || !b)
      return {};
    llvm::Expected<DiffResult> result = diffFiles(*a, *b, options);
    if (!result) {
      ADD_FAILURE() << llvm::toString(result.takeError());
      return {};
    }
    return std::move(*result);
  }
};

/// The comparison of the graph named `source` in the golden file.
inline const GraphComparison *graphNamed(const DiffResult &result,
                                         llvm::StringRef source) {
  for (const GraphComparison &graph : result.graphs)
    if (graph.source == source)
      return &graph;
  return nullptr;
}

/// Counts over every graph.
inline Counts totals(const DiffResult &result) {
  Counts sum;
  for (const GraphComparison &graph : result.graphs) {
    sum.identical += graph.counts.identical;
    sum.modified += graph.counts.modified;
    sum.added += graph.counts.added;
    sum.removed += graph.counts.removed;
  }
  return sum;
}

/// Every change, one per line, for failure messages.
inline std::string describe(const DiffResult &result) {
  std::string text;
  for (const GraphComparison &graph : result.graphs) {
    text += "graph " + graph.source + " / " + graph.target + ": " +
            std::to_string(graph.counts.identical) + " identical, " +
            std::to_string(graph.counts.modified) + " modified, " +
            std::to_string(graph.counts.added) + " added, " +
            std::to_string(graph.counts.removed) + " removed\n";
    for (const Change &change : graph.changes) {
      const char *kind[] = {"modified", "added", "removed"};
      text += std::string("  ") + kind[int(change.kind)] + " " + change.op +
              " " +
              (change.sourceIndex ? std::to_string(*change.sourceIndex)
                                  : std::string("-")) +
              "/" +
              (change.targetIndex ? std::to_string(*change.targetIndex)
                                  : std::string("-")) +
              " " + change.detail + " [" + change.module + " " +
              change.sourceLine + "]\n";
    }
  }
  return text;
}

} // namespace aimodel::graphdiff::testing

#endif // AIMODEL_GRAPHDIFF_GRAPHDIFFTESTSUPPORT_H
