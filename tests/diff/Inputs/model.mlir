// A small LLM-like graph as coreai-torch 0.4.0 saves it (DEBUG): FusedLoc
// call stacks with source lines, a composite called through coreai.invoke.
#norm = loc(fused<{call_stack = ["RMSNorm$1", "Block$1", "Model$1"], identifiers = ["norm"]}>["/Users/alice/llm/model.py":40:0, "coreai"("op_id":1:0)])
#wq = loc(fused<{call_stack = ["Linear$1", "Attention$1", "Block$1", "Model$1"], identifiers = ["q_proj"]}>["/Users/alice/llm/model.py":118:0, "coreai"("op_id":2:0)])
#q = loc(fused<{call_stack = ["Linear$1", "Attention$1", "Block$1", "Model$1"], identifiers = ["q_proj"]}>["/Users/alice/llm/model.py":118:0, "coreai"("op_id":3:0)])
#wk = loc(fused<{call_stack = ["Linear$2", "Attention$1", "Block$1", "Model$1"], identifiers = ["k_proj"]}>["/Users/alice/llm/model.py":119:0, "coreai"("op_id":4:0)])
#k = loc(fused<{call_stack = ["Linear$2", "Attention$1", "Block$1", "Model$1"], identifiers = ["k_proj"]}>["/Users/alice/llm/model.py":119:0, "coreai"("op_id":5:0)])
#view = loc(fused<{call_stack = ["Attention$1", "Block$1", "Model$1"], identifiers = ["view"]}>["/Users/alice/llm/model.py":120:0, "coreai"("op_id":6:0)])
#tr = loc(fused<{call_stack = ["Attention$1", "Block$1", "Model$1"], identifiers = ["transpose"]}>["/Users/alice/llm/model.py":121:0, "coreai"("op_id":7:0)])
#s = loc(fused<{call_stack = ["Attention$1", "Block$1", "Model$1"], identifiers = ["scores"]}>["/Users/alice/llm/model.py":122:0, "coreai"("op_id":8:0)])
#sc = loc(fused<{call_stack = ["Attention$1", "Block$1", "Model$1"], identifiers = ["scale"]}>["/Users/alice/llm/model.py":123:0, "coreai"("op_id":9:0)])
#ss = loc(fused<{call_stack = ["Attention$1", "Block$1", "Model$1"], identifiers = ["scale"]}>["/Users/alice/llm/model.py":123:0, "coreai"("op_id":10:0)])
#p = loc(fused<{call_stack = ["Attention$1", "Block$1", "Model$1"], identifiers = ["softmax"]}>["/Users/alice/llm/model.py":124:0, "coreai"("op_id":11:0)])
#res = loc(fused<{call_stack = ["Block$1", "Model$1"], identifiers = ["residual"]}>["/Users/alice/llm/model.py":130:0, "coreai"("op_id":12:0)])
#out = loc("coreai"("op_id":13:0))
#r1 = loc(fused<{call_stack = ["RMSNorm$1", "Model$1"], identifiers = ["sq"]}>["/Users/alice/llm/norm.py":10:0, "coreai"("op_id":20:0)])
#r2 = loc(fused<{call_stack = ["RMSNorm$1", "Model$1"], identifiers = ["rsqrt"]}>["/Users/alice/llm/norm.py":11:0, "coreai"("op_id":21:0)])
#r3 = loc(fused<{call_stack = ["RMSNorm$1", "Model$1"], identifiers = ["mul"]}>["/Users/alice/llm/norm.py":12:0, "coreai"("op_id":22:0)])
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%h: tensor<1x4x8xf32> loc(unknown)):
    %n = "coreai.invoke"(%h) {callee = @rms_norm_k3j9x0qa} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32> loc(#norm)
    %wq = "coreai.constant"() {value = dense_resource<wq> : tensor<8x8xf32>} : () -> tensor<8x8xf32> loc(#wq)
    %q = "coreai.matmul"(%n, %wq) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32> loc(#q)
    %wk = "coreai.constant"() {value = dense_resource<wk> : tensor<8x8xf32>} : () -> tensor<8x8xf32> loc(#wk)
    %k = "coreai.matmul"(%n, %wk) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32> loc(#k)
    %q4 = "coreai.reshape"(%q) {shape = array<i64: 1, 4, 2, 4>} : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32> loc(#view)
    %k4 = "coreai.reshape"(%k) {shape = array<i64: 1, 4, 2, 4>} : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32> loc(#view)
    %qt = "coreai.transpose"(%q4) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32> loc(#tr)
    %kt = "coreai.transpose"(%k4) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32> loc(#tr)
    %s = "coreai.matmul"(%qt, %kt) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc(#s)
    %sc = "coreai.constant"() {value = dense<5.000000e-01> : tensor<1x2x4x4xf32>} : () -> tensor<1x2x4x4xf32> loc(#sc)
    %ss = "coreai.mul"(%s, %sc) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc(#ss)
    %p = "coreai.softmax"(%ss) {axis = -1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc(#p)
    %o = "coreai.reshape"(%p) {shape = array<i64: 1, 4, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x8xf32> loc(#view)
    %r = "coreai.add"(%h, %o) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32> loc(#res)
    "coreai.output"(%r) : (tensor<1x4x8xf32>) -> () loc(#out)
  }) {sym_name = "main", function_type = (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>} : () -> () loc(unknown)
  "coreai.graph"() ({
  ^bb0(%x: tensor<1x4x8xf32> loc(unknown)):
    %sq = "coreai.mul"(%x, %x) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32> loc(#r1)
    %rs = "coreai.rsqrt"(%sq) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32> loc(#r2)
    %y = "coreai.mul"(%x, %rs) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32> loc(#r3)
    "coreai.output"(%y) : (tensor<1x4x8xf32>) -> () loc(#r3)
  }) {sym_name = "rms_norm_k3j9x0qa", function_type = (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>} : () -> () loc(unknown)
}) : () -> () loc(unknown)

{-#
  dialect_resources: {
    builtin: {
      wq: "0x04000000573FE83D5F5CFD3E7454603F71F5833EFDA0233F3FE8A83C0DDBCD3ECB93483F3FE8283E54E00B3F99866D3FBB599E3E22D3303F37CB933D573FE83EF0C5553FD3B05D3E7912193FBEB87A3F05BEB83E47053E3F5F5CFD3DD051013F15F8623FB33C893E9E44263F5F5CFD3C4F22D33E6C374B3FC376333EF5830E3F3A2A703FFDA0A33EC376333F3FE8A83D9986ED3E9169583F573F683E1AB61B3F5F5C7D3F4705BE3EE8A8403FB33C093E71F5033FB69B653FF5838E3E3FE8283F3FE8283D9169D83E0DDB4D3F47053E3E9627113FDBCD723F3FE8A83E641A363F4705BE3DDBCDF23E320D5B3FDBCD723EBB591E3F00000000894CC33E894C433F37CB133E",
      wk: "0x04000000573F683E1AB61B3F5F5C7D3F4705BE3EE8A8403FB33C093E71F5033FB69B653FF5838E3E3FE8283F3FE8283D9169D83E0DDB4D3F47053E3E9627113FDBCD723F3FE8A83E641A363F4705BE3DDBCDF23E320D5B3FDBCD723EBB591E3F00000000894CC33E894C433F37CB133E1299063F573F683F37CB933EE08B2B3F4F22533DD3B0DD3EAE7E503FCB93483E37CB133F7C71753F812FAE3E05BE383F4F22D33D1D15F83ED3B05D3F5F5C7D3E5CFD203F3FE8283CCB93C83E2AF0453FBB591E3EB33C093FF8E26A3F7912993E812F2E3F5F5C7D3D15F8E23E4F22533F4F22533ED86E163F1D15783FC376B33EA6613B3F573FE83D5F5CFD3E7454603F71F5833E"
    }
  }
#-}
