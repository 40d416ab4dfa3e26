//===- Passes.h - aimodel's IR rules as MLIR passes -------------*- C++ -*-===//
//
// One pass per IR audit rule (Passes.td). Without a sink a pass reports as
// MLIR diagnostics on the module (aimodel-opt); with one, as IRFindings.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_PASSES_H
#define AIMODEL_MLIR_PASSES_PASSES_H

#include "mlir-passes/Findings.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace aimodel::passes {

std::unique_ptr<mlir::Pass>
createLegacyDebugLocationPass(FindingSink sink = {});
std::unique_ptr<mlir::Pass> createDebugPayloadPass(FindingSink sink = {});
std::unique_ptr<mlir::Pass> createUnverifiedLocationPass(FindingSink sink = {});
std::unique_ptr<mlir::Pass> createGraphTrapPass(FindingSink sink = {});

/// Registers every pass by its command-line name (aimodel-opt).
void registerPasses();

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_PASSES_H
