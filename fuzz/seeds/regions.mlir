// Seed: nested regions, successors, block arguments, isolated-from-above
// ops (stored in lazily loadable nested IR sections), forward references.
"builtin.module"() ({
  "func.func"() <{function_type = (i1, i32) -> i32, sym_name = "f"}> ({
  ^bb0(%c: i1, %v: i32):
    "cf.cond_br"(%c, %v)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  ^bb1(%a: i32):
    %r = "coreai.loop"(%a) ({
    ^bb0(%i: i32):
      %n = "coreai.next"(%i, %late) : (i32, i32) -> i32
      %late = "coreai.late"() : () -> i32
      "coreai.yield"(%n) : (i32) -> ()
    }, {
      "coreai.yield"() : () -> ()
    }) : (i32) -> i32
    "func.return"(%r) : (i32) -> ()
  ^bb2:
    "func.return"(%v) : (i32) -> ()
  }) : () -> ()
}) : () -> ()
