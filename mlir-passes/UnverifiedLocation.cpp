//===- UnverifiedLocation.cpp - AIM012: builtin forms of unknown fate -----===//
//
// Whether current Core AI compilers accept a bare op-id NameLoc or a plain
// FusedLoc is not known (coreai-format.md §9 Q5); loc(unknown) has the most
// evidence. Reported so nobody ships on a guess.
//
//===----------------------------------------------------------------------===//

#include "mlir-passes/LocationRules.h"
#include "mlir-passes/MLIRLocationView.h"
#include "mlir-passes/PassSupport.h"
#include "mlir-passes/Passes.h"

#include "llvm/ADT/DenseMap.h"

namespace aimodel::passes {
#define GEN_PASS_DEF_UNVERIFIEDLOCATION
#include "mlir-passes/Passes.h.inc"
} // namespace aimodel::passes

using namespace aimodel;
using namespace aimodel::passes;

namespace {

struct UnverifiedLocationPass
    : impl::UnverifiedLocationBase<UnverifiedLocationPass> {
  explicit UnverifiedLocationPass(FindingSink sink) : sink(std::move(sink)) {}

  void runOnOperation() override {
    MLIRLocationView view;
    UnverifiedLocationRule<MLIRLocationView> rule(view);
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
aimodel::passes::createUnverifiedLocationPass(FindingSink sink) {
  return std::make_unique<UnverifiedLocationPass>(std::move(sink));
}
