//===- OrderEdges.cpp - Ops whose order is part of the graph --------------===//
//
// Data edges leave ops with effects unordered: a read of a variable before
// its write and after it read the same operands. Within a block, ops that
// name the same non-function symbol (a variable, a state) keep their order,
// and so do ops without results (they exist for their effects): an Order
// edge links each to the one before it on the same chain.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/OpLabels.h"

#include "llvm/ADT/StringMap.h"

using namespace aimodel;
using namespace aimodel::graphdiff;

void graphdiff::addOrderEdges(FileGraphs &graphs,
                              const bytecode::BytecodeFile &file,
                              OpLabeler &labeler) {
  llvm::SmallVector<llvm::StringRef, 4> refs;
  // The last op of each chain in the block: by symbol; "" for no results.
  llvm::StringMap<uint32_t> last;
  for (const bytecode::Block &block : file.blocks()) {
    last.clear();
    for (size_t k = 0; k + 1 < block.operations.size(); ++k) { // terminator
      uint32_t op = block.operations[k];
      uint32_t g = graphs.graphOfOp[op];
      FunctionGraph &graph = graphs.graphs[g];
      if (graph.topLevel || graph.rootOp == op)
        continue; // declarations and definitions: their order is free
      uint32_t v = graphs.vertexOfOp[op];
      auto chain = [&](llvm::StringRef key) {
        auto [it, fresh] = last.try_emplace(key, v);
        if (!fresh && it->second != v) {
          boost::add_edge(it->second, v, EdgeInfo{EdgeKind::Order, 0, 0},
                          graph.graph);
          it->second = v;
        }
      };
      refs.clear();
      labeler.symbolRefs(op, refs);
      for (llvm::StringRef ref : refs)
        if (!graphs.bySymbol.count(ref))
          chain(ref);
      if (file.resultTypes(file.operations()[op]).empty())
        chain("");
    }
  }
}
