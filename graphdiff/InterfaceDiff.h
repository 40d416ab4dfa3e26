//===- InterfaceDiff.h - Entry graphs' interfaces, compared -----*- C++ -*-===//
//
// Inputs and outputs (bytecode/GraphInterface.h) compared in order: the
// count, then each port's type (and with it whether it is a state) and its
// display name. Types compare by structure across the two files.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_INTERFACEDIFF_H
#define AIMODEL_GRAPHDIFF_INTERFACEDIFF_H

#include "graphdiff/GraphDiff.h"
#include "graphdiff/OpLabels.h"

namespace aimodel::graphdiff {

/// The interface of function op `op`, as text.
InterfaceText interfaceText(const bytecode::BytecodeFile &file, uint32_t op);

/// Golden op `a` of `golden`'s file against op `b` of `candidate`'s.
InterfaceComparison compareInterfaces(OpLabeler &golden, uint32_t a,
                                      OpLabeler &candidate, uint32_t b);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_INTERFACEDIFF_H
