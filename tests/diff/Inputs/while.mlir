"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>, %unused: tensor<2xf32>):
    %c = "coreai.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %w:2 = "coreai.while"(%c, %x) ({
    ^bb0(%i: tensor<f32>, %acc: tensor<4xf32>):
      %n = "coreai.neg"(%acc) : (tensor<4xf32>) -> tensor<4xf32>
      %e = "coreai.exp"(%n) : (tensor<4xf32>) -> tensor<4xf32>
      %j = "coreai.add"(%i, %i) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "coreai.yield"(%j, %e) : (tensor<f32>, tensor<4xf32>) -> ()
    }) : (tensor<f32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
    %r = "coreai.abs"(%w#1) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.return"(%r) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
