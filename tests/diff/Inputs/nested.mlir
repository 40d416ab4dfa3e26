"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %a = "coreai.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.output"(%a) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "builtin.module"() ({
    "coreai.graph"() <{sym_name = "main"}> ({
    ^bb0(%x: tensor<4xf32>):
      %b = "coreai.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      "coreai.output"(%b) : (tensor<4xf32>) -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()
