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

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_GRAPHINTERFACE_H
