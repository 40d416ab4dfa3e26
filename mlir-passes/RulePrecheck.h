//===- RulePrecheck.h - Can any IR rule fire in this file? ------*- C++ -*-===//
//
// Importing a file into MLIR costs far more than decoding it. The decoded
// tables can prove that no IR rule pass can find anything: every location
// the passes look at, and every string they judge, is an entry of those
// tables. Built on the rules' own predicates, so the proof cannot drift from
// the rules. No MLIR here: the audit runs it in the small executable.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_RULEPRECHECK_H
#define AIMODEL_MLIR_PASSES_RULEPRECHECK_H

#include "bytecode/BytecodeReader.h"
#include "mlir-passes/RuleRunner.h"

namespace aimodel::passes {

/// What the tables show that some IR rule could report.
struct RuleEvidence {
  bool legacyCallStack = false;    ///< an AIM002-style location entry exists
  bool unverifiedLocation = false; ///< a bare op-id NameLoc or plain FusedLoc
  bool payloadString = false; ///< a string (or builtin text entry) to judge

  bool any() const {
    return legacyCallStack || unverifiedLocation || payloadString;
  }
};

RuleEvidence findRuleEvidence(const bytecode::BytecodeFile &file);

/// `rules` (IRRule bits) less those the file's tables prove cannot fire
/// (AIM002, AIM012; AIM007 is never removed: its scan decides).
unsigned rulesWithEvidence(const bytecode::BytecodeFile &file, unsigned rules);

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_RULEPRECHECK_H
