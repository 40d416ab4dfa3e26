// AIM002 through aimodel-opt: every way a 0.4.0 call-stack location can be
// wrapped, op and block-argument locations, nested regions, composites and
// several graphs. Exactly one finding for the module.
// RUN: not aimodel-opt %s --aimodel-legacy-debug-location -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:

// 10 ops: direct, name-wrapped, callsite callee, callsite caller, plain-fused
// wrapped, output_maps only, identifiers only, inside a nested region, and
// two in the composite. 3 block arguments: the graph's, the nested region's,
// the composite's.
// CHECK: error: 10 ops and 3 block arguments carry coreai-torch 0.4.0 call-stack locations
// CHECK-SAME: by function: @main 10, @rms_norm_k3j9x0qa 3
// CHECK-SAME: first: coreai.constant in Linear$1/Block$3/Model$1 (FX linear) at model.py:120;
// CHECK-SAME: coreai.add in Linear$1/Block$3/Model$1 (FX linear) at model.py:120;
// CHECK-SAME: coreai.mul in ReLU$1 (FX relu) at functional.py:1500
// CHECK-SAME: [AIM002 legacy-debug-location]

#cs = loc(fused<{call_stack = ["Linear$1", "Block$3", "Model$1"], identifiers = ["linear"]}>["/home/bob/proj/model.py":120:0, "coreai"("op_id":1:0)])
#relu = loc(fused<{call_stack = ["ReLU$1"], identifiers = ["relu"]}>["/home/bob/venv/torch/nn/functional.py":1500:0, "coreai"("op_id":2:0)])
#maps = loc(fused<{output_maps = [{source = {id = 3 : ui64, level = "torch", output = 0 : ui32}}]}>["coreai"("op_id":3:0)])
#ids = loc(fused<{identifiers = ["view"]}>["coreai"("op_id":4:0)])
// Not legacy: metadata without the 0.4.0 keys, or not a dictionary.
#other = loc(fused<{source = "x"}>["coreai"("op_id":5:0)])
#strmeta = loc(fused<"call_stack">["coreai"("op_id":6:0)])
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2xf32> loc(#cs)):
    %c = "coreai.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32> loc(#cs)
    %a = "coreai.add"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("add"(#cs))
    %m = "coreai.mul"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(callsite(#relu at "f.py":1:0))
    %s = "coreai.sub"(%m, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(callsite("f.py":1:0 at #relu))
    %d = "coreai.div"(%s, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(fused["g.py":2:0, #relu])
    %e = "coreai.exp"(%d) : (tensor<2xf32>) -> tensor<2xf32> loc(#maps)
    %l = "coreai.log"(%e) : (tensor<2xf32>) -> tensor<2xf32> loc(#ids)
    %n1 = "coreai.neg"(%l) : (tensor<2xf32>) -> tensor<2xf32> loc(#other)
    %n2 = "coreai.neg"(%n1) : (tensor<2xf32>) -> tensor<2xf32> loc(#strmeta)
    %r = "coreai.if"(%n2) ({
    ^bb1(%y: tensor<2xf32> loc(#relu)):
      "coreai.yield"(%y) : (tensor<2xf32>) -> () loc(#relu)
    }) : (tensor<2xf32>) -> tensor<2xf32> loc(unknown)
    %i = "coreai.invoke"(%r) {callee = @rms_norm_k3j9x0qa} : (tensor<2xf32>) -> tensor<2xf32> loc("coreai"("op_id":9:0))
    "coreai.output"(%i) : (tensor<2xf32>) -> () loc(unknown)
  }) {sym_name = "main", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> () loc(unknown)
  "coreai.graph"() ({
  ^bb0(%z: tensor<2xf32> loc(#ids)):
    %q = "coreai.sqrt"(%z) : (tensor<2xf32>) -> tensor<2xf32> loc(#cs)
    "coreai.output"(%q) : (tensor<2xf32>) -> () loc(#maps)
  }) {sym_name = "rms_norm_k3j9x0qa", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> () loc(unknown)
}) : () -> () loc(unknown)
