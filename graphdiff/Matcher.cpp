//===- Matcher.cpp - Which vertex of one graph is which of another --------===//

#include "graphdiff/Matcher.h"
#include "graphdiff/Hashing.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::graphdiff;

namespace {

/// DenseMap reserves ~0 and ~0 - 1 as keys: hashes lose their top bit.
uint64_t bucketKey(uint64_t hash) { return hash >> 1; }

enum class Key { Both, BottomUp, TopDown, LocalBoth, LocalUp, LocalDown };

/// A neighbour of a vertex, grouped by where it is attached and what it is.
struct Neighbour {
  uint64_t key = 0;
  uint32_t vertex = kNoVertex;
  bool operator<(const Neighbour &other) const {
    return key != other.key ? key < other.key : vertex < other.vertex;
  }
};

/// Users (by operand slot) and region children of target vertices, indexed
/// on first use so that each is scanned once.
class NeighbourIndex {
public:
  explicit NeighbourIndex(size_t n) : indexed(n, 0) {}
  /// Next unmatched neighbour of `v` under `key`, or kNoVertex.
  template <typename KeyFn>
  uint32_t next(const FunctionGraph &g, uint32_t v, uint64_t key,
                const std::vector<uint32_t> &matched, KeyFn &&keyOf) {
    if (!indexed[v]) {
      indexed[v] = 1;
      const Graph &graph = g.graph;
      for (auto e : boost::make_iterator_range(boost::out_edges(v, graph)))
        if (graph[e].kind == EdgeKind::Operand)
          lists[bucketKey(keyOf(v, graph[e], graph[boost::target(e, graph)]))]
              .first.push_back(uint32_t(boost::target(e, graph)));
      for (auto e : boost::make_iterator_range(boost::in_edges(v, graph)))
        if (graph[e].kind == EdgeKind::Nested)
          lists[bucketKey(keyOf(v, graph[e], graph[boost::source(e, graph)]))]
              .first.push_back(uint32_t(boost::source(e, graph)));
    }
    auto it = lists.find(bucketKey(key));
    if (it == lists.end())
      return kNoVertex;
    auto &[list, cursor] = it->second;
    while (cursor < list.size() && matched[list[cursor]] != kNoVertex)
      ++cursor;
    return cursor < list.size() ? list[cursor] : kNoVertex;
  }
  /// After next(): the unmatched entries just after the one it returned
  /// (a few at most), the other candidates it chose among.
  template <typename Fn>
  void forEachRival(uint64_t key, const std::vector<uint32_t> &matched,
                    Fn &&fn) const {
    auto it = lists.find(bucketKey(key));
    if (it == lists.end())
      return;
    const auto &[list, cursor] = it->second;
    for (size_t k = cursor + 1; k < list.size() && k <= cursor + kRivals; ++k)
      if (matched[list[k]] == kNoVertex)
        fn(list[k]);
  }
  static constexpr size_t kRivals = 8;

private:
  std::vector<char> indexed;
  llvm::DenseMap<uint64_t, std::pair<std::vector<uint32_t>, size_t>> lists;
};

/// What must agree for two vertices to pair while propagating.
enum class Mode {
  BottomUp, ///< the same computation from the same inputs (bottom-up hash)
  TopDown,  ///< the same consumers, recursively (top-down hash)
  Label,    ///< the same label
  Loose,    ///< the same op name (arguments: position; outside values: any)
};

class Matcher {
public:
  Matcher(const FunctionGraph &source, const FunctionGraph &target)
      : g{&source, &target} {
    m[0].assign(source.numVertices(), kNoVertex);
    m[1].assign(target.numVertices(), kNoVertex);
    ambiguous[0].assign(source.numVertices(), 0);
    ambiguous[1].assign(target.numVertices(), 0);
    for (int side = 0; side < 2; ++side) {
      const FunctionGraph &graph = *g[side];
      readers[side].assign(graph.numVertices(), 0);
      for (uint32_t v = 0; v < graph.numVertices(); ++v) {
        for (const Slot &slot : graph.operands(v))
          ++readers[side][slot.producer];
        ++labelCounts[side][bucketKey(graph[v].label)];
        ++upCounts[side][bucketKey(graph[v].bottomUp)];
      }
    }
  }
  Matching run();

private:
  bool pair(uint32_t a, uint32_t b);
  /// Pairs by the same consumers, unless each computes what the other side
  /// has elsewhere (then they are unchanged ops that took each other's
  /// place under a changed consumer, not one op whose inputs changed).
  bool pairByConsumers(uint32_t a, uint32_t b);
  void propagate(Mode mode);
  void pairOperands(uint32_t a, uint32_t b, Mode mode);
  void pairArguments(uint32_t a, uint32_t b);
  void pairNeighbours(uint32_t a, uint32_t b, Mode mode);
  void anchorUnique(Key key, Mode mode);
  void anchorTies();
  /// Every pair made so far propagates again, under `mode`.
  void repropagate(Mode mode);
  void greedy(bool loose);
  uint32_t candidate(uint32_t a, bool loose, bool local, NeighbourIndex &index);
  bool hasMatchedNeighbour(uint32_t a) const;
  /// Whether producers `a` and `b`, met through one reader, must wait for
  /// a vote of all their readers instead (remembered for
  /// settleContested()).
  bool contested(uint32_t a, uint32_t b, Mode mode);
  void settleContested();
  /// While choosing a target among several: `rival` was not chosen.
  void noteRival(uint32_t chosen, uint32_t rival);

  /// What must agree for two vertices to pair: the label, or when `loose`
  /// only the op name (arguments: their position; values from outside:
  /// nothing).
  uint64_t identity(const VertexInfo &info, bool loose) const {
    return identity(info, loose ? Mode::Loose : Mode::Label);
  }
  uint64_t identity(const VertexInfo &info, Mode mode) const {
    switch (mode) {
    case Mode::BottomUp:
      return info.bottomUp;
    case Mode::TopDown:
      return info.topDown;
    case Mode::Label:
      return info.label;
    case Mode::Loose:
      break;
    }
    switch (info.kind) {
    case VertexKind::Op:
      return info.opName;
    case VertexKind::Argument:
      return HashBuilder(1)
          .add(info.region)
          .add(info.block)
          .add(info.number)
          .get();
    case VertexKind::External:
      return 2;
    }
    return 0;
  }
  uint64_t keyOf(const VertexInfo &info, Key key) const {
    switch (key) {
    case Key::Both:
      return HashBuilder(3).add(info.bottomUp).add(info.topDown).get();
    case Key::BottomUp:
      return info.bottomUp;
    case Key::TopDown:
      return info.topDown;
    case Key::LocalBoth:
      return HashBuilder(4).add(info.localUp).add(info.localDown).get();
    case Key::LocalUp:
      return info.localUp;
    case Key::LocalDown:
      return info.localDown;
    }
    return 0;
  }
  static uint64_t where(const EdgeInfo &edge) {
    return uint64_t(edge.kind) << 62 | uint64_t(edge.slot) << 31 | edge.result;
  }

  const FunctionGraph *g[2];
  std::vector<uint32_t> m[2];
  std::vector<std::pair<uint32_t, uint32_t>> work;
  /// Per side: vertices of ambiguous choices (Matching::ambiguous); the
  /// rivals of the choice being made.
  std::vector<char> ambiguous[2];
  std::vector<uint32_t> rivals;
  /// Per side: operand uses per vertex; vertices per label and per
  /// bottom-up fingerprint.
  std::vector<uint32_t> readers[2];
  llvm::DenseMap<uint64_t, uint32_t> labelCounts[2], upCounts[2];
  std::vector<uint32_t> contestedSources;
};

} // namespace

bool Matcher::pair(uint32_t a, uint32_t b) {
  if (m[0][a] != kNoVertex || m[1][b] != kNoVertex ||
      (*g[0])[a].kind != (*g[1])[b].kind)
    return false;
  m[0][a] = b;
  m[1][b] = a;
  work.emplace_back(a, b);
  return true;
}

bool Matcher::pairByConsumers(uint32_t a, uint32_t b) {
  uint64_t upA = (*g[0])[a].bottomUp, upB = (*g[1])[b].bottomUp;
  if (upA != upB && upCounts[1].count(bucketKey(upA)) &&
      upCounts[0].count(bucketKey(upB)))
    return false;
  return pair(a, b);
}

void Matcher::pairOperands(uint32_t a, uint32_t b, Mode mode) {
  // An operand whose computation appears once among each op's operands is
  // that one's, whatever its slot: swapped operands of look-alike
  // producers (x1 * cos, x2 * sin) stay with their own. The rest by slot.
  auto oa = g[0]->operands(a), ob = g[1]->operands(b);
  auto computes = [&](int side, const Slot &slot) {
    return HashBuilder((*g[side])[slot.producer].bottomUp)
        .add(slot.result)
        .get();
  };
  if (oa.size() > 1 || ob.size() > 1) {
    llvm::SmallDenseMap<uint64_t, std::pair<int, uint32_t>, 8> once[2];
    for (const Slot &slot : oa) {
      auto &c = once[0][bucketKey(computes(0, slot))];
      c = {c.first + 1, slot.producer};
    }
    for (const Slot &slot : ob) {
      auto &c = once[1][bucketKey(computes(1, slot))];
      c = {c.first + 1, slot.producer};
    }
    for (auto &[key, c] : once[0]) {
      auto other = once[1].find(key);
      if (c.first == 1 && other != once[1].end() && other->second.first == 1 &&
          !contested(c.second, other->second.second, mode))
        pair(c.second, other->second.second);
    }
  }
  for (size_t i = 0; i < std::min(oa.size(), ob.size()); ++i) {
    const VertexInfo &pa = (*g[0])[oa[i].producer];
    const VertexInfo &pb = (*g[1])[ob[i].producer];
    if (oa[i].result != ob[i].result ||
        identity(pa, mode) != identity(pb, mode))
      continue;
    if (contested(oa[i].producer, ob[i].producer, mode))
      continue;
    if (mode == Mode::TopDown)
      pairByConsumers(oa[i].producer, ob[i].producer);
    else
      pair(oa[i].producer, ob[i].producer);
  }
}

bool Matcher::contested(uint32_t a, uint32_t b, Mode mode) {
  // One reader of a value many read says little: look-alike weights (cos
  // and sin, read by every layer) pair by what most readers say
  // (settleContested), never by the first reader met, which may be the
  // one edited.
  if (mode != Mode::BottomUp && mode != Mode::Label)
    return false;
  if (readers[0][a] < 2 && readers[1][b] < 2)
    return false;
  const auto &counts = mode == Mode::Label ? labelCounts : upCounts;
  uint64_t ka = bucketKey(identity((*g[0])[a], mode)),
           kb = bucketKey(identity((*g[1])[b], mode));
  if (counts[0].lookup(ka) < 2 && counts[1].lookup(kb) < 2)
    return false;
  if (m[0][a] == kNoVertex)
    contestedSources.push_back(a);
  return true;
}

void Matcher::settleContested() {
  // Each contested source vertex: the target its matched readers'
  // counterparts read at the same slot, by votes; strongest first.
  struct Vote {
    uint32_t votes, a, b;
  };
  std::vector<Vote> decided;
  const Graph &ga = g[0]->graph;
  llvm::sort(contestedSources);
  contestedSources.erase(
      std::unique(contestedSources.begin(), contestedSources.end()),
      contestedSources.end());
  for (uint32_t a : contestedSources) {
    if (m[0][a] != kNoVertex)
      continue;
    llvm::SmallDenseMap<uint32_t, uint32_t, 8> tally;
    for (auto e : boost::make_iterator_range(boost::out_edges(a, ga))) {
      const EdgeInfo &edge = ga[e];
      uint32_t d = m[0][boost::target(e, ga)];
      if (edge.kind != EdgeKind::Operand || d == kNoVertex)
        continue;
      auto ob = g[1]->operands(d);
      if (edge.slot >= ob.size() || ob[edge.slot].result != edge.result)
        continue;
      uint32_t b = ob[edge.slot].producer;
      if (m[1][b] == kNoVertex && (*g[1])[b].label == (*g[0])[a].label)
        ++tally[b];
    }
    uint32_t best = kNoVertex, votes = 0;
    for (auto [b, n] : tally)
      if (n > votes || (n == votes && b < best))
        best = b, votes = n;
    if (best == kNoVertex)
      continue;
    // A tie between producers that are not interchangeable (noteRival's
    // rule) is a choice the structure did not decide.
    for (auto [b, n] : tally) {
      const VertexInfo &rival = (*g[1])[b], &chosen = (*g[1])[best];
      if (b != best && n == votes &&
          (rival.bottomUp != chosen.bottomUp || !rival.exact || !chosen.exact))
        ambiguous[0][a] = ambiguous[1][b] = ambiguous[1][best] = 1;
    }
    decided.push_back({votes, a, best});
  }
  contestedSources.clear();
  llvm::stable_sort(
      decided, [](const Vote &x, const Vote &y) { return x.votes > y.votes; });
  for (const Vote &vote : decided)
    pair(vote.a, vote.b);
  propagate(Mode::Label);
}

void Matcher::pairArguments(uint32_t a, uint32_t b) {
  // Block arguments are positions of the regions of paired ops, not values
  // that can be added or removed: they pair by position whatever their
  // types (a changed type is then the op's and its readers' change).
  const VertexInfo &va = (*g[0])[a], &vb = (*g[1])[b];
  if (va.kind != VertexKind::Op || !va.numArgs || !vb.numArgs)
    return;
  auto position = [](const VertexInfo &arg) {
    return HashBuilder(1).add(arg.region).add(arg.block).add(arg.number).get();
  };
  llvm::DenseMap<uint64_t, uint32_t> byPosition;
  for (uint32_t k = 0; k < vb.numArgs; ++k)
    byPosition[bucketKey(position((*g[1])[vb.firstArg + k]))] = vb.firstArg + k;
  for (uint32_t k = 0; k < va.numArgs; ++k) {
    const VertexInfo &arg = (*g[0])[va.firstArg + k];
    auto it = byPosition.find(bucketKey(position(arg)));
    if (it != byPosition.end())
      pair(va.firstArg + k, it->second);
  }
}

void Matcher::pairNeighbours(uint32_t a, uint32_t b, Mode mode) {
  // Users by (slot, result, identity), children by (region, identity);
  // groups of one on each side pair, larger ones by unique fingerprints.
  auto collect = [&](int side, uint32_t v) {
    const Graph &graph = g[side]->graph;
    llvm::SmallVector<Neighbour, 8> out;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, graph))) {
      uint32_t u = uint32_t(boost::target(e, graph));
      if (graph[e].kind == EdgeKind::Operand && m[side][u] == kNoVertex)
        out.push_back(
            {HashBuilder(where(graph[e])).add(identity(graph[u], mode)).get(),
             u});
    }
    for (auto e : boost::make_iterator_range(boost::in_edges(v, graph))) {
      uint32_t u = uint32_t(boost::source(e, graph));
      if (graph[e].kind == EdgeKind::Nested && m[side][u] == kNoVertex)
        out.push_back(
            {HashBuilder(where(graph[e])).add(identity(graph[u], mode)).get(),
             u});
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  llvm::SmallVector<Neighbour, 8> na = collect(0, a), nb = collect(1, b);
  size_t i = 0, j = 0;
  while (i < na.size() && j < nb.size()) {
    if (na[i].key != nb[j].key) {
      (na[i].key < nb[j].key ? i : j)++;
      continue;
    }
    size_t ei = i, ej = j;
    while (ei < na.size() && na[ei].key == na[i].key)
      ++ei;
    while (ej < nb.size() && nb[ej].key == nb[j].key)
      ++ej;
    if (ei - i == 1 && ej - j == 1) {
      pair(na[i].vertex, nb[j].vertex);
    } else {
      // Global fingerprints, then local ones (which a distant change
      // leaves alone), each where unique on both sides; while pairing by
      // one direction, only that direction's (what an op feeds must not
      // decide among ops that compute the same from the same inputs).
      static constexpr Key kAll[] = {Key::Both,      Key::TopDown,
                                     Key::BottomUp,  Key::LocalBoth,
                                     Key::LocalDown, Key::LocalUp};
      static constexpr Key kUp[] = {Key::BottomUp, Key::LocalUp};
      static constexpr Key kDown[] = {Key::TopDown, Key::LocalDown};
      llvm::ArrayRef<Key> keys = mode == Mode::BottomUp  ? llvm::ArrayRef(kUp)
                                 : mode == Mode::TopDown ? llvm::ArrayRef(kDown)
                                                         : llvm::ArrayRef(kAll);
      for (Key key : keys) {
        llvm::DenseMap<uint64_t, std::pair<int, uint32_t>> counts[2];
        for (size_t k = i; k < ei; ++k)
          if (m[0][na[k].vertex] == kNoVertex) {
            auto &c = counts[0][bucketKey(keyOf((*g[0])[na[k].vertex], key))];
            c = {c.first + 1, na[k].vertex};
          }
        for (size_t k = j; k < ej; ++k)
          if (m[1][nb[k].vertex] == kNoVertex) {
            auto &c = counts[1][bucketKey(keyOf((*g[1])[nb[k].vertex], key))];
            c = {c.first + 1, nb[k].vertex};
          }
        for (size_t k = i; k < ei; ++k) {
          if (m[0][na[k].vertex] != kNoVertex)
            continue;
          uint64_t h = bucketKey(keyOf((*g[0])[na[k].vertex], key));
          auto other = counts[1].find(h);
          if (counts[0][h].first == 1 && other != counts[1].end() &&
              other->second.first == 1)
            pair(na[k].vertex, other->second.second);
        }
      }
      // One left on each side: they are each other's.
      uint32_t lastA = kNoVertex, lastB = kNoVertex;
      unsigned leftA = 0, leftB = 0;
      for (size_t k = i; k < ei; ++k)
        if (m[0][na[k].vertex] == kNoVertex)
          ++leftA, lastA = na[k].vertex;
      for (size_t k = j; k < ej; ++k)
        if (m[1][nb[k].vertex] == kNoVertex)
          ++leftB, lastB = nb[k].vertex;
      if (leftA == 1 && leftB == 1)
        pair(lastA, lastB);
    }
    i = ei;
    j = ej;
  }
}

void Matcher::propagate(Mode mode) {
  while (!work.empty()) {
    auto [a, b] = work.back();
    work.pop_back();
    pairOperands(a, b, mode);
    pairArguments(a, b);
    pairNeighbours(a, b, mode);
  }
}

void Matcher::repropagate(Mode mode) {
  // Only pairs next to something unpaired can pair anything.
  const Graph &graph = g[0]->graph;
  auto unpairedNear = [&](uint32_t a) {
    for (auto e : boost::make_iterator_range(boost::in_edges(a, graph)))
      if (m[0][boost::source(e, graph)] == kNoVertex)
        return true;
    for (auto e : boost::make_iterator_range(boost::out_edges(a, graph)))
      if (m[0][boost::target(e, graph)] == kNoVertex)
        return true;
    return false;
  };
  for (uint32_t a = 0; a < m[0].size(); ++a)
    if (m[0][a] != kNoVertex && unpairedNear(a))
      work.emplace_back(a, m[0][a]);
  propagate(mode);
}

void Matcher::anchorUnique(Key key, Mode mode) {
  struct Bucket {
    uint32_t count[2] = {0, 0};
    uint32_t vertex[2] = {kNoVertex, kNoVertex};
  };
  llvm::DenseMap<uint64_t, Bucket> buckets;
  for (int side = 0; side < 2; ++side)
    for (uint32_t v = 0; v < m[side].size(); ++v)
      if (m[side][v] == kNoVertex) {
        Bucket &bucket = buckets[bucketKey(keyOf((*g[side])[v], key))];
        if (bucket.count[side]++ == 0)
          bucket.vertex[side] = v;
      }
  for (uint32_t a : g[0]->topoOrder) {
    if (m[0][a] != kNoVertex)
      continue;
    const Bucket &bucket = buckets[bucketKey(keyOf((*g[0])[a], key))];
    if (bucket.count[0] == 1 && bucket.count[1] == 1) {
      if (key == Key::TopDown)
        pairByConsumers(a, bucket.vertex[1]);
      else
        pair(a, bucket.vertex[1]);
    }
  }
  propagate(mode);
}

void Matcher::anchorTies() {
  // Vertices nothing tells apart (equal fingerprints both ways, as many on
  // each side): any pairing is as good; take topological order.
  struct Group {
    uint32_t count = 0;
    std::vector<uint32_t> targets;
    size_t cursor = 0;
  };
  llvm::DenseMap<uint64_t, Group> groups;
  for (uint32_t a : g[0]->topoOrder)
    if (m[0][a] == kNoVertex)
      ++groups[bucketKey(keyOf((*g[0])[a], Key::Both))].count;
  for (uint32_t b : g[1]->topoOrder)
    if (m[1][b] == kNoVertex) {
      auto it = groups.find(bucketKey(keyOf((*g[1])[b], Key::Both)));
      if (it != groups.end())
        it->second.targets.push_back(b);
    }
  for (uint32_t a : g[0]->topoOrder) {
    if (m[0][a] != kNoVertex)
      continue;
    Group &group = groups[bucketKey(keyOf((*g[0])[a], Key::Both))];
    if (group.count != group.targets.size())
      continue;
    while (group.cursor < group.targets.size() &&
           m[1][group.targets[group.cursor]] != kNoVertex)
      ++group.cursor;
    if (group.cursor < group.targets.size())
      pair(a, group.targets[group.cursor]);
  }
  propagate(Mode::BottomUp);
}

void Matcher::noteRival(uint32_t chosen, uint32_t rival) {
  // A rival computing the same from the same inputs is interchangeable
  // with the one chosen: either gives the same report.
  const VertexInfo &r = (*g[1])[rival], &c = (*g[1])[chosen];
  if (r.bottomUp != c.bottomUp || !r.exact || !c.exact)
    rivals.push_back(rival);
}

bool Matcher::hasMatchedNeighbour(uint32_t a) const {
  const Graph &graph = g[0]->graph;
  for (auto e : boost::make_iterator_range(boost::in_edges(a, graph)))
    if (m[0][boost::source(e, graph)] != kNoVertex)
      return true;
  for (auto e : boost::make_iterator_range(boost::out_edges(a, graph)))
    if (m[0][boost::target(e, graph)] != kNoVertex)
      return true;
  return false;
}

uint32_t Matcher::candidate(uint32_t a, bool loose, bool local,
                            NeighbourIndex &index) {
  const Graph &ga = g[0]->graph, &gb = g[1]->graph;
  // `local`: only a neighbour whose surroundings look the same.
  auto identityOf = [&](const VertexInfo &info) {
    uint64_t id = identity(info, loose);
    return local ? HashBuilder(id).add(info.localDown).get() : id;
  };
  uint64_t want = identityOf(ga[a]);
  auto keyOfEdge = [&](uint32_t v, const EdgeInfo &edge,
                       const VertexInfo &neighbour) {
    return HashBuilder(where(edge)).add(v).add(identityOf(neighbour)).get();
  };
  // The producer, at the same slot, of a matched user's counterpart: the
  // one most of them name (a value's readers agree on what it is).
  llvm::SmallDenseMap<uint32_t, uint32_t, 8> tally;
  for (auto e : boost::make_iterator_range(boost::out_edges(a, ga))) {
    uint32_t d = m[0][boost::target(e, ga)];
    const EdgeInfo &edge = ga[e];
    if (d == kNoVertex || edge.kind != EdgeKind::Operand)
      continue;
    auto ob = g[1]->operands(d);
    if (edge.slot < ob.size() && ob[edge.slot].result == edge.result) {
      uint32_t b = ob[edge.slot].producer;
      if (m[1][b] == kNoVertex && identityOf(gb[b]) == want)
        ++tally[b];
    }
  }
  if (!tally.empty()) {
    uint32_t best = kNoVertex, votes = 0;
    for (auto [b, n] : tally)
      if (n > votes || (n == votes && b < best))
        best = b, votes = n;
    for (auto [b, n] : tally)
      if (b != best && n == votes)
        noteRival(best, b);
    return best;
  }
  // A user of a matched producer's counterpart, at the same slot.
  auto oa = g[0]->operands(a);
  for (uint32_t i = 0; i < oa.size(); ++i) {
    uint32_t p = m[0][oa[i].producer];
    if (p == kNoVertex)
      continue;
    EdgeInfo edge{EdgeKind::Operand, i, oa[i].result};
    uint64_t key = HashBuilder(where(edge)).add(p).add(want).get();
    uint32_t b = index.next(*g[1], p, key, m[1], keyOfEdge);
    if (b != kNoVertex) {
      index.forEachRival(key, m[1], [&](uint32_t r) { noteRival(b, r); });
      return b;
    }
  }
  // A child of the enclosing op's counterpart.
  for (auto e : boost::make_iterator_range(boost::out_edges(a, ga))) {
    uint32_t d = m[0][boost::target(e, ga)];
    const EdgeInfo &edge = ga[e];
    if (d == kNoVertex || edge.kind != EdgeKind::Nested)
      continue;
    uint64_t key = HashBuilder(where(edge)).add(d).add(want).get();
    uint32_t b = index.next(*g[1], d, key, m[1], keyOfEdge);
    if (b != kNoVertex) {
      index.forEachRival(key, m[1], [&](uint32_t r) { noteRival(b, r); });
      return b;
    }
  }
  return kNoVertex;
}

void Matcher::greedy(bool loose) {
  NeighbourIndex localIndex(m[1].size()), index(m[1].size());
  // Last resort for a vertex with no matched neighbour at all: the next
  // unmatched target of the same label, in topological order.
  llvm::DenseMap<uint64_t, std::pair<std::vector<uint32_t>, size_t>> byLabel;
  if (!loose)
    for (uint32_t b : g[1]->topoOrder)
      if (m[1][b] == kNoVertex && (*g[1])[b].kind != VertexKind::Argument)
        byLabel[bucketKey((*g[1])[b].label)].first.push_back(b);
  for (uint32_t a : g[0]->topoOrder) {
    if (m[0][a] != kNoVertex || (*g[0])[a].kind == VertexKind::Argument)
      continue;
    uint32_t b = candidate(a, loose, /*local=*/true, localIndex);
    if (b == kNoVertex)
      b = candidate(a, loose, /*local=*/false, index);
    if (b == kNoVertex && !loose && !hasMatchedNeighbour(a)) {
      auto it = byLabel.find(bucketKey((*g[0])[a].label));
      if (it != byLabel.end()) {
        auto &[list, cursor] = it->second;
        while (cursor < list.size() && m[1][list[cursor]] != kNoVertex)
          ++cursor;
        if (cursor < list.size())
          b = list[cursor];
        for (size_t k = cursor + 1;
             k < list.size() && k <= cursor + NeighbourIndex::kRivals; ++k)
          if (m[1][list[k]] == kNoVertex)
            noteRival(b, list[k]);
      }
    }
    if (b != kNoVertex && pair(a, b)) {
      if (!rivals.empty()) {
        ambiguous[0][a] = ambiguous[1][b] = 1;
        for (uint32_t r : rivals)
          ambiguous[1][r] = 1;
      }
      propagate(loose ? Mode::Loose : Mode::Label);
    }
    rivals.clear();
  }
}

Matching Matcher::run() {
  // A function's op, and the files' top-level ops, are each other's.
  if (((g[0]->hasRoot() && g[1]->hasRoot()) ||
       (g[0]->topLevel && g[1]->topLevel)) &&
      !m[0].empty() && !m[1].empty())
    pair(0, 0);
  // What an op computes from its inputs first: a vertex pairs with the
  // counterpart that computes the same thing from the same inputs, and
  // pairs propagate only to neighbours that do too, so a change never
  // draws unchanged ops into wrong pairs by the slot they feed (swapped
  // operands of look-alike producers stay with their own). Then what a
  // vertex feeds (ops downstream of a change still feed the same), then
  // both; then ties nothing tells apart.
  propagate(Mode::BottomUp);
  for (int round = 0; round < 2; ++round) {
    anchorUnique(Key::BottomUp, Mode::BottomUp);
    anchorUnique(Key::TopDown, Mode::TopDown);
    anchorUnique(Key::Both, Mode::BottomUp);
    if (round == 0)
      anchorTies();
  }
  // Only now by label, from every pair: the changed ops and what the
  // fingerprints could not tell apart.
  settleContested();
  repropagate(Mode::Label);
  settleContested();
  greedy(/*loose=*/false);
  settleContested();
  greedy(/*loose=*/true);
  Matching out{std::move(m[0]), std::move(m[1]), {}};
  out.ambiguous[0] = std::move(ambiguous[0]);
  out.ambiguous[1] = std::move(ambiguous[1]);
  return out;
}

Matching graphdiff::matchGraphs(const FunctionGraph &source,
                                const FunctionGraph &target) {
  return Matcher(source, target).run();
}
