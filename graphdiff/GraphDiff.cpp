//===- GraphDiff.cpp - Which op of one graph became which -----------------===//
//
// Builds both files' graphs, pairs their functions, matches every pair
// (Matcher.h) and verifies each matched op: identical when its label is
// equal and every operand slot's producer is the counterpart's producer
// (or has no counterpart: the change is then that added or removed op's),
// modified otherwise, with what differs in words. Pairing new functions through
// call sites changes the labels of the ops naming them: the graphs that
// name them are fingerprinted and matched again.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/GraphDiff.h"
#include "graphdiff/FunctionPairing.h"
#include "graphdiff/GraphModel.h"
#include "graphdiff/Matcher.h"
#include "graphdiff/OpLabels.h"
#include "graphdiff/SourceInfo.h"

#include <map>

using namespace aimodel;
using namespace aimodel::graphdiff;
using bytecode::BytecodeFile;

bool DiffResult::identical() const {
  for (const GraphComparison &graph : graphs)
    if (graph.status != GraphStatus::Identical)
      return false;
  return true;
}

namespace {

/// Both files, their graphs and labelers: side 0 is the golden file.
class Differ {
public:
  Differ(const BytecodeFile &golden, const BytecodeFile &candidate,
         const DiffOptions &options)
      : files{&golden, &candidate}, options(options),
        graphs{buildGraphs(golden), buildGraphs(candidate)},
        labels{OpLabeler(golden, options.weights),
               OpLabeler(candidate, options.weights)},
        pairs(graphs[0].graphs.size(), graphs[1].graphs.size()) {}

  llvm::Expected<DiffResult> run();

private:
  llvm::Error selectEntryPoint();
  void refreshKeys();
  /// Fingerprints again the selected graphs that name a function of
  /// `changed` (per side); returns the source graphs that did.
  std::vector<uint32_t> refingerprint(const std::vector<char> changed[2]);
  GraphComparison compare(uint32_t s, uint32_t t, const Matching &matching);
  std::vector<std::string> verify(const FunctionGraph &a,
                                  const FunctionGraph &b, uint32_t va,
                                  uint32_t vb, const Matching &matching);
  Change change(ChangeKind kind, int side, const FunctionGraph &graph,
                uint32_t v);

  const BytecodeFile *files[2];
  const DiffOptions &options;
  FileGraphs graphs[2];
  OpLabeler labels[2];
  FunctionPairs pairs;
  std::vector<char> selected[2];
};

} // namespace

llvm::Error Differ::selectEntryPoint() {
  const std::string &entry = *options.entryPoint;
  uint32_t found[2] = {kNoGraph, kNoGraph};
  for (int side = 0; side < 2; ++side) {
    const std::vector<FunctionGraph> &list = graphs[side].graphs;
    // An exact name first, then one without uniquifiers.
    for (uint32_t g = 0; g < list.size() && found[side] == kNoGraph; ++g)
      if (list[g].name == entry)
        found[side] = g;
    for (uint32_t g = 0; g < list.size() && found[side] == kNoGraph; ++g)
      if (namesEntry(list[g], entry))
        found[side] = g;
    std::fill(selected[side].begin(), selected[side].end(), 0);
    if (found[side] != kNoGraph)
      selected[side][found[side]] = 1;
  }
  if (found[0] == kNoGraph && found[1] == kNoGraph)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no graph named " + entry);
  if (found[0] != kNoGraph && found[1] != kNoGraph)
    pairs.add(found[0], found[1]);
  return llvm::Error::success();
}

void Differ::refreshKeys() {
  for (int side = 0; side < 2; ++side)
    labels[side].setSymbolKeys(symbolKeys(graphs[side], pairs, side));
}

std::vector<uint32_t>
Differ::refingerprint(const std::vector<char> changed[2]) {
  std::vector<uint32_t> sourceGraphs;
  for (int side = 0; side < 2; ++side)
    for (uint32_t g = 0; g < graphs[side].graphs.size(); ++g) {
      FunctionGraph &graph = graphs[side].graphs[g];
      if (!selected[side][g])
        continue;
      bool names = false;
      for (uint32_t f : graph.references)
        names |= bool(changed[side][f]);
      if (!names)
        continue;
      computeFingerprints(graph, labels[side]);
      uint32_t source = side == 0 ? g : pairs.of[1][g];
      if (source != kNoGraph)
        sourceGraphs.push_back(source);
    }
  return sourceGraphs;
}

Change Differ::change(ChangeKind kind, int side, const FunctionGraph &graph,
                      uint32_t v) {
  Change out;
  out.kind = kind;
  uint32_t op = graph[v].op;
  const bytecode::Operation &operation = files[side]->operations()[op];
  out.op = files[side]->fullOpName(operation.name);
  (side == 0 ? out.sourceIndex : out.targetIndex) = op;
  SourceInfo info = sourceInfo(*files[side], operation.location);
  out.module = std::move(info.module);
  out.sourceLine = std::move(info.sourceLine);
  return out;
}

std::vector<std::string> Differ::verify(const FunctionGraph &a,
                                        const FunctionGraph &b, uint32_t va,
                                        uint32_t vb, const Matching &matching) {
  std::vector<std::string> details =
      labels[0].differences(a[va].op, labels[1], b[vb].op);
  auto oa = a.operands(va), ob = b.operands(vb);
  std::vector<size_t> rewired;
  for (size_t i = 0; i < std::min(oa.size(), ob.size()); ++i) {
    uint32_t pa = oa[i].producer, pb = ob[i].producer;
    // A producer without counterpart is a removed or added op: the slot's
    // change is that op's, not this one's (an op inserted into a chain
    // adds one op, it does not modify its user).
    if (matching.forward[pa] == kNoVertex || matching.backward[pb] == kNoVertex)
      continue;
    if (matching.forward[pa] != pb || oa[i].result != ob[i].result) {
      rewired.push_back(i);
    } else if (a[pa].kind != VertexKind::Op && a[pa].label != b[pb].label) {
      // Arguments carry no change of their own: their users do.
      details.push_back(
          "operand " + std::to_string(i) + ": " +
          (a[pa].kind == VertexKind::Argument ? "block argument"
                                              : "outside value") +
          " type " + labels[0].typeText(labels[0].valueType(a, pa)) + " vs " +
          labels[1].typeText(labels[1].valueType(b, pb)));
    }
  }
  if (rewired.size() == 1) {
    details.push_back("operand " + std::to_string(rewired[0]) +
                      " comes from a different value");
  } else if (!rewired.empty()) {
    std::string list;
    for (size_t i : rewired)
      list += (list.empty() ? "" : ", ") + std::to_string(i);
    details.push_back("operands " + list + " come from different values");
  }
  uint32_t parentA = a[va].parent, parentB = b[vb].parent;
  bool sameRegion = parentA == kNoVertex
                        ? parentB == kNoVertex
                        : parentB != kNoVertex &&
                              matching.forward[parentA] == parentB &&
                              a[va].region == b[vb].region;
  if (!sameRegion)
    details.push_back("moved to a different region");
  return details;
}

GraphComparison Differ::compare(uint32_t s, uint32_t t,
                                const Matching &matching) {
  const FunctionGraph &a = graphs[0].graphs[s], &b = graphs[1].graphs[t];
  GraphComparison out;
  out.source = a.name;
  out.target = b.name;
  out.sourceOps = a.numOps;
  out.targetOps = b.numOps;
  for (uint32_t v = 0; v < a.numVertices(); ++v) {
    if (a[v].kind != VertexKind::Op)
      continue;
    uint32_t w = matching.forward[v];
    if (w == kNoVertex) {
      ++out.counts.removed;
      out.changes.push_back(change(ChangeKind::Removed, 0, a, v));
      continue;
    }
    std::vector<std::string> details = verify(a, b, v, w, matching);
    if (details.empty()) {
      ++out.counts.identical;
      continue;
    }
    ++out.counts.modified;
    Change modified = change(ChangeKind::Modified, 0, a, v);
    modified.targetIndex = b[w].op;
    if (modified.module.empty() && modified.sourceLine.empty()) {
      // Only the candidate may say where the op comes from.
      Change located = change(ChangeKind::Modified, 1, b, w);
      modified.module = std::move(located.module);
      modified.sourceLine = std::move(located.sourceLine);
    }
    for (const std::string &detail : details)
      modified.detail += (modified.detail.empty() ? "" : "; ") + detail;
    out.changes.push_back(std::move(modified));
  }
  for (uint32_t w = 0; w < b.numVertices(); ++w)
    if (b[w].kind == VertexKind::Op && matching.backward[w] == kNoVertex) {
      ++out.counts.added;
      out.changes.push_back(change(ChangeKind::Added, 1, b, w));
    }
  out.status =
      out.changes.empty() ? GraphStatus::Identical : GraphStatus::Different;
  return out;
}

llvm::Expected<DiffResult> Differ::run() {
  for (int side = 0; side < 2; ++side) {
    selected[side].assign(graphs[side].graphs.size(), 1);
    collectSymbolUses(graphs[side], labels[side]);
  }
  if (options.entryPoint) {
    if (llvm::Error err = selectEntryPoint())
      return err;
  } else {
    pairByName(graphs[0], graphs[1], pairs);
  }
  refreshKeys();
  for (int side = 0; side < 2; ++side)
    for (uint32_t g = 0; g < graphs[side].graphs.size(); ++g)
      if (selected[side][g])
        computeFingerprints(graphs[side].graphs[g], labels[side]);

  // Newly paired functions change the labels of the ops naming them.
  auto paired = [&](const std::vector<uint32_t> &sources) {
    std::vector<char> changed[2] = {
        std::vector<char>(graphs[0].graphs.size(), 0),
        std::vector<char>(graphs[1].graphs.size(), 0)};
    for (uint32_t s : sources) {
      changed[0][s] = 1;
      changed[1][pairs.of[0][s]] = 1;
    }
    refreshKeys();
    return refingerprint(changed);
  };
  if (!options.entryPoint)
    paired(pairByContent(graphs[0], graphs[1], pairs));

  // In rounds: match every queued pair; the functions their call sites
  // pair, and the graphs naming those, make the next round.
  std::map<uint32_t, GraphComparison> compared;
  std::vector<uint32_t> round;
  for (uint32_t s = 0; s < graphs[0].graphs.size(); ++s)
    if (selected[0][s] && pairs.paired(0, s))
      round.push_back(s);
  while (!round.empty()) {
    std::vector<uint32_t> fresh;
    for (uint32_t s : round) {
      uint32_t t = pairs.of[0][s];
      Matching matching = matchGraphs(graphs[0].graphs[s], graphs[1].graphs[t]);
      compared[s] = compare(s, t, matching);
      if (options.entryPoint)
        continue;
      for (uint32_t f : pairByCallSites(graphs[0], graphs[1], s, t, matching,
                                        labels[0], labels[1], pairs))
        fresh.push_back(f);
    }
    round.clear();
    if (fresh.empty())
      break;
    std::vector<char> next(graphs[0].graphs.size(), 0);
    for (uint32_t f : fresh)
      next[f] = 1;
    for (uint32_t g : paired(fresh))
      next[g] |= char(compared.count(g));
    for (uint32_t s = 0; s < next.size(); ++s)
      if (next[s] && selected[0][s])
        round.push_back(s);
  }

  DiffResult result;
  for (uint32_t s = 0; s < graphs[0].graphs.size(); ++s) {
    if (!selected[0][s])
      continue;
    if (auto it = compared.find(s); it != compared.end()) {
      result.graphs.push_back(std::move(it->second));
      continue;
    }
    GraphComparison removed;
    removed.source = graphs[0].graphs[s].name;
    removed.status = GraphStatus::Removed;
    removed.sourceOps = removed.counts.removed = graphs[0].graphs[s].numOps;
    result.graphs.push_back(std::move(removed));
  }
  for (uint32_t t = 0; t < graphs[1].graphs.size(); ++t) {
    if (!selected[1][t] || pairs.paired(1, t))
      continue;
    GraphComparison added;
    added.target = graphs[1].graphs[t].name;
    added.status = GraphStatus::Added;
    added.targetOps = added.counts.added = graphs[1].graphs[t].numOps;
    result.graphs.push_back(std::move(added));
  }
  return result;
}

llvm::Expected<DiffResult> graphdiff::diffFiles(const BytecodeFile &golden,
                                                const BytecodeFile &candidate,
                                                const DiffOptions &options) {
  return Differ(golden, candidate, options).run();
}
