// Seed: the coreai-torch 0.4.0 location forms (fused with metadata, name,
// file:line:col, callsite, file ranges) on generic unregistered ops.
#loc_add = loc(fused<{call_stack = ["Linear$1", "Tiny$1"], identifiers = ["linear"]}>["/a/linear.py":125:0, "/a/model.py":18:0, "coreai"("op_id":1:0), "torch"("op_id":3:0)])
#loc_cs = loc(callsite("f"("x.py":1:2) at "g"("y.py":3:4)))
#loc_rng = loc("r.py":1:2 to 3:4)
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2x3xf32> loc("arg0"), %y: i32 loc(unknown)):
    %w = "coreai.constant"() {value = dense<5.000000e-01> : tensor<2x3xf32>} : () -> tensor<2x3xf32> loc("coreai"("op_id":0:0))
    %s = "coreai.add"(%x, %w) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc(#loc_add)
    %c = "coreai.call"(%s) {callee = @foo::@bar} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(#loc_cs)
    %r = "coreai.relu"(%c) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(#loc_rng)
    "coreai.output"(%r) : (tensor<2x3xf32>) -> () loc(fused["a.py":1:1, unknown])
  }) {sym_name = "main", function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>} : () -> () loc(unknown)
}) : () -> () loc(unknown)
