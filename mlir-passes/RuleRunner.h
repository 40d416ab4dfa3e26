//===- RuleRunner.h - Running the IR rule passes on one file ----*- C++ -*-===//
//
// The IR rules as passes over an MLIR import of a file, collecting their
// findings: what `audit --force-ir-import` runs (the audit otherwise runs
// the same rules over the decoded tables, TableRules.h). The same passes
// aimodel-opt runs one by one.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_RULERUNNER_H
#define AIMODEL_MLIR_PASSES_RULERUNNER_H

#include "bytecode/BytecodeReader.h"
#include "mlir-passes/Findings.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace aimodel::passes {

/// Which IR rules to run.
enum IRRule : unsigned {
  kLegacyDebugLocationRule = 1u << 0, ///< AIM002
  kDebugPayloadRule = 1u << 1,        ///< AIM007
  kUnverifiedLocationRule = 1u << 2,  ///< AIM012
  kGraphTrapRule = 1u << 3,           ///< AIM015
};

/// Runs the selected rules on `file`: AIM007 over its decoded tables
/// (PayloadScan.h: every byte, not only what MLIR sees), the others as
/// passes over its import (weights left unread), made only when one of
/// them is selected. Findings come in rule order. Fails only when the
/// import does, which the decoder's validation should make impossible for
/// a file it opened.
llvm::Expected<std::vector<IRFinding>>
runIRRules(const bytecode::BytecodeFile &file, unsigned rules);

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_RULERUNNER_H
