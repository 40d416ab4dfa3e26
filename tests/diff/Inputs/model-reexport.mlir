// model.mlir re-exported: no debug locations, another composite
// uniquifier, other weight values, the k projection before q. Only
// --weights digest tells it from model.mlir.
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%h: tensor<1x4x8xf32>):
    %n = "coreai.invoke"(%h) {callee = @rms_norm_p0zz81m2} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %wk = "coreai.constant"() {value = dense_resource<wk> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %k = "coreai.matmul"(%n, %wk) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
    %wq = "coreai.constant"() {value = dense_resource<wq> : tensor<8x8xf32>} : () -> tensor<8x8xf32>
    %q = "coreai.matmul"(%n, %wq) : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
    %q4 = "coreai.reshape"(%q) {shape = array<i64: 1, 4, 2, 4>} : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32>
    %k4 = "coreai.reshape"(%k) {shape = array<i64: 1, 4, 2, 4>} : (tensor<1x4x8xf32>) -> tensor<1x4x2x4xf32>
    %qt = "coreai.transpose"(%q4) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32>
    %kt = "coreai.transpose"(%k4) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x2x4xf32>) -> tensor<1x2x4x4xf32>
    %s = "coreai.matmul"(%qt, %kt) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %sc = "coreai.constant"() {value = dense<5.000000e-01> : tensor<1x2x4x4xf32>} : () -> tensor<1x2x4x4xf32>
    %ss = "coreai.mul"(%s, %sc) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %p = "coreai.softmax"(%ss) {axis = -1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %o = "coreai.reshape"(%p) {shape = array<i64: 1, 4, 8>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x8xf32>
    %r = "coreai.add"(%h, %o) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    "coreai.output"(%r) : (tensor<1x4x8xf32>) -> ()
  }) {sym_name = "main", function_type = (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>} : () -> ()
  "coreai.graph"() ({
  ^bb0(%x: tensor<1x4x8xf32>):
    %sq = "coreai.mul"(%x, %x) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %rs = "coreai.rsqrt"(%sq) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    %y = "coreai.mul"(%x, %rs) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
    "coreai.output"(%y) : (tensor<1x4x8xf32>) -> ()
  }) {sym_name = "rms_norm_p0zz81m2", function_type = (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>} : () -> ()
}) : () -> ()

{-#
  dialect_resources: {
    builtin: {
      wq: "0x04000000812FAE3E05BE383F4F22D33D1D15F83ED3B05D3F5F5C7D3E5CFD203F3FE8283CCB93C83E2AF0453FBB591E3EB33C093FF8E26A3F7912993E812F2E3F5F5C7D3D15F8E23E4F22533F4F22533ED86E163F1D15783FC376B33EA6613B3F573FE83D5F5CFD3E7454603F71F5833EFDA0233F3FE8A83C0DDBCD3ECB93483F3FE8283E54E00B3F99866D3FBB599E3E22D3303F37CB933D573FE83EF0C5553FD3B05D3E7912193FBEB87A3F05BEB83E47053E3F5F5CFD3DD051013F15F8623FB33C893E9E44263F5F5CFD3C4F22D33E6C374B3FC376333EF5830E3F3A2A703FFDA0A33EC376333F3FE8A83D9986ED3E9169583F573F683E1AB61B3F5F5C7D3F4705BE3E",
      wk: "0x04000000573FE83EF0C5553FD3B05D3E7912193FBEB87A3F05BEB83E47053E3F5F5CFD3DD051013F15F8623FB33C893E9E44263F5F5CFD3C4F22D33E6C374B3FC376333EF5830E3F3A2A703FFDA0A33EC376333F3FE8A83D9986ED3E9169583F573F683E1AB61B3F5F5C7D3F4705BE3EE8A8403FB33C093E71F5033FB69B653FF5838E3E3FE8283F3FE8283D9169D83E0DDB4D3F47053E3E9627113FDBCD723F3FE8A83E641A363F4705BE3DDBCDF23E320D5B3FDBCD723EBB591E3F00000000894CC33E894C433F37CB133E1299063F573F683F37CB933EE08B2B3F4F22533DD3B0DD3EAE7E503FCB93483E37CB133F7C71753F812FAE3E05BE383F4F22D33D1D15F83E"
    }
  }
#-}
