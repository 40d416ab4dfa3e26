# Writes a six-layer RoPE-like graph (x1*cos - x2*sin, x2*cos + x1*sin per
# layer, the layers alike); with "swap", the sub of layer 3 has its two
# operands (two different muls) swapped.
import sys
swap = len(sys.argv) > 1
layers = 6
T = "tensor<1x16x32xf32>"
ops = []
x = "%x"
for i in range(layers):
    ops.append(f'    %c{i} = "coreai.constant"() {{value = dense<1.0> : {T}}} : () -> {T}')
    ops.append(f'    %s{i} = "coreai.constant"() {{value = dense<2.0> : {T}}} : () -> {T}')
    ops.append(f'    %x1_{i} = "coreai.slice"({x}) {{begin = 0}} : ({T}) -> {T}')
    ops.append(f'    %x2_{i} = "coreai.slice"({x}) {{begin = 16}} : ({T}) -> {T}')
    ops.append(f'    %a{i} = "coreai.mul"(%x1_{i}, %c{i}) : ({T}, {T}) -> {T}')
    ops.append(f'    %b{i} = "coreai.mul"(%x2_{i}, %s{i}) : ({T}, {T}) -> {T}')
    a, b = (f"%b{i}", f"%a{i}") if (swap and i == 3) else (f"%a{i}", f"%b{i}")
    ops.append(f'    %d{i} = "coreai.sub"({a}, {b}) : ({T}, {T}) -> {T}')
    ops.append(f'    %e{i} = "coreai.mul"(%x2_{i}, %c{i}) : ({T}, {T}) -> {T}')
    ops.append(f'    %f{i} = "coreai.mul"(%x1_{i}, %s{i}) : ({T}, {T}) -> {T}')
    ops.append(f'    %g{i} = "coreai.add"(%e{i}, %f{i}) : ({T}, {T}) -> {T}')
    ops.append(f'    %h{i} = "coreai.add"(%d{i}, %g{i}) : ({T}, {T}) -> {T}')
    x = f"%h{i}"
print('"builtin.module"() ({\n  "coreai.graph"() <{sym_name = "main"}> ({\n  ^bb0(%x: ' + T + '):')
print("\n".join(ops))
print(f'    "coreai.return"({x}) : ({T}) -> ()\n  }}) : () -> ()\n}}) : () -> ()')
