//===- TableRules.h - The IR rules over the decoded tables ------*- C++ -*-===//
//
// What the audit runs on every IR file, without MLIR: AIM002 and AIM012 as
// LocationRules.h defines them, fed the decoder's tables in IR pre-order
// (the same findings, byte for byte, as the passes give an import: tested
// on every fixture and real file), and AIM007 from the payload scan.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_TABLERULES_H
#define AIMODEL_MLIR_PASSES_TABLERULES_H

#include "bytecode/BytecodeReader.h"
#include "mlir-passes/Findings.h"

#include <vector>

namespace aimodel::passes {

/// The findings of `rules` (IRRule bits, RuleRunner.h) on `file`, in rule
/// order.
std::vector<IRFinding> runTableRules(const bytecode::BytecodeFile &file,
                                     unsigned rules);

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_TABLERULES_H
