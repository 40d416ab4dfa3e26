//===- FunctionPairing.h - Which function of one file is which --*- C++ -*-===//
//
// Functions pair by full symbol path where nothing calls them (entry
// points), then by path without the conversion uniquifier of its last name
// where that is unique on both sides, then, among look-alike names, by
// equal whole-graph fingerprints, then through their call sites: two
// matched ops naming unpaired functions at the same position of their
// symbol references pair those functions, at any depth of composites. What
// is left pairs by equal content in file order, by exact path, and
// stand-ins by position. Labels hash a reference to a paired function by
// the pair, to an unpaired one by its content (its name without uniquifier
// and its whole body), so calls of equal composites compare equal whatever
// their names; every other symbol by its exact name.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_FUNCTIONPAIRING_H
#define AIMODEL_GRAPHDIFF_FUNCTIONPAIRING_H

#include "graphdiff/GraphModel.h"
#include "graphdiff/Matcher.h"
#include "graphdiff/OpLabels.h"

#include <utility>
#include <vector>

namespace aimodel::graphdiff {

/// Graph pairs between a source (side 0) and a target (side 1) file.
struct FunctionPairs {
  FunctionPairs(size_t sourceGraphs, size_t targetGraphs)
      : of{std::vector<uint32_t>(sourceGraphs, kNoGraph),
           std::vector<uint32_t>(targetGraphs, kNoGraph)} {}
  /// Pairs `source` and `target` when both are unpaired.
  bool add(uint32_t source, uint32_t target);
  bool paired(int side, uint32_t graph) const {
    return of[side][graph] != kNoGraph;
  }
  std::vector<uint32_t> of[2]; ///< per side: graph -> counterpart
};

/// Fills FunctionGraph::symbolUsers and ::references.
void collectSymbolUses(FileGraphs &graphs, OpLabeler &labeler);

/// By exact path (not where it holds a stand-in), then by path without
/// uniquifier and stand-in numbers where unique.
void pairByName(const FileGraphs &source, const FileGraphs &target,
                FunctionPairs &pairs);

/// Among unpaired functions sharing a name without uniquifier: those whose
/// function-op bottom-up fingerprint (the whole body) is unique on both
/// sides. Needs fingerprints. Returns the new pairs' source graphs.
std::vector<uint32_t> pairByContent(const FileGraphs &source,
                                    const FileGraphs &target,
                                    FunctionPairs &pairs);

/// Last, for graphs still unpaired: equal content (a key of `keys`, per
/// side) in file order, then the exact path, then stand-ins of one shape
/// in file order. Returns the new pairs' source graphs.
std::vector<uint32_t> pairLeftovers(const FileGraphs &source,
                                    const FileGraphs &target,
                                    llvm::ArrayRef<uint64_t> keys[2],
                                    FunctionPairs &pairs);

/// Through the call sites of a matched graph pair. Returns the new pairs'
/// source graphs.
std::vector<uint32_t>
pairByCallSites(const FileGraphs &source, const FileGraphs &target,
                uint32_t sourceGraph, uint32_t targetGraph,
                const Matching &matching, OpLabeler &sourceLabels,
                OpLabeler &targetLabels, FunctionPairs &pairs);

/// Symbol keys for side `side`'s labeler: a paired function by its pair,
/// an unpaired one by its key in `content` (contentKeys), anything else by
/// its exact name.
OpLabeler::SymbolKeys symbolKeys(const FileGraphs &graphs,
                                 const FunctionPairs &pairs, int side,
                                 llvm::ArrayRef<uint64_t> content);

/// Fingerprints every graph of side `side` and returns per graph the key a
/// reference to it hashes as while it is unpaired: its name without
/// uniquifier and its own body (function op's bottom-up fingerprint, the
/// functions it calls by their names without uniquifier); 0 for a graph
/// nothing calls. Leaves `labeler` with symbolKeys() over keys the caller
/// must keep: it sets its own over the returned ones.
std::vector<uint64_t> contentKeys(FileGraphs &graphs, OpLabeler &labeler,
                                  const FunctionPairs &pairs, int side);

/// The graphs `--entry-point NAME` may mean in one file.
struct EntryMatch {
  /// Graphs whose full path or symbol name is NAME exactly.
  std::vector<uint32_t> exact;
  /// Without exact matches: graphs whose name, uniquifier dropped, is
  /// NAME's (it has one too, or it is that base name).
  std::vector<uint32_t> byBase;
};
EntryMatch findEntry(const FileGraphs &graphs, llvm::StringRef entry);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_FUNCTIONPAIRING_H
