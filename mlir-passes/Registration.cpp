//===- Registration.cpp - Pass names for aimodel-opt ----------------------===//

#include "mlir-passes/Passes.h"

namespace aimodel::passes {
#define GEN_PASS_REGISTRATION
#include "mlir-passes/Passes.h.inc"
} // namespace aimodel::passes

void aimodel::passes::registerPasses() { registerAIModelPasses(); }
