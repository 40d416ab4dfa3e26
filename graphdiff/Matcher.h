//===- Matcher.h - Which vertex of one graph is which -----------*- C++ -*-===//
//
// Fingerprints (Fingerprints.cpp): every vertex gets a bottom-up hash (its
// label and its producers' hashes, slot by slot; children of a region op as
// a multiset) and a top-down hash (its label and the multiset of (user's
// hash, slot, result) over its uses), so look-alike chains are told apart
// by what they feed and where.
//
// Matching (Matcher.cpp), in linear time with hash maps: anchor vertices
// whose fingerprints are unique and equal on both sides (bottom-up, then
// top-down, then both together), propagate from every pair along operand slots,
// uses (by slot, result and label) and block arguments, pair groups of
// indistinguishable vertices in topological order, then a greedy
// topological pass over the rest (a matched neighbour's counterpart with
// the same label), and last pair leftovers of the same op name next to
// matched neighbours (they will verify as modified).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_MATCHER_H
#define AIMODEL_GRAPHDIFF_MATCHER_H

#include "graphdiff/GraphModel.h"
#include "graphdiff/OpLabels.h"

#include <vector>

namespace aimodel::graphdiff {

/// Labels every vertex of `graph`, orders it topologically (cycles, which
/// graph regions allow, are broken at the earliest vertex) and computes
/// both fingerprints.
void computeFingerprints(FunctionGraph &graph, OpLabeler &labeler);

/// A partial one-to-one map between the vertices of two graphs.
struct Matching {
  std::vector<uint32_t> forward;  ///< source vertex -> target or kNoVertex
  std::vector<uint32_t> backward; ///< target vertex -> source or kNoVertex
  /// Per side and vertex: paired (or left unpaired) by a choice the
  /// structure did not decide, among candidates that are not
  /// interchangeable (they compute different things).
  std::vector<char> ambiguous[2];
};

/// Matches two fingerprinted graphs. Their function ops (vertex 0) are
/// paired whatever their labels when both graphs have one.
Matching matchGraphs(const FunctionGraph &source, const FunctionGraph &target);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_MATCHER_H
