//===- LegacyDebugLocation.cpp - AIM002: 0.4.0 call-stack locations -------===//
//
// coreai-torch 0.4.0 located every lowered op by a builtin FusedLoc whose
// metadata names the PyTorch call stack; current Core AI compilers abort on
// it ("expected AICode versioned location, got: loc(fused<...>)"). A
// reviewer needs to know how much is affected and where in the model.
//
//===----------------------------------------------------------------------===//

#include "mlir-passes/LocationRules.h"
#include "mlir-passes/MLIRLocationView.h"
#include "mlir-passes/PassSupport.h"
#include "mlir-passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace aimodel::passes {
#define GEN_PASS_DEF_LEGACYDEBUGLOCATION
#include "mlir-passes/Passes.h.inc"
} // namespace aimodel::passes

using namespace aimodel;
using namespace aimodel::passes;

namespace {

struct LegacyDebugLocationPass
    : impl::LegacyDebugLocationBase<LegacyDebugLocationPass> {
  explicit LegacyDebugLocationPass(FindingSink sink) : sink(std::move(sink)) {}

  void runOnOperation() override {
    MLIRLocationView view;
    LegacyLocationRule<MLIRLocationView> rule(view);
    forEachLocatedSite(getOperation(), [&](const LocatedSite &site) {
      rule.visit(site.loc, site.op->getName().getStringRef(),
                 enclosingFunction(site.op), site.isBlockArgument);
    });
    if (std::optional<IRFinding> finding = rule.finish())
      report(getOperation(), sink, std::move(*finding));
  }

  FindingSink sink;
};

} // namespace

std::unique_ptr<mlir::Pass>
aimodel::passes::createLegacyDebugLocationPass(FindingSink sink) {
  return std::make_unique<LegacyDebugLocationPass>(std::move(sink));
}
