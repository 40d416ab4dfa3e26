// An entry graph with named inputs and outputs (coreai.name in arg_attrs
// and res_attrs), as coreai-torch writes them.
"builtin.module"() ({
  "coreai.graph"() <{function_type = (tensor<1x512xi32>) -> tensor<1x512x8xf16>, sym_name = "main", arg_attrs = [{coreai.name = "input_ids"}], res_attrs = [{coreai.name = "logits"}]}> ({
  ^bb0(%x: tensor<1x512xi32>):
    %0 = "coreai.cast"(%x) : (tensor<1x512xi32>) -> tensor<1x512x8xf16>
    "coreai.return"(%0) : (tensor<1x512x8xf16>) -> ()
  }) : () -> ()
}) : () -> ()
