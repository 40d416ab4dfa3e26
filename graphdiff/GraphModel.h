//===- GraphModel.h - One Boost graph per function of a file ----*- C++ -*-===//
//
// The graphs the matcher compares, built from the decoder's tables alone.
// One graph per function-like op: an op with a symbol name (`sym_name` in
// its attribute dictionary, or in its properties dictionary for an
// unregistered op) whose regions hold ops; or, when the name cannot be read
// (natively encoded properties: `mps.func`, `func.func` in real files), a
// direct child of a top-level op that holds ops, named by a stand-in
// (`mps.func#0`). Ops outside every function, the containers (the top-level
// op, `builtin.module`) included, form one more graph, `(top level)`: a
// container's name, attributes and properties count like any op's.
//
// Vertices are the function op itself (vertex 0), every op nested in it
// (not in a nested function), every block argument of those ops' regions,
// and values defined outside the graph. Edges are a multigraph: one
// Operand edge per operand slot, producer -> user (so `add(x, x)` keeps two
// edges), and one Nested edge from each op to the op whose region holds it.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_GRAPHMODEL_H
#define AIMODEL_GRAPHDIFF_GRAPHMODEL_H

#include "bytecode/BytecodeReader.h"
#include "bytecode/Symbols.h"

#include "llvm/ADT/StringMap.h"

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::graphdiff {

inline constexpr uint32_t kNoVertex = ~uint32_t(0);
inline constexpr uint32_t kNoGraph = ~uint32_t(0);

enum class VertexKind : uint8_t {
  Op,       ///< an operation
  Argument, ///< a block argument of a region of an op of the graph
  External, ///< a value defined outside the graph
};

struct VertexInfo {
  VertexKind kind = VertexKind::Op;
  /// Op: the op's index; Argument: the op owning the block; External: the
  /// defining op (kNoIndex for a block argument).
  uint32_t op = bytecode::kNoIndex;
  /// Op: the enclosing op's vertex; Argument: the owning op's vertex.
  uint32_t parent = kNoVertex;
  /// Op: which region of `parent` holds it; Argument: the region of the
  /// owning op.
  uint32_t region = 0;
  /// Argument: block position in its region; External: block index when
  /// the value is a block argument.
  uint32_t block = 0;
  /// Argument: argument number; External: result or argument number.
  uint32_t number = 0;
  /// Op: its block arguments are vertices [firstArg, firstArg + numArgs).
  uint32_t firstArg = 0, numArgs = 0;
  /// Op: hash of "dialect.name" (two ops of one name may pair as modified).
  uint64_t opName = 0;
  /// What the vertex computes (OpLabels.h), and its fingerprints
  /// (Fingerprints.cpp): of everything above and below it, and of its
  /// neighbourhood a few edges deep (which a distant change leaves alone).
  uint64_t label = 0, bottomUp = 0, topDown = 0;
  uint64_t localUp = 0, localDown = 0;
  /// Whether bottomUp says everything the vertex computes: false when it or
  /// anything below it is a weight compared by shape only (two such
  /// look-alikes may still hold different weights).
  bool exact = true;
};

/// Operand: a value read; Nested: an op inside another's region; Order: an
/// op that must run after another (OrderEdges.cpp).
enum class EdgeKind : uint8_t { Operand, Nested, Order };

struct EdgeInfo {
  EdgeKind kind = EdgeKind::Operand;
  uint32_t slot = 0;   ///< Operand: operand number; Nested: region number
  uint32_t result = 0; ///< Operand: result (or argument) number used
};

/// vecS out-edge lists allow parallel edges: a multigraph. Edges are never
/// removed, so they are stored in a vector too (not one list node each).
using Graph = boost::adjacency_list<boost::vecS, boost::vecS,
                                    boost::bidirectionalS, VertexInfo, EdgeInfo,
                                    boost::no_property, boost::vecS>;

/// One operand slot: who produces it, which of its results.
struct Slot {
  uint32_t producer = kNoVertex;
  uint32_t result = 0;
};

/// Copying one copies its Boost graph vertex by vertex (Boost 1.74 has no
/// move): build graphs in place.
struct FunctionGraph {
  explicit FunctionGraph(size_t numVertices = 0) : graph(numVertices) {}

  std::string name; ///< symbol name (without '@'), or a stand-in
  /// The full symbol path: the names of the symbol tables holding it,
  /// outermost first, then `name`, joined by "::" ("outer::main"); an
  /// unnamed nested table is a stand-in ("builtin.module#1"). `name` at
  /// the top.
  std::string path;
  /// `path` with each stand-in's number dropped ("builtin.module#::main"):
  /// the same for stand-ins that differ only by position.
  std::string shape;
  /// A stand-in is part of `path`: its name says where it is, not what.
  bool standIn() const { return path != shape; }
  bool synthetic = false;
  /// "(top level)": the containers and the ops outside every function.
  /// Its vertex 0 is the file's top-level op.
  bool topLevel = false;
  /// "(top level)" holding nothing but containers (the top-level op,
  /// builtin.module): compared, but listed only when it differs.
  bool onlyContainers = false;
  /// The function op, vertex 0; kNoIndex for the top-level leftovers.
  uint32_t rootOp = bytecode::kNoIndex;
  Graph graph;
  /// Operand slots of vertex v: operandSlots[operandBegin[v] ..
  /// operandBegin[v + 1]) (the Operand edges, for direct access by slot).
  std::vector<uint32_t> operandBegin;
  std::vector<Slot> operandSlots;
  uint64_t numOps = 0;
  /// Vertices in topological order (Fingerprints.cpp).
  std::vector<uint32_t> topoOrder;
  /// Op vertices whose attributes or properties name a symbol.
  std::vector<uint32_t> symbolUsers;
  /// Graphs of this file whose symbols this graph's ops name.
  std::vector<uint32_t> references;
  /// Whether an op of the file names this graph's symbol (a composite, a
  /// callee), as opposed to an entry point nothing in the file calls.
  bool referenced = false;
  /// Its labels may have changed since its fingerprints were computed (a
  /// function it names was paired): computed again before it is matched,
  /// once however many pairings came in between.
  bool stale = true;

  bool hasRoot() const { return rootOp != bytecode::kNoIndex; }
  size_t numVertices() const { return boost::num_vertices(graph); }
  const VertexInfo &operator[](uint32_t v) const { return graph[v]; }
  llvm::ArrayRef<Slot> operands(uint32_t v) const {
    return llvm::ArrayRef<Slot>(operandSlots)
        .slice(operandBegin[v], operandBegin[v + 1] - operandBegin[v]);
  }
};

/// All graphs of one file.
struct FileGraphs {
  std::vector<FunctionGraph> graphs; ///< in the order of their ops
  /// Named functions by exact symbol name, where one function has it
  /// (what a symbol reference names: nested tables are rare).
  llvm::StringMap<uint32_t> bySymbol;
  /// Every graph by its full path.
  llvm::StringMap<uint32_t> byPath;
  /// Per op: its graph and vertex.
  std::vector<uint32_t> graphOfOp, vertexOfOp;
};

FileGraphs buildGraphs(const bytecode::BytecodeFile &file);

/// Per vertex of `graph`: whether an output of the graph depends on it.
/// What the function op's body ends in (its terminator) is an output, so
/// is every op without results that does not end a block (it may have
/// effects); a region's terminator is one when its op is; from those, what
/// their operands read, and the op enclosing a used op. Vertex 0 (the
/// function op, or the top level's container) always is.
std::vector<char> usedVertices(const FunctionGraph &graph,
                               const bytecode::BytecodeFile &file);

using bytecode::parentOp;
using bytecode::symbolName;

/// `name` without a conversion uniquifier: a trailing '_' and 8 lowercase
/// alphanumerics (`rms_norm_k3j9x0qa` -> `rms_norm`).
llvm::StringRef normaliseSymbol(llvm::StringRef name);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_GRAPHMODEL_H
