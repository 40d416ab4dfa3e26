// A module of upstream dialects (func, arith, math, cf), written in their
// custom forms: natively encoded properties in stock bytecode.
module {
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
    %c2 = arith.constant 2 : i32
    %0 = arith.addf %a, %b fastmath<fast> : tensor<4xf32>
    %1 = math.exp %0 : tensor<4xf32>
    %2 = arith.cmpi slt, %n, %c2 : i32
    %3 = arith.select %2, %0, %1 : tensor<4xf32>
    %4 = func.call @helper(%3) : (tensor<4xf32>) -> tensor<4xf32>
    return %4 : tensor<4xf32>
  }
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = arith.mulf %x, %x : tensor<4xf32>
    cf.br ^bb1(%0 : tensor<4xf32>)
  ^bb1(%y: tensor<4xf32>):
    return %y : tensor<4xf32>
  }
}
