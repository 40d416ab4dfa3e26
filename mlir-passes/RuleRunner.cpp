//===- RuleRunner.cpp - Running the IR rule passes on one file ------------===//

#include "mlir-passes/RuleRunner.h"

#include "ir/IRImport.h"
#include "mlir-passes/Passes.h"
#include "mlir-passes/PayloadScan.h"

#include "mlir/Pass/PassManager.h"

#include <algorithm>

using namespace aimodel;
using namespace aimodel::passes;

llvm::Expected<std::vector<IRFinding>>
aimodel::passes::runIRRules(const bytecode::BytecodeFile &file,
                            unsigned rules) {
  std::vector<IRFinding> findings;
  // AIM007 judges every byte of the file, not what MLIR sees: from the
  // decoded tables, without an import.
  if (rules & kDebugPayloadRule)
    if (std::optional<IRFinding> payload = debugPayloadFinding(file))
      findings.push_back(std::move(*payload));
  rules &= ~unsigned(kDebugPayloadRule);
  if (!rules)
    return findings;
  // A context per file: nothing uniqued for one file outlives it, and calls
  // from several threads share nothing.
  auto context = ir::makeImportContext();
  llvm::Expected<ir::ImportedModule> imported = ir::importBytecode(
      file, *context, ir::ImportOptions{/*withResourceData=*/false});
  if (!imported)
    return imported.takeError();

  FindingSink sink = [&](IRFinding finding) {
    findings.push_back(std::move(finding));
  };
  mlir::PassManager pm(context.get());
  if (rules & kLegacyDebugLocationRule)
    pm.addPass(createLegacyDebugLocationPass(sink));
  if (rules & kUnverifiedLocationRule)
    pm.addPass(createUnverifiedLocationPass(sink));
  if (rules & kGraphTrapRule)
    pm.addPass(createGraphTrapPass(sink));
  if (mlir::failed(pm.run(*imported->module)))
    return llvm::createStringError("the IR rule passes failed");
  std::stable_sort(findings.begin(), findings.end(),
                   [](const IRFinding &a, const IRFinding &b) {
                     return a.ruleId < b.ruleId;
                   });
  return findings;
}
