// An op attribute naming a source path: strip keeps the string (the op uses
// it), so the payload stays and is reported (tests/strip/loose-ir.test).
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2xf32> loc(unknown)):
    %a = "coreai.abs"(%x) {note = "/Users/alice/a.py"} : (tensor<2xf32>) -> tensor<2xf32> loc(unknown)
    "coreai.output"(%a) : (tensor<2xf32>) -> () loc(unknown)
  }) {sym_name = "main", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> () loc(unknown)
}) : () -> () loc(unknown)
