//===- GraphInterface.h - An entry graph's inputs and outputs ---*- C++ -*-===//
//
// What an app binds to: a graph's inputs (its entry block's arguments) and
// outputs (the operands of the op that ends its body), each with its type,
// its display name where the IR has one, and whether it is a state. Read
// from the decoder's tables alone; `diff` compares it and the audit's
// graph rules read it, so both see the same facts.
//
// Which names and types mean what is one table, in GraphInterface.cpp:
// INFERRED from coreai-torch's tests (coreai graphs name inputs and outputs
// by `coreai.name` inside `arg_attrs` / `res_attrs`; state inputs are
// `!coreai.handle<...>`, their mutations `!coreai.token` results).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BYTECODE_GRAPHINTERFACE_H
#define AIMODEL_BYTECODE_GRAPHINTERFACE_H

#include "bytecode/BytecodeReader.h"

#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::bytecode {

struct Port {
  std::string name; ///< display name; empty when the IR gives none
  uint64_t type = kNone;
  bool state = false; ///< a state handle, or the token of its mutation
};

struct GraphInterface {
  std::vector<Port> inputs, outputs;
  size_t states() const;
};

/// The interface of `op`, an op whose first region holds the graph (a
/// function). Without a region: no inputs, no outputs.
GraphInterface graphInterface(const BytecodeFile &file, uint32_t op);

/// Whether `type` is a state's (a handle or the token of a mutation).
bool isStateType(const BytecodeFile &file, uint64_t type);

/// The type of a value.
uint64_t valueType(const BytecodeFile &file, const ValueRef &value);

/// A dynamic dim in the shapes below (MLIR's ShapedType::kDynamic).
inline constexpr int64_t kDynamicDim = std::numeric_limits<int64_t>::min();

using Shape = llvm::SmallVector<int64_t, 4>;

/// The dims of `type` when it is a ranked tensor, or a private type written
/// as text around one (a state `!coreai.handle<tensor<1x8x?x64xf16>>`);
/// nullopt when no shape can be read.
std::optional<Shape> tensorShape(const BytecodeFile &file, uint64_t type);

/// The top-level function ops an app calls: ops directly in the module's
/// body that hold a graph (a region with a block) and that no symbol
/// reference anywhere in the file names (composites and callees are named
/// by the ops that invoke them).
std::vector<uint32_t> entryGraphs(const BytecodeFile &file);

/// One input or output of an entry graph, with everything owned: for rules
/// that read the facts after the file is closed.
struct PortFacts {
  std::string name; ///< display name; empty when the IR gives none
  std::string type; ///< as MLIR prints it (TypeText.h)
  std::optional<Shape> shape;
  bool state = false;
  /// A private, custom-encoded type: neither its shape nor whether it is a
  /// state can be read.
  bool opaque = false;
};

struct EntryGraphFacts {
  std::string name; ///< its symbol; empty when it cannot be read
  std::vector<PortFacts> inputs, outputs;

  /// Its states: the state inputs (handles), or failing those the state
  /// outputs, so a state read and written counts once.
  size_t states() const;
  /// Whether every port's type could be read (no opaque port).
  bool readable() const;
};

/// The interfaces of the entry graphs, in file order.
std::vector<EntryGraphFacts> entryGraphFacts(const BytecodeFile &file);

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_GRAPHINTERFACE_H
