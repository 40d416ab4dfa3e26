//===- MLIRAudit.h - IR rule passes across the module boundary -*- C++ -*-===//
//
// `audit` runs the IR rules over the decoded tables in the small
// executable; under --force-ir-import it runs them as MLIR passes over an
// import instead, in the aimodel-mlir module (see MLIRCommands.h), one file
// per call. Only C types cross: the findings come back as a JSON array.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TOOLS_AIMODEL_MLIRAUDIT_H
#define AIMODEL_TOOLS_AIMODEL_MLIRAUDIT_H

extern "C" {

struct AIModelIRRulesRequest {
  int fd;           ///< a bytecode file, opened by the caller (not consumed)
  const char *name; ///< for messages
  unsigned rules;   ///< passes::IRRule bits
};

/// Returns 0 with `*result` a JSON array of findings ({"rule", "message",
/// "ops", "block_arguments", "examples"}), or 2 with `*result` the error
/// message. `*result` is malloc'd; the caller frees it. Thread-safe.
typedef int (*AIModelRunIRRulesFn)(const AIModelIRRulesRequest *request,
                                   char **result);

#define AIMODEL_RUN_IR_RULES_SYMBOL "aimodelRunIRRules"
}

#endif // AIMODEL_TOOLS_AIMODEL_MLIRAUDIT_H
