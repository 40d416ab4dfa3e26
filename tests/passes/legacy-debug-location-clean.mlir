// No call-stack location: no finding, and the IR prints unchanged.
// RUN: aimodel-opt %s --aimodel-legacy-debug-location 2> %t.err | FileCheck %s
// RUN: count 0 < %t.err
// CHECK: "coreai.graph"
// CHECK: "coreai.relu"
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2xf32> loc(unknown)):
    %r = "coreai.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc(fused<{sources = ["x"]}>["a.py":1:0])
    "coreai.output"(%r) : (tensor<2xf32>) -> () loc(unknown)
  }) {sym_name = "main", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> () loc(unknown)
}) : () -> () loc(unknown)
