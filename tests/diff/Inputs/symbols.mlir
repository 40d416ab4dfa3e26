"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: tensor<4xf32>):
    %v = "coreai.read_variable"() {variable = @kv_cache_layer000} : () -> tensor<4xf32>
    %a = "coreai.add"(%x, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = "coreai.invoke"(%a) {callee = @layer_encoder1} : (tensor<4xf32>) -> tensor<4xf32>
    %n = "coreai.invoke"(%e) {callee = @rms_norm_k3j9x0qa} : (tensor<4xf32>) -> tensor<4xf32>
    "coreai.output"(%n) : (tensor<4xf32>) -> ()
  }) : () -> ()
  "coreai.graph"() <{sym_name = "rms_norm_k3j9x0qa"}> ({
  ^bb0(%y: tensor<4xf32>):
    %s = "coreai.mul"(%y, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "coreai.output"(%s) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
