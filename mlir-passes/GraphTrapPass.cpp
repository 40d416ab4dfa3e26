//===- GraphTrapPass.cpp - AIM015 as an MLIR pass -------------------------===//
//
// GraphTraps.h's rule over an MLIR module, for aimodel-opt and the audit's
// --force-ir-import: the same findings as over the decoded tables.
//
//===----------------------------------------------------------------------===//

#include "mlir-passes/GraphTraps.h"
#include "mlir-passes/PassSupport.h"
#include "mlir-passes/Passes.h"

namespace aimodel::passes {
#define GEN_PASS_DEF_GRAPHTRAP
#include "mlir-passes/Passes.h.inc"
} // namespace aimodel::passes

using namespace aimodel;
using namespace aimodel::passes;

namespace {

struct GraphTrapPass : impl::GraphTrapBase<GraphTrapPass> {
  explicit GraphTrapPass(FindingSink sink) : sink(std::move(sink)) {}

  void runOnOperation() override {
    GraphTrapRule rule;
    // Pre-order, as the decoded tables are: functions are met in one order.
    getOperation()->walk<mlir::WalkOrder::PreOrder>([&](mlir::Operation *op) {
      rule.visit(op->getName().getStringRef(), enclosingFunction(op));
    });
    if (std::optional<IRFinding> finding = rule.finish())
      report(getOperation(), sink, std::move(*finding));
  }

  FindingSink sink;
};

} // namespace

std::unique_ptr<mlir::Pass>
aimodel::passes::createGraphTrapPass(FindingSink sink) {
  return std::make_unique<GraphTrapPass>(std::move(sink));
}
