#!/usr/bin/env python3
"""Writes the MLIR text of a realistic small Core AI asset for bench-audit.

  gen_small_ir.py OUT.mlir --form legacy|release --variant N

One "coreai.graph" of 87 generic coreai ops, the shape a small exported
model has: six blocks of an RMS norm (mul, reduce_mean, add, rsqrt, mul by
a norm weight), a matmul by a dense f16 weight, reshape, transpose, reshape
back and a residual add; constants inline as dense hex literals, so
`mlir-opt-22 --emit-bytecode` makes a 12-15 KB mlirb. --form legacy locates
every lowered op as coreai-torch 0.4.0 does (a FusedLoc with its
{call_stack, identifiers} and absolute source paths; constants bare),
--form release with bare "coreai"("op_id":N:0) locations only (RELEASE
mode). --variant picks the weights' bytes and the matmul width, so
variants differ in content and size. Deterministic.
"""
import argparse
import random

BLOCKS = 6
OPS = 87


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--form", choices=["legacy", "release"], required=True)
    parser.add_argument("--variant", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(1000 + args.variant)
    # Matmul widths that spread the files over 12-15 KB (the legacy form's
    # locations take ~2.3 KB more).
    width = (20 if args.form == "legacy" else 25) + args.variant % 7
    act = "tensor<4x32xf16>"
    wide = f"tensor<4x{width}xf16>"
    lines = []
    op_id = 0

    def loc(module, function, line):
        nonlocal op_id
        op_id += 1
        if args.form == "release" or module is None:
            return f'loc("coreai"("op_id":{op_id}:0))'
        return ('loc(fused<{call_stack = ["%s$%d", "Block$%d", "TinyLM$1"], '
                'identifiers = ["%s"]}>["/Users/alice/miniconda3/lib/python3.11/'
                'site-packages/torch/nn/%s.py":%d:0, "/Users/alice/projects/'
                'tinylm/model.py":%d:0, "coreai"("op_id":%d:0), '
                '"torch"("op_id":%d:0)])' %
                (module, block + 1, block + 1, function, module.lower(), line,
                 40 + block * 3, op_id, op_id + 2))

    def hexdata(count):
        return "0x" + rng.randbytes(count * 2).hex().upper()

    def op(result, name, operands, types, out, attrs="", where=None):
        operand_text = ", ".join(operands)
        attr_text = f" {{{attrs}}}" if attrs else ""
        lhs = f"{result} = " if result else ""
        lines.append(f'    {lhs}"{name}"({operand_text}){attr_text} : '
                     f'({", ".join(types)}) -> {out} {loc(*where) if where else loc(None, "", 0)}')

    lines.append('"builtin.module"() ({')
    lines.append('  "coreai.graph"() ({')
    lines.append(f'  ^bb0(%x: {act} loc(unknown)):')
    op("%eps", "coreai.constant", [], [], "tensor<1xf16>",
       "value = dense<9.997550e-06> : tensor<1xf16>")
    h = "%x"
    for block in range(BLOCKS):
        b = f"b{block}"
        norm = ("RMSNorm", "rms_norm", 60)
        op(f"%{b}nw", "coreai.constant", [], [], "tensor<32xf16>",
           f'value = dense<"{hexdata(32)}"> : tensor<32xf16>')
        op(f"%{b}sq", "coreai.mul", [h, h], [act, act], act, where=norm)
        op(f"%{b}mean", "coreai.reduce_mean", [f"%{b}sq"], [act], "tensor<4x1xf16>",
           "axes = [-1], keep_dims = true", where=norm)
        op(f"%{b}ve", "coreai.decomposable.broadcasting_add", [f"%{b}mean", "%eps"],
           ["tensor<4x1xf16>", "tensor<1xf16>"], "tensor<4x1xf16>", where=norm)
        op(f"%{b}rs", "coreai.rsqrt", [f"%{b}ve"], ["tensor<4x1xf16>"],
           "tensor<4x1xf16>", where=norm)
        op(f"%{b}n", "coreai.decomposable.broadcasting_mul", [h, f"%{b}rs"],
           [act, "tensor<4x1xf16>"], act, where=norm)
        op(f"%{b}nn", "coreai.decomposable.broadcasting_mul", [f"%{b}n", f"%{b}nw"],
           [act, "tensor<32xf16>"], act, where=norm)
        linear = ("Linear", "linear", 125)
        op(f"%{b}w", "coreai.constant", [], [], f"tensor<32x{width}xf16>",
           f'value = dense<"{hexdata(32 * width)}"> : tensor<32x{width}xf16>')
        op(f"%{b}mm", "coreai.matmul", [f"%{b}nn", f"%{b}w"],
           [act, f"tensor<32x{width}xf16>"], wide,
           "transpose_lhs = false, transpose_rhs = false", where=linear)
        view = ("Functional", "view", 1200 + block)
        op(f"%{b}r", "coreai.reshape", [f"%{b}mm"], [wide], f"tensor<2x2x{width}xf16>",
           f"shape = [2, 2, {width}]", where=view)
        op(f"%{b}t", "coreai.transpose", [f"%{b}r"], [f"tensor<2x2x{width}xf16>"],
           f"tensor<2x2x{width}xf16>", "perm = [1, 0, 2]", where=view)
        op(f"%{b}f", "coreai.reshape", [f"%{b}t"], [f"tensor<2x2x{width}xf16>"], wide,
           f"shape = [4, {width}]", where=view)
        op(f"%{b}sl", "coreai.slice", [f"%{b}f"], [wide], act,
           "begin = [0, 0], end = [4, 32]", where=view)
        op(f"%{b}o", "coreai.add", [h, f"%{b}sl"], [act, act], act,
           where=("Block", "residual", 88))
        h = f"%{b}o"
    op("%sm", "coreai.softmax", [h], [act], act, "axis = -1",
       where=("Functional", "softmax", 2140))
    op(None, "coreai.output", ["%sm"], [act], "()")
    lines.append('  }) {sym_name = "main", function_type = (' + act + ') -> ' + act +
                 '} : () -> () loc(unknown)')
    lines.append('}) : () -> () loc(unknown)')
    if op_id != OPS:
        raise SystemExit(f"gen_small_ir.py: {op_id} ops, not {OPS}")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
