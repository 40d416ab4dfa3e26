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
#include "graphdiff/InterfaceDiff.h"
#include "graphdiff/Matcher.h"
#include "graphdiff/OpLabels.h"
#include "graphdiff/SourceInfo.h"

#include <map>
#include <memory>
#include <optional>
#include <tuple>

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

/// A function nothing in its file calls: its inputs and outputs are what
/// an app binds to.
bool isEntry(const FunctionGraph &graph) {
  return graph.hasRoot() && !graph.topLevel && !graph.referenced;
}

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

  /// Compares every graph, or with `entry` only that graph of each side
  /// (kNoGraph: none on that side).
  DiffResult run(std::optional<std::pair<uint32_t, uint32_t>> entry);
  const FileGraphs &graphsOf(int side) const { return graphs[side]; }

private:
  void selectEntryPoint(std::pair<uint32_t, uint32_t> entry);
  /// How a graph of side `side` is named in reports: its symbol, or its
  /// full path where the symbol alone is not unique in its file.
  std::string displayName(int side, uint32_t g) const;
  void refreshKeys();
  /// Marks stale (to fingerprint again before matching) the selected
  /// graphs that name a function of `changed` (per side); returns the
  /// source graphs that do.
  std::vector<uint32_t> markStale(const std::vector<char> changed[2]);
  GraphComparison compare(uint32_t s, uint32_t t, const Matching &matching);
  std::vector<std::string> verify(const FunctionGraph &a,
                                  const FunctionGraph &b, uint32_t va,
                                  uint32_t vb, const Matching &matching);
  Change change(ChangeKind kind, int side, const FunctionGraph &graph,
                uint32_t v);
  /// An added or removed op: who reads it, whether any output depends on
  /// it (`used`: usedVertices), in words in its detail.
  void describeLoneOp(int side, const FunctionGraph &graph, uint32_t v,
                      const std::vector<char> &used, Change &out);
  /// "coreai.mul [39]": what feeds an operand slot, in words.
  std::string producerText(int side, const FunctionGraph &graph,
                           const Slot &slot) const;

  const BytecodeFile *files[2];
  const DiffOptions &options;
  FileGraphs graphs[2];
  OpLabeler labels[2];
  FunctionPairs pairs;
  /// Per side and graph: what a reference to it hashes as while unpaired.
  std::vector<uint64_t> content[2];
  std::vector<char> selected[2];
};

} // namespace

void Differ::selectEntryPoint(std::pair<uint32_t, uint32_t> entry) {
  uint32_t found[2] = {entry.first, entry.second};
  for (int side = 0; side < 2; ++side) {
    std::fill(selected[side].begin(), selected[side].end(), 0);
    if (found[side] != kNoGraph)
      selected[side][found[side]] = 1;
  }
  if (found[0] != kNoGraph && found[1] != kNoGraph)
    pairs.add(found[0], found[1]);
}

std::string Differ::displayName(int side, uint32_t g) const {
  const FunctionGraph &graph = graphs[side].graphs[g];
  auto it = graphs[side].bySymbol.find(graph.name);
  if (graph.synthetic || (it != graphs[side].bySymbol.end() && it->second == g))
    return graph.name;
  return graph.path;
}

void Differ::refreshKeys() {
  for (int side = 0; side < 2; ++side)
    labels[side].setSymbolKeys(
        symbolKeys(graphs[side], pairs, side, content[side]));
}

std::vector<uint32_t> Differ::markStale(const std::vector<char> changed[2]) {
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
      graph.stale = true;
      uint32_t source = side == 0 ? g : pairs.of[1][g];
      if (source != kNoGraph)
        sourceGraphs.push_back(source);
    }
  return sourceGraphs;
}

std::string Differ::producerText(int side, const FunctionGraph &graph,
                                 const Slot &slot) const {
  const VertexInfo &info = graph[slot.producer];
  const BytecodeFile &file = *files[side];
  auto opText = [&](uint32_t op) {
    return file.fullOpName(file.operations()[op].name) + " [" +
           std::to_string(op) + "]";
  };
  switch (info.kind) {
  case VertexKind::Op: {
    std::string text = opText(info.op);
    if (file.resultTypes(file.operations()[info.op]).size() > 1)
      text += " result " + std::to_string(slot.result);
    return text;
  }
  case VertexKind::Argument:
    return "argument " + std::to_string(info.number) + " of " + opText(info.op);
  case VertexKind::External:
    break;
  }
  return "a value from outside the graph";
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
  out.fxNode = std::move(info.fxNode);
  out.opId = info.opId;
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
    // Either of two look-alikes that compute the same from the same
    // inputs is the same value: which one the matcher chose is no change.
    bool same =
        oa[i].result == ob[i].result &&
        (matching.forward[pa] == pb ||
         (a[pa].exact && b[pb].exact && a[pa].bottomUp == b[pb].bottomUp));
    if (!same) {
      rewired.push_back(i);
    } else if (a[pa].kind != VertexKind::Op && a[pa].label != b[pb].label) {
      // Arguments carry no change of their own: their users do.
      details.push_back(
          "operand " + std::to_string(i) + ": " +
          (a[pa].kind == VertexKind::Argument ? "block argument"
                                              : "outside value") +
          " type " + labels[0].typeText(labels[0].valueType(a, pa)) +
          " \u2192 " + labels[1].typeText(labels[1].valueType(b, pb)));
    }
  }
  // Each rewired slot with its producer on both sides.
  for (size_t i : rewired) {
    std::string before = producerText(0, a, oa[i]),
                after = producerText(1, b, ob[i]);
    // Equal as printed (op indices of two files may coincide): say which
    // op of the new file the old producer is.
    uint32_t counterpart = matching.forward[oa[i].producer];
    if (before == after && counterpart != kNoVertex)
      after += " (the old producer is " +
               producerText(1, b, {counterpart, oa[i].result}) + " there)";
    details.push_back("operand " + std::to_string(i) + ": " + before +
                      " \u2192 " + after);
  }
  // Ops kept in order (OrderEdges.cpp) run after the same ops.
  auto runsAfter = [](const FunctionGraph &g, uint32_t v) {
    llvm::SmallVector<uint32_t, 2> out;
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g.graph)))
      if (g.graph[e].kind == EdgeKind::Order)
        out.push_back(uint32_t(boost::source(e, g.graph)));
    return out;
  };
  llvm::SmallVector<uint32_t, 2> beforeA = runsAfter(a, va),
                                 beforeB = runsAfter(b, vb);
  llvm::SmallVector<uint32_t, 2> mapped;
  for (uint32_t p : beforeA)
    mapped.push_back(matching.forward[p]);
  llvm::sort(mapped);
  llvm::SmallVector<uint32_t, 2> sortedB(beforeB);
  llvm::sort(sortedB);
  if (mapped != sortedB) {
    auto list = [&](int side, const FunctionGraph &g,
                    llvm::ArrayRef<uint32_t> ops) {
      std::string text;
      for (uint32_t p : ops)
        text += (text.empty() ? "" : ", ") + producerText(side, g, {p, 0});
      return text.empty() ? std::string("(first)") : "after " + text;
    };
    details.push_back("order: " + list(0, a, beforeA) + " \u2192 " +
                      list(1, b, beforeB));
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

void Differ::describeLoneOp(int side, const FunctionGraph &graph, uint32_t v,
                            const std::vector<char> &used, Change &out) {
  const BytecodeFile &file = *files[side];
  for (auto e : boost::make_iterator_range(boost::out_edges(v, graph.graph))) {
    if (graph.graph[e].kind != EdgeKind::Operand)
      continue;
    uint32_t user = graph[uint32_t(boost::target(e, graph.graph))].op;
    out.readers.push_back({file.fullOpName(file.operations()[user].name), user,
                           graph.graph[e].slot});
  }
  llvm::sort(out.readers, [](const Reader &x, const Reader &y) {
    return std::tie(x.index, x.operand) < std::tie(y.index, y.operand);
  });
  out.unused = !used[v];
  // What a reviewer needs to tell a dead op from one in the data path.
  const char *verb = side == 0 ? "was read by " : "read by ";
  std::string readers;
  constexpr size_t kListed = 3;
  for (size_t i = 0; i < out.readers.size() && i < kListed; ++i)
    readers += (i ? ", " : "") + out.readers[i].op + " [" +
               std::to_string(out.readers[i].index) + "] operand " +
               std::to_string(out.readers[i].operand);
  if (out.readers.size() > kListed)
    readers += " and " + std::to_string(out.readers.size() - kListed) + " more";
  if (out.readers.empty())
    out.detail =
        side == 0 ? "unused: nothing read it" : "unused: nothing reads it";
  else if (out.unused)
    out.detail = std::string("unused: ") + verb + readers +
                 ", on which no output depends";
  else
    out.detail = verb + readers;
}

/// Says in the change's words that its pairing was a choice among
/// look-alikes, for every report (JSON has `ambiguous` besides).
static void noteAmbiguous(Change &change) {
  if (change.ambiguous)
    change.detail += std::string(change.detail.empty() ? "" : " ") +
                     "(paired among look-alikes: ambiguous)";
}

GraphComparison Differ::compare(uint32_t s, uint32_t t,
                                const Matching &matching) {
  const FunctionGraph &a = graphs[0].graphs[s], &b = graphs[1].graphs[t];
  GraphComparison out;
  out.source = displayName(0, s);
  out.target = displayName(1, t);
  out.sourceOps = a.numOps;
  out.targetOps = b.numOps;
  // A change rests on a choice among look-alikes when its op, or what it
  // reads (on either side), was one.
  auto restsOnChoice = [&](int side, const FunctionGraph &graph, uint32_t v) {
    const std::vector<uint32_t> &across =
        side == 0 ? matching.forward : matching.backward;
    auto chosen = [&](uint32_t u) {
      return matching.ambiguous[side][u] ||
             (across[u] != kNoVertex &&
              matching.ambiguous[1 - side][across[u]]);
    };
    if (chosen(v))
      return true;
    for (const Slot &slot : graph.operands(v))
      if (chosen(slot.producer))
        return true;
    return false;
  };
  std::vector<char> used[2];
  auto usedOf = [&](int side) -> const std::vector<char> & {
    if (used[side].empty())
      used[side] = usedVertices(side == 0 ? a : b, *files[side]);
    return used[side];
  };
  for (uint32_t v = 0; v < a.numVertices(); ++v) {
    if (a[v].kind != VertexKind::Op)
      continue;
    uint32_t w = matching.forward[v];
    if (w == kNoVertex) {
      ++out.counts.removed;
      Change removed = change(ChangeKind::Removed, 0, a, v);
      describeLoneOp(0, a, v, usedOf(0), removed);
      removed.ambiguous = restsOnChoice(0, a, v);
      noteAmbiguous(removed);
      out.changes.push_back(std::move(removed));
      continue;
    }
    if (labels[0].hidesWeight(a[v].op) && labels[1].hidesWeight(b[w].op))
      ++out.weightsByShape;
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
      modified.fxNode = std::move(located.fxNode);
      modified.opId = located.opId;
    }
    for (const std::string &detail : details)
      modified.detail += (modified.detail.empty() ? "" : "; ") + detail;
    modified.ambiguous = restsOnChoice(0, a, v) || restsOnChoice(1, b, w);
    noteAmbiguous(modified);
    out.changes.push_back(std::move(modified));
  }
  for (uint32_t w = 0; w < b.numVertices(); ++w)
    if (b[w].kind == VertexKind::Op && matching.backward[w] == kNoVertex) {
      ++out.counts.added;
      Change added = change(ChangeKind::Added, 1, b, w);
      describeLoneOp(1, b, w, usedOf(1), added);
      added.ambiguous = restsOnChoice(1, b, w);
      noteAmbiguous(added);
      out.changes.push_back(std::move(added));
    }
  if (isEntry(a) || isEntry(b)) {
    out.interface = compareInterfaces(labels[0], a.rootOp, labels[1], b.rootOp);
    if (!out.interface->changes.empty())
      out.status = GraphStatus::Different;
  }
  if (!out.changes.empty())
    out.status = GraphStatus::Different;
  return out;
}

DiffResult Differ::run(std::optional<std::pair<uint32_t, uint32_t>> entry) {
  for (int side = 0; side < 2; ++side) {
    selected[side].assign(graphs[side].graphs.size(), 1);
    collectSymbolUses(graphs[side], labels[side]);
    addOrderEdges(graphs[side], *files[side], labels[side]);
  }
  if (entry)
    selectEntryPoint(*entry);
  else
    pairByName(graphs[0], graphs[1], pairs);
  for (int side = 0; side < 2; ++side)
    content[side] = contentKeys(graphs[side], labels[side], pairs, side);
  refreshKeys();

  // Newly paired functions change the labels of the ops naming them.
  auto paired = [&](const std::vector<uint32_t> &sources) {
    if (sources.empty()) // nothing names a new pair: no label changed
      return std::vector<uint32_t>();
    std::vector<char> changed[2] = {
        std::vector<char>(graphs[0].graphs.size(), 0),
        std::vector<char>(graphs[1].graphs.size(), 0)};
    for (uint32_t s : sources) {
      changed[0][s] = 1;
      changed[1][pairs.of[0][s]] = 1;
    }
    refreshKeys();
    return markStale(changed);
  };
  if (!entry)
    paired(pairByContent(graphs[0], graphs[1], pairs));

  // In rounds: match every queued pair; the functions their call sites
  // pair, and the graphs naming those, make the next round. When call
  // sites pair nothing more, what is left pairs by content and name.
  std::map<uint32_t, GraphComparison> compared;
  std::vector<uint32_t> round;
  for (uint32_t s = 0; s < graphs[0].graphs.size(); ++s)
    if (selected[0][s] && pairs.paired(0, s))
      round.push_back(s);
  while (!round.empty()) {
    std::vector<uint32_t> fresh;
    for (uint32_t s : round) {
      uint32_t t = pairs.of[0][s];
      for (auto [side, g] : {std::pair<int, uint32_t>{0, s}, {1, t}})
        if (graphs[side].graphs[g].stale)
          computeFingerprints(graphs[side].graphs[g], labels[side]);
      Matching matching = matchGraphs(graphs[0].graphs[s], graphs[1].graphs[t]);
      compared[s] = compare(s, t, matching);
      if (entry)
        continue;
      for (uint32_t f : pairByCallSites(graphs[0], graphs[1], s, t, matching,
                                        labels[0], labels[1], pairs))
        fresh.push_back(f);
    }
    round.clear();
    if (fresh.empty() && !entry) {
      llvm::ArrayRef<uint64_t> keys[2] = {content[0], content[1]};
      fresh = pairLeftovers(graphs[0], graphs[1], keys, pairs);
    }
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
      // Containers alone, unchanged: nothing a reader calls a graph.
      if (it->second.status == GraphStatus::Identical &&
          graphs[0].graphs[s].onlyContainers &&
          graphs[1].graphs[pairs.of[0][s]].onlyContainers)
        continue;
      result.graphs.push_back(std::move(it->second));
      continue;
    }
    GraphComparison removed;
    removed.source = displayName(0, s);
    removed.status = GraphStatus::Removed;
    removed.sourceOps = removed.counts.removed = graphs[0].graphs[s].numOps;
    if (isEntry(graphs[0].graphs[s]))
      removed.interface = InterfaceComparison{
          interfaceText(*files[0], graphs[0].graphs[s].rootOp), {}, {}};
    result.graphs.push_back(std::move(removed));
  }
  for (uint32_t t = 0; t < graphs[1].graphs.size(); ++t) {
    if (!selected[1][t] || pairs.paired(1, t))
      continue;
    GraphComparison added;
    added.target = displayName(1, t);
    added.status = GraphStatus::Added;
    added.targetOps = added.counts.added = graphs[1].graphs[t].numOps;
    if (isEntry(graphs[1].graphs[t]))
      added.interface = InterfaceComparison{
          {}, interfaceText(*files[1], graphs[1].graphs[t].rootOp), {}};
    result.graphs.push_back(std::move(added));
  }
  return result;
}

namespace {
/// Where --entry-point NAME is, over every file of one side.
struct EntryHit {
  size_t file;
  uint32_t graph;
};

/// The graphs of a file with no counterpart: all added or removed.
void listOneSided(const BytecodeFile &file, bool golden,
                  std::optional<uint32_t> only, const std::string &fileName,
                  DiffResult &out) {
  FileGraphs graphs = buildGraphs(file);
  // Which graphs are called (entry points have an interface).
  OpLabeler labeler(file, WeightsMode::Ignore);
  collectSymbolUses(graphs, labeler);
  for (uint32_t g = 0; g < graphs.graphs.size(); ++g) {
    if (only && *only != g)
      continue;
    const FunctionGraph &graph = graphs.graphs[g];
    // A file on one side only is listed by its graphs; by its containers
    // only when it has nothing else (an empty module still is a file).
    if (!only && graph.onlyContainers && graphs.graphs.size() > 1)
      continue;
    GraphComparison one;
    one.file = fileName;
    auto it = graphs.bySymbol.find(graph.name);
    std::string name =
        graph.synthetic || (it != graphs.bySymbol.end() && it->second == g)
            ? graph.name
            : graph.path;
    if (golden) {
      one.source = name;
      one.status = GraphStatus::Removed;
      one.sourceOps = one.counts.removed = graph.numOps;
    } else {
      one.target = name;
      one.status = GraphStatus::Added;
      one.targetOps = one.counts.added = graph.numOps;
    }
    if (isEntry(graph)) {
      one.interface.emplace();
      (golden ? one.interface->golden : one.interface->candidate) =
          interfaceText(file, graph.rootOp);
    }
    out.graphs.push_back(std::move(one));
  }
}
} // namespace

std::vector<ModelFile> graphdiff::pairModelFiles(const ModelFiles &golden,
                                                 const ModelFiles &candidate) {
  std::vector<ModelFile> files;
  if (golden.files.empty() || candidate.files.empty())
    return files;
  files.push_back({golden.names[0], golden.files[0], candidate.files[0]});
  std::map<std::string, std::pair<const BytecodeFile *, const BytecodeFile *>>
      delegates;
  for (size_t i = 1; i < golden.files.size(); ++i)
    delegates[golden.names[i]].first = golden.files[i];
  for (size_t i = 1; i < candidate.files.size(); ++i)
    delegates[candidate.names[i]].second = candidate.files[i];
  for (const auto &[name, pair] : delegates)
    files.push_back({name, pair.first, pair.second});
  return files;
}

llvm::Expected<DiffResult>
graphdiff::diffModels(llvm::ArrayRef<ModelFile> files,
                      const DiffOptions &options) {
  DiffResult out;
  // Paired files get a Differ (which builds their graphs); lone files are
  // listed whole.
  std::vector<std::unique_ptr<Differ>> differs(files.size());
  std::vector<std::optional<FileGraphs>> alone(files.size());
  for (size_t f = 0; f < files.size(); ++f) {
    if (files[f].golden && files[f].candidate)
      differs[f] = std::make_unique<Differ>(*files[f].golden,
                                            *files[f].candidate, options);
    else if (options.entryPoint)
      alone[f] =
          buildGraphs(files[f].golden ? *files[f].golden : *files[f].candidate);
  }
  auto append = [&](DiffResult result, const std::string &name) {
    for (GraphComparison &graph : result.graphs) {
      graph.file = name;
      out.graphs.push_back(std::move(graph));
    }
  };
  if (!options.entryPoint) {
    for (size_t f = 0; f < files.size(); ++f) {
      if (differs[f])
        append(differs[f]->run(std::nullopt), files[f].name);
      else
        listOneSided(files[f].golden ? *files[f].golden : *files[f].candidate,
                     files[f].golden != nullptr, std::nullopt, files[f].name,
                     out);
    }
    return out;
  }

  const std::string &entry = *options.entryPoint;
  // "FILE:NAME" names a graph of one file of a bundle (as the list of
  // candidates below spells it), where NAME alone is in several files.
  std::optional<size_t> inFile;
  std::string name = entry;
  if (files.size() > 1)
    for (size_t f = 0; f < files.size(); ++f)
      if (llvm::StringRef(entry).starts_with(files[f].name + ":")) {
        inFile = f;
        name = entry.substr(files[f].name.size() + 1);
        break;
      }
  std::optional<EntryHit> hit[2];
  for (int side = 0; side < 2; ++side) {
    std::vector<EntryHit> exact, byBase;
    for (size_t f = 0; f < files.size(); ++f) {
      const BytecodeFile *file =
          side == 0 ? files[f].golden : files[f].candidate;
      if (!file || (inFile && *inFile != f))
        continue;
      const FileGraphs &graphs =
          differs[f] ? differs[f]->graphsOf(side) : *alone[f];
      EntryMatch match = findEntry(graphs, name);
      for (uint32_t g : match.exact)
        exact.push_back({f, g});
      for (uint32_t g : match.byBase)
        byBase.push_back({f, g});
    }
    std::vector<EntryHit> &hits = exact.empty() ? byBase : exact;
    auto nameOf = [&](const EntryHit &h) {
      const FileGraphs &graphs =
          differs[h.file] ? differs[h.file]->graphsOf(side) : *alone[h.file];
      return graphs.graphs[h.graph].path;
    };
    if (hits.size() > 1) {
      std::string list;
      for (const EntryHit &h : hits)
        list += (list.empty() ? "" : ", ") +
                (files.size() > 1 ? files[h.file].name + ":" : "") + nameOf(h);
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--entry-point " + entry + " matches " + std::to_string(hits.size()) +
              " graphs of the " + (side == 0 ? "golden" : "new") +
              " model: " + list + "; name one of them exactly, as listed");
    }
    if (!hits.empty()) {
      hit[side] = hits.front();
      if (exact.empty())
        out.notes.push_back("--entry-point " + entry + ": no graph of the " +
                            (side == 0 ? "golden" : "new") +
                            " model has this name; using " + nameOf(hits[0]) +
                            ", the one graph with it but for its uniquifier");
    }
  }
  if (!hit[0] && !hit[1]) {
    // The names there are, so a typo is one look away (a few at most).
    constexpr size_t kMostNames = 12;
    std::string names[2];
    for (int side = 0; side < 2; ++side) {
      size_t listed = 0, total = 0;
      for (size_t f = 0; f < files.size(); ++f) {
        if (!(side == 0 ? files[f].golden : files[f].candidate))
          continue;
        const FileGraphs &graphs =
            differs[f] ? differs[f]->graphsOf(side) : *alone[f];
        for (const FunctionGraph &graph : graphs.graphs) {
          if (graph.synthetic)
            continue;
          if (listed++ < kMostNames)
            names[side] += (names[side].empty() ? "" : ", ") +
                           (files.size() > 1 ? files[f].name + ":" : "") +
                           graph.path;
          ++total;
        }
      }
      if (total > kMostNames)
        names[side] += " and " + std::to_string(total - kMostNames) + " more";
      if (names[side].empty())
        names[side] = "none";
    }
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no graph named " + entry + " (golden has " +
                                       names[0] + "; new has " + names[1] +
                                       ")");
  }
  size_t fileA = hit[0] ? hit[0]->file : hit[1]->file;
  size_t fileB = hit[1] ? hit[1]->file : hit[0]->file;
  if (hit[0] && hit[1]) {
    if (fileA == fileB && differs[fileA]) {
      append(differs[fileA]->run(std::make_pair(hit[0]->graph, hit[1]->graph)),
             files[fileA].name);
    } else {
      // The graph moved to another file: compare the two files' graphs.
      Differ across(*files[fileA].golden, *files[fileB].candidate, options);
      append(across.run(std::make_pair(hit[0]->graph, hit[1]->graph)),
             files[fileA].name);
    }
  } else if (hit[0]) {
    listOneSided(*files[fileA].golden, true, hit[0]->graph, files[fileA].name,
                 out);
  } else {
    listOneSided(*files[fileB].candidate, false, hit[1]->graph,
                 files[fileB].name, out);
  }
  return out;
}

llvm::Expected<DiffResult> graphdiff::diffFiles(const BytecodeFile &golden,
                                                const BytecodeFile &candidate,
                                                const DiffOptions &options) {
  ModelFile file{"", &golden, &candidate};
  return diffModels(file, options);
}
