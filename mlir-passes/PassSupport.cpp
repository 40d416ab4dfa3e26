//===- PassSupport.cpp - What the IR rule passes share --------------------===//

#include "mlir-passes/PassSupport.h"

#include "audit/Rules.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

using namespace aimodel;
using namespace aimodel::passes;

void aimodel::passes::forEachLocatedSite(
    mlir::ModuleOp module,
    llvm::function_ref<void(const LocatedSite &)> visit) {
  module->walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
    visit({op, op->getLoc(), /*isBlockArgument=*/false});
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          visit({op, arg.getLoc(), /*isBlockArgument=*/true});
  });
}

/// The `sym_name` of `op`: an inherent or discardable attribute, or a member
/// of an unregistered op's properties dictionary.
static mlir::StringAttr symbolNameOf(mlir::Operation *op) {
  if (auto name = op->getAttrOfType<mlir::StringAttr>("sym_name"))
    return name;
  if (auto props = llvm::dyn_cast_or_null<mlir::DictionaryAttr>(
          op->getPropertiesAsAttribute()))
    return props.getAs<mlir::StringAttr>("sym_name");
  return {};
}

std::string aimodel::passes::enclosingFunction(mlir::Operation *op) {
  for (; op; op = op->getParentOp())
    if (mlir::StringAttr name = symbolNameOf(op))
      if (!llvm::isa<mlir::ModuleOp>(op))
        return ("@" + name.getValue()).str();
  return "";
}

void aimodel::passes::report(mlir::ModuleOp module, const FindingSink &sink,
                             IRFinding finding) {
  if (sink) {
    sink(std::move(finding));
    return;
  }
  const audit::Rule *rule = audit::findRule(finding.ruleId);
  std::string text = rule ? llvm::formatv("{0} [{1} {2}]", finding.message,
                                          rule->id, rule->name)
                                .str()
                          : finding.message;
  mlir::Location loc = mlir::UnknownLoc::get(module.getContext());
  switch (rule ? rule->severity : audit::Severity::Error) {
  case audit::Severity::Error:
    mlir::emitError(loc) << text;
    break;
  case audit::Severity::Warning:
    mlir::emitWarning(loc) << text;
    break;
  case audit::Severity::Info:
    mlir::emitRemark(loc) << text;
    break;
  }
}
