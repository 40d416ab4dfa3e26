"builtin.module"() ({
  "coreai.graph"() <{sym_name = "main"}> ({
  ^bb0(%x: f32):
    %0 = "coreai.norm"(%x) {epsilon = 1.0e-05 : f32} : (f32) -> f32
    "coreai.return"(%0) : (f32) -> ()
  }) : () -> ()
}) : () -> ()
