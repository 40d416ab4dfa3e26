//===- MLIRAudit.h - IR rule passes across the module boundary -*- C++ -*-===//
//
// `audit` runs in the small executable; the IR rules are MLIR passes, so they
// run in the aimodel-mlir module (see MLIRCommands.h), one file per call.
// Only C types cross: the findings come back as a JSON array.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TOOLS_AIMODEL_MLIRAUDIT_H
#define AIMODEL_TOOLS_AIMODEL_MLIRAUDIT_H

extern "C" {

struct AIModelIRRulesRequest {
  int fd;           ///< a bytecode file, opened by the caller (not consumed)
  const char *name; ///< for messages
  unsigned rules;   ///< passes::IRRule bits
  int narrow; ///< nonzero: only the rules the decoded tables show evidence for
};

/// Returns 0 with `*result` a JSON array of findings ({"rule", "message",
/// "ops", "block_arguments", "examples"}), or 2 with `*result` the error
/// message. `*result` is malloc'd; the caller frees it. Thread-safe.
typedef int (*AIModelRunIRRulesFn)(const AIModelIRRulesRequest *request,
                                   char **result);

#define AIMODEL_RUN_IR_RULES_SYMBOL "aimodelRunIRRules"
}

#endif // AIMODEL_TOOLS_AIMODEL_MLIRAUDIT_H
