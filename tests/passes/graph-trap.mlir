// AIM015: op kinds public reports say misbehave, by the last part of the op
// name (the portable IR's coreai.*, the GPU delegate's mps.*), in any graph;
// look-alike names (floor_divide, rounding) are not these kinds.
// RUN: not aimodel-opt %s --aimodel-graph-trap -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: remark: 5 ops of kinds public reports say misbehave on some compute units (ceil 1, floor 1, metal4_kernel 1, round 1, truncate 1); by function: @main 3, @helper_k3j9x0qa 2; floor, trunc and ceil execute as the identity on the GPU delegate (apple/coreai-torch#10); round rounds ties away from zero on the GPU delegate, unlike torch (half to even) (apple/coreai-torch#10); a custom Metal kernel runs on the GPU only ({{.*}}); community-reported, not verified here [AIM015 graph-trap]
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2xf32>):
    %a = "coreai.floor"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    %b = "mps.truncate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    %c = "coreai.decomposable.broadcasting_floor_divide"(%b, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %d = "coreai.rounding"(%c) : (tensor<2xf32>) -> tensor<2xf32>
    %e = "coreai.metal4_kernel"(%d) : (tensor<2xf32>) -> tensor<2xf32>
    %f = "coreai.invoke"(%e) {callee = @helper_k3j9x0qa} : (tensor<2xf32>) -> tensor<2xf32>
    "coreai.output"(%f) : (tensor<2xf32>) -> ()
  }) {sym_name = "main", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()
  "coreai.graph"() ({
  ^bb0(%y: tensor<2xf32>):
    %g = "mps.ceil"(%y) : (tensor<2xf32>) -> tensor<2xf32>
    %h = "coreai.round"(%g) : (tensor<2xf32>) -> tensor<2xf32>
    "coreai.output"(%h) : (tensor<2xf32>) -> ()
  }) {sym_name = "helper_k3j9x0qa", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> ()
}) : () -> ()
