// AIM012: bare op-id NameLocs and plain FusedLocs, on ops and block
// arguments (a one-element fused location is its element); NameLocs of other names, other children or other columns are
// not the 0.4.0 id form.
// RUN: not aimodel-opt %s --aimodel-unverified-location -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: warning: 3 ops and 1 block argument have a builtin location current compilers were never shown to accept (2 bare op-id NameLoc, 2 plain FusedLoc); by function: @main 4 [AIM012 unverified-location]
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2xf32> loc(fused["a.py":1:0, "b.py":2:0])):
    %a = "coreai.abs"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc("coreai"("op_id":1:0))
    %b = "coreai.abs"(%a) : (tensor<2xf32>) -> tensor<2xf32> loc("torch"("op_id":2:0))
    %c = "coreai.abs"(%b) : (tensor<2xf32>) -> tensor<2xf32> loc(fused["a.py":1:0, "c.py":3:0])
    %d = "coreai.abs"(%c) : (tensor<2xf32>) -> tensor<2xf32> loc("other"("op_id":3:0))
    %e = "coreai.abs"(%d) : (tensor<2xf32>) -> tensor<2xf32> loc("coreai"("op_id":3:7))
    %f = "coreai.abs"(%e) : (tensor<2xf32>) -> tensor<2xf32> loc("coreai"("file.py":3:0))
    %g = "coreai.abs"(%f) : (tensor<2xf32>) -> tensor<2xf32> loc("a.py":1:0)
    "coreai.output"(%g) : (tensor<2xf32>) -> () loc(unknown)
  }) {sym_name = "main", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> () loc(unknown)
}) : () -> () loc(unknown)
