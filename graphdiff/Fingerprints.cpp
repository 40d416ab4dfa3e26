//===- Fingerprints.cpp - Bottom-up and top-down hashes of vertices -------===//

#include "graphdiff/Hashing.h"
#include "graphdiff/Matcher.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::graphdiff;

namespace {
enum Tag : uint64_t {
  kBottomUpTag = 0x4255,
  kTopDownTag = 0x5444,
  kBackEdgeTag = 0x4245,
  kLocalUpTag = 0x4c55,
  kLocalDownTag = 0x4c44,
  kOrderTag = 0x4f52,
};

/// How many edges deep local fingerprints look.
constexpr unsigned kLocalDepth = 4;

/// A neighbour of a vertex and where it is attached: an edge kind, slot
/// and result packed in 64 bits.
struct Attached {
  uint64_t where = 0;
  uint32_t vertex = 0;
};

/// Every vertex's users (out-edges) and region children (Nested in-edges),
/// copied out of the Boost graph once: the passes below walk them often.
struct Neighbours {
  explicit Neighbours(const Graph &graph);
  llvm::ArrayRef<Attached> users(uint32_t v) const {
    return llvm::ArrayRef<Attached>(userList).slice(
        userBegin[v], userBegin[v + 1] - userBegin[v]);
  }
  /// Region children and the ops this one runs after (Order in-edges).
  llvm::ArrayRef<Attached> children(uint32_t v) const {
    return llvm::ArrayRef<Attached>(childList).slice(
        childBegin[v], childBegin[v + 1] - childBegin[v]);
  }
  std::vector<uint32_t> userBegin, childBegin;
  std::vector<Attached> userList, childList;
};

uint64_t where(const EdgeInfo &edge) {
  return uint64_t(edge.kind) << 62 | uint64_t(edge.slot) << 31 | edge.result;
}

Neighbours::Neighbours(const Graph &graph) {
  size_t n = boost::num_vertices(graph);
  userBegin.reserve(n + 1);
  childBegin.reserve(n + 1);
  userList.reserve(boost::num_edges(graph));
  for (uint32_t v = 0; v < n; ++v) {
    userBegin.push_back(uint32_t(userList.size()));
    childBegin.push_back(uint32_t(childList.size()));
    for (auto e : boost::make_iterator_range(boost::out_edges(v, graph)))
      userList.push_back({where(graph[e]), uint32_t(boost::target(e, graph))});
    for (auto e : boost::make_iterator_range(boost::in_edges(v, graph)))
      if (graph[e].kind == EdgeKind::Nested)
        childList.push_back({graph[e].slot, uint32_t(boost::source(e, graph))});
      else if (graph[e].kind == EdgeKind::Order)
        childList.push_back(
            {kOrderTag << 32, uint32_t(boost::source(e, graph))});
  }
  userBegin.push_back(uint32_t(userList.size()));
  childBegin.push_back(uint32_t(childList.size()));
}

using Parts = llvm::SmallVector<std::pair<uint64_t, uint64_t>, 16>;

/// Hash of `label`, the operand slots' values and the children's (a
/// multiset: their order in a block is free).
template <typename ValueOf>
uint64_t upward(uint64_t tag, uint64_t label, llvm::ArrayRef<Slot> operands,
                llvm::ArrayRef<Attached> children, ValueOf &&valueOf,
                Parts &parts) {
  HashBuilder hash(tag);
  hash.add(label);
  for (const Slot &slot : operands)
    hash.add(slot.result).add(valueOf(slot.producer));
  parts.clear();
  for (const Attached &child : children)
    parts.emplace_back(child.where, valueOf(child.vertex));
  std::sort(parts.begin(), parts.end());
  hash.add(parts.size());
  for (const auto &[region, fingerprint] : parts)
    hash.add(region).add(fingerprint);
  return hash.get();
}

/// Hash of `label` and the multiset of (where, user's value).
template <typename ValueOf>
uint64_t downward(uint64_t tag, uint64_t label, llvm::ArrayRef<Attached> users,
                  ValueOf &&valueOf, Parts &parts) {
  parts.clear();
  for (const Attached &user : users)
    parts.emplace_back(user.where, valueOf(user.vertex));
  std::sort(parts.begin(), parts.end());
  HashBuilder hash(tag);
  hash.add(label).add(parts.size());
  for (const auto &[where, fingerprint] : parts)
    hash.add(where).add(fingerprint);
  return hash.get();
}
} // namespace

/// Kahn's algorithm over every edge; when only cycles remain, the earliest
/// remaining vertex goes next.
static void orderTopologically(FunctionGraph &g, const Neighbours &adj) {
  size_t n = g.numVertices();
  std::vector<uint32_t> remaining(n, 0);
  for (uint32_t v = 0; v < n; ++v)
    for (const Attached &user : adj.users(v))
      ++remaining[user.vertex];
  std::vector<char> placed(n, 0);
  std::vector<uint32_t> &order = g.topoOrder;
  order.clear();
  order.reserve(n);
  for (uint32_t v = 0; v < n; ++v)
    if (!remaining[v]) {
      placed[v] = 1;
      order.push_back(v);
    }
  size_t head = 0, scan = 0;
  while (head < n) {
    if (head == order.size()) { // a cycle: break it
      while (placed[scan])
        ++scan;
      placed[scan] = 1;
      order.push_back(uint32_t(scan));
    }
    uint32_t v = order[head++];
    for (const Attached &user : adj.users(v))
      if (--remaining[user.vertex] == 0 && !placed[user.vertex]) {
        placed[user.vertex] = 1;
        order.push_back(user.vertex);
      }
  }
}

/// Fingerprints of each vertex's neighbourhood, kLocalDepth edges up
/// (producers, region children) and down (users, enclosing op).
static void localFingerprints(FunctionGraph &g, const Neighbours &adj) {
  Graph &graph = g.graph;
  size_t n = g.numVertices();
  std::vector<uint64_t> current(n), next(n);
  Parts parts;
  auto valueOf = [&](uint32_t v) { return current[v]; };
  for (int direction = 0; direction < 2; ++direction) {
    for (uint32_t v = 0; v < n; ++v)
      current[v] = graph[v].label;
    for (unsigned round = 0; round < kLocalDepth; ++round) {
      for (uint32_t v = 0; v < n; ++v)
        next[v] = direction == 0
                      ? upward(kLocalUpTag, graph[v].label, g.operands(v),
                               adj.children(v), valueOf, parts)
                      : downward(kLocalDownTag, graph[v].label, adj.users(v),
                                 valueOf, parts);
      current.swap(next);
    }
    for (uint32_t v = 0; v < n; ++v)
      (direction == 0 ? graph[v].localUp : graph[v].localDown) = current[v];
  }
}

void graphdiff::computeFingerprints(FunctionGraph &g, OpLabeler &labeler) {
  g.stale = false;
  Graph &graph = g.graph;
  size_t n = g.numVertices();
  for (uint32_t v = 0; v < n; ++v)
    graph[v].label = labeler.vertexLabel(g, v);
  Neighbours adj(graph);
  orderTopologically(g, adj);
  std::vector<uint32_t> position(n);
  for (uint32_t i = 0; i < n; ++i)
    position[g.topoOrder[i]] = i;
  // A neighbour not yet hashed closes a cycle: it counts by its label.
  uint32_t current = 0;
  auto backEdge = [&](uint32_t v) {
    return HashBuilder(kBackEdgeTag).add(graph[v].label).get();
  };
  auto below = [&](uint32_t v) {
    return position[v] < position[current] ? graph[v].bottomUp : backEdge(v);
  };
  auto above = [&](uint32_t v) {
    return position[v] > position[current] ? graph[v].topDown : backEdge(v);
  };
  Parts parts;
  for (uint32_t v : g.topoOrder) {
    current = v;
    graph[v].bottomUp = upward(kBottomUpTag, graph[v].label, g.operands(v),
                               adj.children(v), below, parts);
    VertexInfo &info = graph[v];
    info.exact = !(info.kind == VertexKind::Op && labeler.hidesWeight(info.op));
    for (const Slot &slot : g.operands(v))
      info.exact = info.exact && graph[slot.producer].exact;
    for (const Attached &child : adj.children(v))
      info.exact = info.exact && graph[child.vertex].exact;
  }
  for (auto it = g.topoOrder.rbegin(); it != g.topoOrder.rend(); ++it) {
    current = *it;
    graph[current].topDown = downward(kTopDownTag, graph[current].label,
                                      adj.users(current), above, parts);
  }
  localFingerprints(g, adj);
}
