//===- RulePrecheck.cpp - Can any IR rule fire in this file? --------------===//

#include "mlir-passes/RulePrecheck.h"

#include "mlir-passes/BytecodeLocationView.h"
#include "mlir-passes/DebugPayload.h"

using namespace aimodel;
using namespace aimodel::passes;

RuleEvidence
aimodel::passes::findRuleEvidence(const bytecode::BytecodeFile &file) {
  RuleEvidence evidence;
  BytecodeLocationView view(file);
  LocationPredicates<BytecodeLocationView> predicates(view);
  for (uint64_t index = 0, e = file.attributes().size(); index < e; ++index) {
    switch (file.attrKind(index)) {
    case bytecode::AttrKind::FusedLocWithMetadata:
      evidence.legacyCallStack |= predicates.isLegacyCallStack(index);
      break;
    case bytecode::AttrKind::FusedLoc:
    case bytecode::AttrKind::NameLoc:
      evidence.unverifiedLocation |= predicates.isUnverified(index);
      break;
    case bytecode::AttrKind::Asm:
      // Builtin attributes written as text become StringAttrs MLIR sees
      // without the string table: judge them by importing.
      evidence.payloadString |= file.attrDialectName(index) == "builtin";
      break;
    default:
      break;
    }
  }
  // Every StringAttr, file name and NameLoc name is a string-table entry.
  for (llvm::StringRef str : file.strings()) {
    if (evidence.payloadString)
      break;
    evidence.payloadString = hasPayload(str);
  }
  return evidence;
}

unsigned aimodel::passes::rulesWithEvidence(const bytecode::BytecodeFile &file,
                                            unsigned rules) {
  RuleEvidence evidence = findRuleEvidence(file);
  if (!evidence.legacyCallStack)
    rules &= ~kLegacyDebugLocationRule;
  if (!evidence.unverifiedLocation)
    rules &= ~kUnverifiedLocationRule;
  // AIM007 is decided by its own scan of every byte (PayloadScan.h), which
  // sees more than these tables' strings: never narrowed here.
  return rules;
}
