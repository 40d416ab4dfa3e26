//===- Passes.td - aimodel's IR rules as MLIR passes -------*- tablegen -*-===//
//
// Each audit rule that looks inside the IR is one pass here, run alone by
// aimodel-opt and together by `aimodel audit`. They only read the IR.
//
//===----------------------------------------------------------------------===//

#ifndef AIMODEL_MLIR_PASSES_TD
#define AIMODEL_MLIR_PASSES_TD

include "mlir/Pass/PassBase.td"

def LegacyDebugLocation : Pass<"aimodel-legacy-debug-location", "mlir::ModuleOp"> {
  let summary = "AIM002: find coreai-torch 0.4.0 fused call-stack locations";
  let description = [{
    Reports op and block-argument locations that are, or contain through
    CallSiteLoc / NameLoc / plain FusedLoc wrappers, a builtin FusedLoc whose
    metadata dictionary has `call_stack`, `identifiers` or `output_maps`:
    current Core AI compilers abort on them. One finding for the module:
    counts, counts per function, and the first few with their PyTorch module
    path, FX node and innermost source line.
  }];
  let constructor = "aimodel::passes::createLegacyDebugLocationPass()";
}

def DebugPayload : Pass<"aimodel-debug-payload", "mlir::ModuleOp"> {
  let summary = "AIM007: find absolute paths, user names and source hashes";
  let description = [{
    Reports the strings anywhere in the IR (locations, attributes,
    properties) that a shipping asset should not carry: absolute source
    paths, home-directory user names and SHA-256 hashes of source files.
    What and how many, with at most three examples of each.
  }];
  let constructor = "aimodel::passes::createDebugPayloadPass()";
}

def UnverifiedLocation : Pass<"aimodel-unverified-location", "mlir::ModuleOp"> {
  let summary = "AIM012: find builtin location forms of unknown acceptance";
  let description = [{
    Reports op and block-argument locations that are a bare
    `NameLoc("coreai"|"torch", "op_id":N:0)` or a plain FusedLoc: builtin
    forms that current Core AI compilers were never shown to accept.
  }];
  let constructor = "aimodel::passes::createUnverifiedLocationPass()";
}

def GraphTrap : Pass<"aimodel-graph-trap", "mlir::ModuleOp"> {
  let summary = "AIM015: find op kinds public reports say misbehave";
  let description = [{
    Reports ops whose kind (the last part of the op name) public reports say
    computes wrongly or cannot run on some compute units: floor, trunc, ceil
    (identity on the GPU delegate), round (ties away from zero there),
    custom Metal kernels (GPU only). Counts per kind and per function, with
    where each report is (GraphTraps.h holds the table).
  }];
  let constructor = "aimodel::passes::createGraphTrapPass()";
}

#endif // AIMODEL_MLIR_PASSES_TD
