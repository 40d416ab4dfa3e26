//===- TableRules.cpp - The IR rules over the decoded tables --------------===//

#include "mlir-passes/TableRules.h"

#include "bytecode/Symbols.h"
#include "mlir-passes/BytecodeLocationView.h"
#include "mlir-passes/GraphTraps.h"
#include "mlir-passes/LocationRules.h"
#include "mlir-passes/PayloadScan.h"
#include "mlir-passes/RuleRunner.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::passes;
using bytecode::BytecodeFile;
using bytecode::kNoIndex;
using bytecode::kNone;

namespace {

/// Per op: "@name" of the nearest op enclosing it (itself included) whose
/// symbol name can be read, not a builtin.module; "" when there is none. As
/// an MLIR import shows names (not from natively encoded properties), so
/// the passes name the same functions. The table is in pre-order: a parent
/// comes before its ops.
std::vector<std::string> enclosingFunctions(const BytecodeFile &file) {
  auto ops = file.operations();
  std::vector<std::string> out(ops.size());
  for (uint32_t i = 0; i < ops.size(); ++i) {
    const bytecode::OpName &name = file.opNames()[ops[i].name];
    bool module = name.name == "module" &&
                  file.dialects()[name.dialect].name == "builtin";
    std::optional<llvm::StringRef> symbol =
        module ? std::nullopt
               : bytecode::symbolName(file, ops[i],
                                      /*fromNativeProperties=*/false);
    if (symbol) {
      out[i] = "@" + symbol->str();
      continue;
    }
    uint32_t parent = bytecode::parentOp(file, ops[i]);
    if (parent != kNoIndex)
      out[i] = out[parent];
  }
  return out;
}

} // namespace

std::vector<IRFinding> aimodel::passes::runTableRules(const BytecodeFile &file,
                                                      unsigned rules) {
  std::vector<IRFinding> findings;
  bool legacy = rules & kLegacyDebugLocationRule;
  bool unverified = rules & kUnverifiedLocationRule;
  std::vector<std::string> functions, opNames;
  if (legacy || unverified || (rules & kGraphTrapRule)) {
    functions = enclosingFunctions(file);
    // "dialect.op" once per name, not per op.
    for (uint32_t n = 0; n < file.opNames().size(); ++n)
      opNames.push_back(file.fullOpName(n));
  }
  if (legacy || unverified) {
    BytecodeLocationView view(file);
    LegacyLocationRule<BytecodeLocationView> legacyRule(view);
    UnverifiedLocationRule<BytecodeLocationView> unverifiedRule(view);
    auto ops = file.operations();
    // The order the passes walk an import in: each op, then the arguments
    // of its regions' blocks, then the ops inside.
    auto visit = [&](uint64_t loc, llvm::StringRef opName,
                     const std::string &function, bool isBlockArgument) {
      if (loc == kNone) // an elided location: loc(unknown)
        return;
      if (legacy)
        legacyRule.visit(loc, opName, function, isBlockArgument);
      if (unverified)
        unverifiedRule.visit(loc, opName, function, isBlockArgument);
    };
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const std::string &opName = opNames[ops[i].name];
      visit(ops[i].location, opName, functions[i], false);
      for (uint32_t region : file.opRegions(ops[i]))
        for (uint32_t block : file.regions()[region].blocks)
          for (const bytecode::BlockArgument &arg :
               file.blocks()[block].arguments)
            visit(arg.location, opName, functions[i], true);
    }
    if (legacy)
      if (std::optional<IRFinding> finding = legacyRule.finish())
        findings.push_back(std::move(*finding));
    if (unverified)
      if (std::optional<IRFinding> finding = unverifiedRule.finish())
        findings.push_back(std::move(*finding));
  }
  if (rules & kDebugPayloadRule)
    if (std::optional<IRFinding> payload = debugPayloadFinding(file))
      findings.push_back(std::move(*payload));
  if (rules & kGraphTrapRule) {
    // Whether an op is a trap depends on its name alone: decided per name.
    std::vector<bool> isTrap;
    for (const std::string &name : opNames) {
      llvm::StringRef kind;
      isTrap.push_back(graphTrapOf(name, kind) != nullptr);
    }
    GraphTrapRule rule;
    auto ops = file.operations();
    for (uint32_t i = 0; i < ops.size(); ++i)
      if (isTrap[ops[i].name])
        rule.visit(opNames[ops[i].name], functions[i]);
    if (std::optional<IRFinding> finding = rule.finish())
      findings.push_back(std::move(*finding));
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const IRFinding &a, const IRFinding &b) {
                     return a.ruleId < b.ruleId;
                   });
  return findings;
}
