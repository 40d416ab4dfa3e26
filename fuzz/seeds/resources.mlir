// Seed: dense_resource weights, an aligned blob, bool/string-ish attrs.
"builtin.module"() ({
  %w0 = "coreai.constant"() {value = dense_resource<w_0> : tensor<4xf32>} : () -> tensor<4xf32>
  %w1 = "coreai.constant"() {value = dense_resource<w_1> : tensor<2xi8>} : () -> tensor<2xi8>
  %a = "coreai.mul"(%w0, %w0) {flag = true, n = 7 : i64, f = 1.5 : f16, s = "text", arr = [1, 2.0 : f32, "x"], da = array<i32: 1, 2, 3>, u} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "coreai.output"(%a, %w1) : (tensor<4xf32>, tensor<2xi8>) -> ()
}) : () -> ()
{-#
  dialect_resources: {
    builtin: {
      w_0: "0x100000000000803F000000400000404000008040",
      w_1: "0x010000000102"
    }
  }
#-}
