//===- UnverifiedLocation.cpp - AIM012: builtin forms of unknown fate -----===//
//
// Whether current Core AI compilers accept a bare op-id NameLoc or a plain
// FusedLoc is not known (coreai-format.md §9 Q5); loc(unknown) has the most
// evidence. Reported so nobody ships on a guess.
//
//===----------------------------------------------------------------------===//

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
    LocationPredicates<MLIRLocationView> predicates(view);
    IRFinding finding;
    finding.ruleId = "AIM012";
    uint64_t bareIds = 0, plainFused = 0;
    FunctionCounts perFunction;
    forEachLocatedSite(getOperation(), [&](const LocatedSite &site) {
      if (!predicates.isUnverified(site.loc))
        return;
      ++(predicates.isBareOpId(site.loc) ? bareIds : plainFused);
      ++(site.isBlockArgument ? finding.blockArguments : finding.ops);
      std::string function = enclosingFunction(site.op);
      if (!function.empty())
        ++perFunction[function];
    });
    if (!finding.ops && !finding.blockArguments)
      return;
    bool one = finding.ops + finding.blockArguments == 1;
    finding.message = countPhrase(finding.ops, finding.blockArguments) +
                      (one ? " has" : " have") +
                      " a builtin location current compilers were never "
                      "shown to accept (";
    if (bareIds)
      finding.message += std::to_string(bareIds) + " bare op-id NameLoc";
    if (plainFused)
      finding.message += std::string(bareIds ? ", " : "") +
                         std::to_string(plainFused) + " plain FusedLoc";
    finding.message += ")";
    if (!perFunction.empty())
      finding.message += "; by function: " + perFunctionPhrase(perFunction);
    report(getOperation(), sink, std::move(finding));
  }

  FindingSink sink;
};

} // namespace

std::unique_ptr<mlir::Pass>
aimodel::passes::createUnverifiedLocationPass(FindingSink sink) {
  return std::make_unique<UnverifiedLocationPass>(std::move(sink));
}
