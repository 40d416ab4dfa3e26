// AIM007: absolute paths (and the user names in them) and source hashes,
// in locations, attributes and properties; at most three examples each;
// relative paths and short strings are not payload. Examples come in the
// order met: an op's location, then its attributes and properties.
// RUN: not aimodel-opt %s --aimodel-debug-payload -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// CHECK: warning: debug payload: 5 absolute source paths (/Users/alice/a.py, /home/bob/b.py, /opt/build/d.py, ...); 3 home-directory user names (alice, bob, carol); 1 source-file hash (9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08); in the locations of 2 ops and 1 block argument [AIM007 debug-payload]
"builtin.module"() ({
  "coreai.graph"() ({
  ^bb0(%x: tensor<2xf32> loc("/Users/alice/a.py":1:0)):
    %a = "coreai.abs"(%x) : (tensor<2xf32>) -> tensor<2xf32> loc(fused["/home/bob/b.py":2:0, "rel/x.py":3:0])
    %b = "coreai.abs"(%a) {note = "C:\\Users\\carol\\c.py"} : (tensor<2xf32>) -> tensor<2xf32> loc("x"("/opt/build/d.py":4:0))
    %c = "coreai.abs"(%b) <{src = {file = "/srv/e.py", sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}}> : (tensor<2xf32>) -> tensor<2xf32> loc("model.py":5:0)
    %d = "coreai.div"(%c, %c) {op = "/", key = "/x"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc(unknown)
    "coreai.output"(%d) : (tensor<2xf32>) -> () loc(unknown)
  }) {sym_name = "main", function_type = (tensor<2xf32>) -> tensor<2xf32>} : () -> () loc(unknown)
}) : () -> () loc(unknown)
