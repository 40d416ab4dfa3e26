//===- RuleRunner.h - Running the IR rule passes on one file ----*- C++ -*-===//
//
// What the audit does with a file whose tables show evidence for some IR
// rule (RulePrecheck.h): import it into MLIR and run the rules' passes,
// collecting their findings. The same passes aimodel-opt runs one by one.
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
