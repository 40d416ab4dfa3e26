//===- FunctionPairing.cpp - Which function of one file is which ----------===//

#include "graphdiff/FunctionPairing.h"
#include "graphdiff/Hashing.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace aimodel;
using namespace aimodel::graphdiff;

namespace {
constexpr uint64_t kPairTag = 0x50414952;
constexpr uint64_t kContentTag = 0x434f4e54;
constexpr uint64_t kCalleeNameTag = 0x554e4b4e;
} // namespace

bool FunctionPairs::add(uint32_t source, uint32_t target) {
  if (of[0][source] != kNoGraph || of[1][target] != kNoGraph)
    return false;
  of[0][source] = target;
  of[1][target] = source;
  return true;
}

void graphdiff::collectSymbolUses(FileGraphs &graphs, OpLabeler &labeler) {
  llvm::SmallVector<llvm::StringRef, 4> refs;
  for (FunctionGraph &graph : graphs.graphs)
    graph.referenced = false;
  for (FunctionGraph &graph : graphs.graphs) {
    graph.symbolUsers.clear();
    graph.references.clear();
    for (uint32_t v = 0; v < graph.numVertices(); ++v) {
      if (graph[v].kind != VertexKind::Op)
        continue;
      refs.clear();
      labeler.symbolRefs(graph[v].op, refs);
      if (refs.empty())
        continue;
      graph.symbolUsers.push_back(v);
      for (llvm::StringRef ref : refs)
        if (auto it = graphs.bySymbol.find(ref); it != graphs.bySymbol.end())
          graph.references.push_back(it->second);
    }
    llvm::sort(graph.references);
    graph.references.erase(
        std::unique(graph.references.begin(), graph.references.end()),
        graph.references.end());
  }
  for (FunctionGraph &graph : graphs.graphs)
    for (uint32_t f : graph.references)
      graphs.graphs[f].referenced = true;
}

/// `path` with its last component's uniquifier dropped.
static std::string normalisedPath(llvm::StringRef path) {
  size_t split = path.rfind("::");
  if (split == llvm::StringRef::npos)
    return normaliseSymbol(path).str();
  return (path.take_front(split + 2) +
          normaliseSymbol(path.drop_front(split + 2)))
      .str();
}

void graphdiff::pairByName(const FileGraphs &source, const FileGraphs &target,
                           FunctionPairs &pairs) {
  // By exact path, where nothing in either file calls the graph: an entry
  // point is known by its name. What is called (a composite) is known by
  // where it is called: its uniquifier is new on every conversion, so an
  // equal name proves nothing. A path holding a stand-in ("mps.func#0",
  // "builtin.module#1::main") says where a graph is, not what it is: those
  // pair by content first (pairByContent), by position last.
  for (uint32_t s = 0; s < source.graphs.size(); ++s)
    if (auto it = target.byPath.find(source.graphs[s].path);
        it != target.byPath.end() && !source.graphs[s].standIn() &&
        !target.graphs[it->second].standIn() && !source.graphs[s].referenced &&
        !target.graphs[it->second].referenced)
      pairs.add(s, it->second);
  // Without uniquifiers and stand-in positions, where one function on each
  // side has the name.
  llvm::StringMap<std::pair<unsigned, uint32_t>> byBase[2];
  const FileGraphs *files[2] = {&source, &target};
  for (int side = 0; side < 2; ++side)
    for (uint32_t g = 0; g < files[side]->graphs.size(); ++g) {
      const FunctionGraph &graph = files[side]->graphs[g];
      if (graph.topLevel || pairs.paired(side, g))
        continue;
      auto &entry = byBase[side][normalisedPath(graph.shape)];
      entry = {entry.first + 1, g};
    }
  for (const auto &entry : byBase[0]) {
    auto other = byBase[1].find(entry.getKey());
    if (entry.getValue().first == 1 && other != byBase[1].end() &&
        other->getValue().first == 1)
      pairs.add(entry.getValue().second, other->getValue().second);
  }
}

std::vector<uint32_t> graphdiff::pairByContent(const FileGraphs &source,
                                               const FileGraphs &target,
                                               FunctionPairs &pairs) {
  struct Bucket {
    unsigned count[2] = {0, 0};
    uint32_t graph[2] = {kNoGraph, kNoGraph};
  };
  llvm::DenseMap<uint64_t, Bucket> buckets;
  std::vector<uint64_t> sourceKeys(source.graphs.size(), 0);
  const FileGraphs *files[2] = {&source, &target};
  for (int side = 0; side < 2; ++side)
    for (uint32_t g = 0; g < files[side]->graphs.size(); ++g) {
      const FunctionGraph &graph = files[side]->graphs[g];
      if (!graph.hasRoot() || pairs.paired(side, g))
        continue;
      uint64_t key = HashBuilder(llvm::xxh3_64bits(normalisedPath(graph.shape)))
                         .add(graph[0].bottomUp)
                         .get() >>
                     1;
      if (side == 0)
        sourceKeys[g] = key;
      Bucket &bucket = buckets[key];
      if (bucket.count[side]++ == 0)
        bucket.graph[side] = g;
    }
  std::vector<uint32_t> added;
  for (uint32_t s = 0; s < source.graphs.size(); ++s) {
    if (!sourceKeys[s])
      continue;
    const Bucket &bucket = buckets[sourceKeys[s]];
    if (bucket.count[0] == 1 && bucket.count[1] == 1 &&
        pairs.add(s, bucket.graph[1]))
      added.push_back(s);
  }
  return added;
}

std::vector<uint32_t> graphdiff::pairLeftovers(const FileGraphs &source,
                                               const FileGraphs &target,
                                               llvm::ArrayRef<uint64_t> keys[2],
                                               FunctionPairs &pairs) {
  std::vector<uint32_t> added;
  const FileGraphs *files[2] = {&source, &target};
  // Unpaired graphs grouped by `group`, each side in file order; the k-th
  // of a group pairs with the k-th. Within a group of equal content any
  // pairing compares alike; of equal shape, position is all that is left.
  auto inOrder = [&](auto group) {
    std::map<std::pair<std::string, uint64_t>, std::vector<uint32_t>>
        waiting[2];
    for (int side = 0; side < 2; ++side)
      for (uint32_t g = 0; g < files[side]->graphs.size(); ++g)
        if (!pairs.paired(side, g) && !files[side]->graphs[g].topLevel)
          if (auto key = group(side, g))
            waiting[side][*key].push_back(g);
    for (auto &[key, sources] : waiting[0]) {
      auto it = waiting[1].find(key);
      if (it == waiting[1].end())
        continue;
      for (size_t k = 0; k < std::min(sources.size(), it->second.size()); ++k)
        if (pairs.add(sources[k], it->second[k]))
          added.push_back(sources[k]);
    }
  };
  auto shapeOf = [&](int side, uint32_t g) {
    return normalisedPath(files[side]->graphs[g].shape);
  };
  inOrder([&](int side,
              uint32_t g) -> std::optional<std::pair<std::string, uint64_t>> {
    if (!keys[side][g])
      return std::nullopt;
    return std::make_pair(shapeOf(side, g), keys[side][g]);
  });
  // The same path: what nothing else decided (a composite whose callers
  // have no counterpart), as its name alone says.
  for (uint32_t s = 0; s < source.graphs.size(); ++s)
    if (auto it = target.byPath.find(source.graphs[s].path);
        it != target.byPath.end() && !source.graphs[s].standIn() &&
        !target.graphs[it->second].standIn() && pairs.add(s, it->second))
      added.push_back(s);
  inOrder([&](int side,
              uint32_t g) -> std::optional<std::pair<std::string, uint64_t>> {
    if (!files[side]->graphs[g].standIn())
      return std::nullopt;
    return std::make_pair(files[side]->graphs[g].shape, uint64_t(0));
  });
  llvm::sort(added);
  return added;
}

std::vector<uint32_t>
graphdiff::pairByCallSites(const FileGraphs &source, const FileGraphs &target,
                           uint32_t sourceGraph, uint32_t targetGraph,
                           const Matching &matching, OpLabeler &sourceLabels,
                           OpLabeler &targetLabels, FunctionPairs &pairs) {
  std::vector<uint32_t> added;
  const FunctionGraph &a = source.graphs[sourceGraph];
  const FunctionGraph &b = target.graphs[targetGraph];
  llvm::SmallVector<llvm::StringRef, 4> refsA, refsB;
  for (uint32_t v : a.symbolUsers) {
    uint32_t w = matching.forward[v];
    if (w == kNoVertex || b[w].kind != VertexKind::Op)
      continue;
    refsA.clear();
    refsB.clear();
    sourceLabels.symbolRefs(a[v].op, refsA);
    targetLabels.symbolRefs(b[w].op, refsB);
    if (refsA.size() != refsB.size())
      continue;
    for (size_t i = 0; i < refsA.size(); ++i) {
      auto fa = source.bySymbol.find(refsA[i]);
      auto fb = target.bySymbol.find(refsB[i]);
      if (fa != source.bySymbol.end() && fb != target.bySymbol.end() &&
          pairs.add(fa->second, fb->second))
        added.push_back(fa->second);
    }
  }
  return added;
}

OpLabeler::SymbolKeys graphdiff::symbolKeys(const FileGraphs &graphs,
                                            const FunctionPairs &pairs,
                                            int side,
                                            llvm::ArrayRef<uint64_t> content) {
  // A function that pairs is known by its pair; one that does not (yet)
  // by its content, so that calls of equal composites look alike whatever
  // their uniquifiers; anything else (a variable, an external callee) by
  // its exact name.
  return [&graphs, &pairs, side, content](llvm::StringRef symbol) {
    if (auto it = graphs.bySymbol.find(symbol); it != graphs.bySymbol.end()) {
      uint32_t other = pairs.of[side][it->second];
      if (other != kNoGraph)
        return HashBuilder(kPairTag).add(side == 0 ? it->second : other).get();
      if (it->second < content.size() && content[it->second])
        return content[it->second];
      return HashBuilder(kCalleeNameTag)
          .add(llvm::xxh3_64bits(normaliseSymbol(symbol)))
          .get();
    }
    return OpLabeler::nameKey(symbol);
  };
}

std::vector<uint64_t> graphdiff::contentKeys(FileGraphs &graphs,
                                             OpLabeler &labeler,
                                             const FunctionPairs &pairs,
                                             int side) {
  // A function's own body, the functions it calls by their names without
  // uniquifier: an edit deep inside a shared callee changes its key and
  // its direct callers' labels only, never the keys of every function
  // above it (which would make all of them look new).
  size_t n = graphs.graphs.size();
  std::vector<uint64_t> keys(n, 0);
  labeler.setSymbolKeys(symbolKeys(graphs, pairs, side, {}));
  for (uint32_t g = 0; g < n; ++g) {
    FunctionGraph &graph = graphs.graphs[g];
    if (!graph.hasRoot() || (!graph.referenced && !graph.references.empty()))
      continue; // not called: no key needed, fingerprinted below
    computeFingerprints(graph, labeler);
    keys[g] = HashBuilder(kContentTag)
                  .add(llvm::xxh3_64bits(normalisedPath(graph.shape)))
                  .add(graph[0].bottomUp)
                  .get();
  }
  // Now with every callee by its key: what calls changed its labels, to
  // be fingerprinted when matched.
  labeler.setSymbolKeys(symbolKeys(graphs, pairs, side, keys));
  for (uint32_t g = 0; g < n; ++g) {
    FunctionGraph &graph = graphs.graphs[g];
    if (!graph.hasRoot() || !graph.references.empty())
      graph.stale = true;
  }
  return keys;
}

EntryMatch graphdiff::findEntry(const FileGraphs &graphs,
                                llvm::StringRef entry) {
  EntryMatch out;
  // An exact path or name wins; a name without its uniquifier only when
  // one graph has it.
  for (uint32_t g = 0; g < graphs.graphs.size(); ++g) {
    const FunctionGraph &graph = graphs.graphs[g];
    if (graph.path == entry || graph.name == entry)
      out.exact.push_back(g);
  }
  if (!out.exact.empty())
    return out;
  llvm::StringRef base = normaliseSymbol(entry);
  for (uint32_t g = 0; g < graphs.graphs.size(); ++g) {
    const FunctionGraph &graph = graphs.graphs[g];
    if (!graph.synthetic && normaliseSymbol(graph.name) == base &&
        normaliseSymbol(graph.name) != graph.name)
      out.byBase.push_back(g);
  }
  return out;
}
