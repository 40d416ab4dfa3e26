#!/usr/bin/env python3
"""Writes an LLM-like pair of graphs for scripts/bench-diff.

  gen_diff_pair.py OUT_DIR --ops N [--seed S]

Writes OUT_DIR/golden.mlir, OUT_DIR/new.mlir (generic MLIR text; the caller
turns them into bytecode with mlir-opt-22) and OUT_DIR/edits.json, the
seeded edits and the change `aimodel diff --format json` must report for
each. Python 3 stdlib only.

The graphs: one "coreai.graph" @main of transformer blocks (RMS norm and
SiLU as composites called with "coreai.invoke", q/k/v projections,
reshape, transpose, matmul, scale, softmax, residual adds, a gated MLP),
about N ops in all, plus the composites @rms_norm_<uniq> and @silu_<uniq>.
Every op carries a coreai-torch 0.4.0 FusedLoc (PyTorch call stack, source
line, op id); weights are dense_resource constants. Differences between the
two files that must NOT count: composite uniquifiers, op ids and source
lines in locations, weight bytes, and the emission order of the q and k
projections in about one block in ten. The seeded edits that must count,
each exactly once at a recorded op index (pre-order op table:
builtin.module is 0):

  inserted op   a "coreai.clamp" after one block's softmax (added)
  reshape shape one reshape's `shape` [1,16,4,16] -> [1,16,4,-1] (modified)
  operand swap  one residual "coreai.add"(a, b) -> (b, a) (modified)
  removed op    one block's attention scale "coreai.mul" (removed)

An inserted or removed op also changes the operand of its user; how that
user is reported is the matcher's business and is not checked.
"""

import argparse
import json
import os
import random
import string
import struct

D, S, H, HD, FF = 64, 16, 4, 16, 256
T_H = f"tensor<1x{S}x{D}xf32>"
T_4 = f"tensor<1x{S}x{H}x{HD}xf32>"
T_HEADS = f"tensor<1x{H}x{S}x{HD}xf32>"
T_SCORES = f"tensor<1x{H}x{S}x{S}xf32>"
T_FF = f"tensor<1x{S}x{FF}xf32>"
OPS_PER_BLOCK = 33


class Graph:
    """Emits one graph's ops, numbering them in pre-order."""

    def __init__(self, out, first_index, rng, line_shift):
        self.out, self.index, self.rng = out, first_index, rng
        self.line_shift = line_shift
        self.op_id = 0
        self.blobs = []

    def weight(self, key, ty):
        """A dense_resource weight: a 16-byte placeholder blob (as
        bench/gen_asset.py writes, so 100k ops stay a few tens of MB of
        text); its bytes differ between the two files."""
        data = struct.pack("<4f", *(self.rng.random() for _ in range(4)))
        self.blobs.append(f'      {key}: "0x04000000{data.hex().upper()}"')
        return f"value = dense_resource<{key}> : {ty}"

    def loc(self, stack, ident, line):
        self.op_id += 1
        frames = ", ".join(f'"{f}"' for f in stack)
        return (f'loc(fused<{{call_stack = [{frames}], identifiers = ["{ident}"]}}>'
                f'["/Users/alice/llm/model.py":{line + self.line_shift}:0, '
                f'"coreai"("op_id":{self.op_id}:0)])')

    def op(self, results, name, operands, types_in, types_out, attrs="",
           stack=(), ident="", line=1):
        res = f"{results} = " if results else ""
        attr = f" {{{attrs}}}" if attrs else ""
        self.out.append(
            f'    {res}"{name}"({", ".join(operands)}){attr} : '
            f'({", ".join(types_in)}) -> {types_out} '
            f'{self.loc(stack, ident, line)}\n')
        index = self.index
        self.index += 1
        return index


def splat(value, ty):
    return f"value = dense<{value:.6e}> : {ty}"


def block(g, i, h, names, edits, rng, is_new):
    """One transformer block on %h; returns the name of its output."""
    p = f"%b{i}_"
    blk = f"Block${i + 1}"
    att = ("Attention$1", blk, "Model$1")
    mlp = ("MLP$1", blk, "Model$1")
    line = 100 + (i % 7)

    g.op(p + "n1", "coreai.invoke", [h], [T_H], T_H,
         f"callee = @{names['rms']}", ("RMSNorm$1", blk, "Model$1"), "norm1",
         line)

    def proj(x):
        g.op(f"{p}w{x}", "coreai.constant", [], [], f"tensor<{D}x{D}xf32>",
             g.weight(f"w{i}_{x}", f"tensor<{D}x{D}xf32>"),
             ("Linear$1",) + att, f"{x}_proj", line + 1)
        g.op(p + x, "coreai.matmul", [p + "n1", f"{p}w{x}"],
             [T_H, f"tensor<{D}x{D}xf32>"], T_H, "", ("Linear$1",) + att,
             f"{x}_proj", line + 1)

    order = ["k", "q", "v"] if (is_new and i % 10 == 3) else ["q", "k", "v"]
    for x in order:
        proj(x)
    for x, perm in (("q", "0, 2, 1, 3"), ("k", "0, 2, 3, 1"),
                    ("v", "0, 2, 1, 3")):
        shape = f"1, {S}, {H}, {HD}"
        edit = None
        if x == "q" and i == edits["reshape"]:
            edit = "reshape shape"
            if is_new:
                shape = f"1, {S}, {H}, -1"
        idx = g.op(f"{p}{x}4", "coreai.reshape", [p + x], [T_H], T_4,
                   f"shape = array<i64: {shape}>", att, f"view_{x}", line + 2)
        if edit:
            record(edits, edit, "modified", "coreai.reshape", idx, is_new)
        g.op(f"{p}{x}t", "coreai.transpose", [f"{p}{x}4"], [T_4], T_HEADS,
             f"perm = array<i64: {perm}>", att, f"transpose_{x}", line + 3)
    g.op(p + "s", "coreai.matmul", [p + "qt", p + "kt"], [T_HEADS, T_HEADS],
         T_SCORES, "", att, "scores", line + 4)
    g.op(p + "sc", "coreai.constant", [], [], T_SCORES,
         splat(0.25, T_SCORES), att, "scale", line + 4)
    scores = p + "ss"
    if i == edits["remove"] and is_new:
        scores = p + "s"
    else:
        idx = g.op(p + "ss", "coreai.mul", [p + "s", p + "sc"],
                   [T_SCORES, T_SCORES], T_SCORES, "", att, "scale", line + 4)
        if i == edits["remove"]:
            record(edits, "removed op", "removed", "coreai.mul", idx, False)
    g.op(p + "p", "coreai.softmax", [scores], [T_SCORES], T_SCORES,
         "axis = -1 : i64", att, "softmax", line + 5)
    probs = p + "p"
    if i == edits["insert"] and is_new:
        idx = g.op(p + "pc", "coreai.clamp", [p + "p"], [T_SCORES], T_SCORES,
                   "min = 0.0 : f32, max = 1.0 : f32", att, "clamp", line + 5)
        record(edits, "inserted op", "added", "coreai.clamp", idx, True)
        probs = p + "pc"
    g.op(p + "o", "coreai.matmul", [probs, p + "vt"], [T_SCORES, T_HEADS],
         T_HEADS, "", att, "attend", line + 6)
    g.op(p + "ot", "coreai.transpose", [p + "o"], [T_HEADS], T_4,
         "perm = array<i64: 0, 2, 1, 3>", att, "transpose_o", line + 6)
    g.op(p + "o3", "coreai.reshape", [p + "ot"], [T_4], T_H,
         f"shape = array<i64: 1, {S}, {D}>", att, "view_o", line + 6)
    g.op(p + "wo", "coreai.constant", [], [], f"tensor<{D}x{D}xf32>",
         g.weight(f"w{i}_o", f"tensor<{D}x{D}xf32>"), ("Linear$1",) + att,
         "o_proj", line + 7)
    g.op(p + "a", "coreai.matmul", [p + "o3", p + "wo"],
         [T_H, f"tensor<{D}x{D}xf32>"], T_H, "", ("Linear$1",) + att,
         "o_proj", line + 7)
    g.op(p + "h2", "coreai.add", [h, p + "a"], [T_H, T_H], T_H, "",
         (blk, "Model$1"), "residual1", line + 8)
    g.op(p + "n2", "coreai.invoke", [p + "h2"], [T_H], T_H,
         f"callee = @{names['rms']}", ("RMSNorm$2", blk, "Model$1"), "norm2",
         line + 9)
    for x in ("u", "g"):
        g.op(f"{p}w{x}", "coreai.constant", [], [], f"tensor<{D}x{FF}xf32>",
             g.weight(f"w{i}_{x}", f"tensor<{D}x{FF}xf32>"), ("Linear$2",) + mlp,
             f"{x}_proj", line + 10)
        g.op(p + x, "coreai.matmul", [p + "n2", f"{p}w{x}"],
             [T_H, f"tensor<{D}x{FF}xf32>"], T_FF, "", ("Linear$2",) + mlp,
             f"{x}_proj", line + 10)
    g.op(p + "sg", "coreai.invoke", [p + "g"], [T_FF], T_FF,
         f"callee = @{names['silu']}", ("SiLU$1",) + mlp, "act", line + 11)
    g.op(p + "m", "coreai.mul", [p + "u", p + "sg"], [T_FF, T_FF], T_FF, "",
         mlp, "gate", line + 11)
    g.op(p + "wd", "coreai.constant", [], [], f"tensor<{FF}x{D}xf32>",
         g.weight(f"w{i}_d", f"tensor<{FF}x{D}xf32>"), ("Linear$3",) + mlp,
         "down_proj", line + 12)
    g.op(p + "d", "coreai.matmul", [p + "m", p + "wd"],
         [T_FF, f"tensor<{FF}x{D}xf32>"], T_H, "", ("Linear$3",) + mlp,
         "down_proj", line + 12)
    operands = [p + "h2", p + "d"]
    swap = i == edits["swap"]
    if swap and is_new:
        operands.reverse()
    idx = g.op(p + "h3", "coreai.add", operands, [T_H, T_H], T_H, "",
               (blk, "Model$1"), "residual2", line + 13)
    if swap:
        record(edits, "operand swap", "modified", "coreai.add", idx, is_new)
    return p + "h3"


def record(edits, name, kind, op, index, is_new):
    entry = edits["expected"].setdefault(
        name, {"edit": name, "graph": "main", "kind": kind, "op": op})
    entry["target_index" if is_new else "source_index"] = index


def composites(out, g, names):
    def graph(name, body, ty):
        out.append('  "coreai.graph"() ({\n')
        out.append(f"  ^bb0(%x: {ty} loc(unknown)):\n")
        g.index += 1  # the graph op itself
        body()
        out.append(f'  }}) {{sym_name = "{name}", function_type = ({ty}) -> '
                   f'{ty}}} : () -> () loc(unknown)\n')

    def rms():
        st = ("RMSNorm$1", "Model$1")
        g.op("%sq", "coreai.mul", ["%x", "%x"], [T_H, T_H], T_H, "", st, "sq", 40)
        g.op("%mean", "coreai.reduce_mean", ["%sq"], [T_H], f"tensor<1x{S}x1xf32>",
             "axes = array<i64: -1>, keep_dims = true", st, "mean", 41)
        g.op("%eps", "coreai.constant", [], [], f"tensor<1x{S}x1xf32>",
             splat(1e-6, f"tensor<1x{S}x1xf32>"), st, "eps", 41)
        g.op("%ae", "coreai.add", ["%mean", "%eps"],
             [f"tensor<1x{S}x1xf32>"] * 2, f"tensor<1x{S}x1xf32>", "", st, "add", 41)
        g.op("%r", "coreai.rsqrt", ["%ae"], [f"tensor<1x{S}x1xf32>"],
             f"tensor<1x{S}x1xf32>", "", st, "rsqrt", 42)
        g.op("%y", "coreai.mul", ["%x", "%r"], [T_H, f"tensor<1x{S}x1xf32>"], T_H,
             "", st, "scale", 42)
        g.op("%w", "coreai.constant", [], [], f"tensor<{D}xf32>",
             splat(1.0, f"tensor<{D}xf32>"), st, "weight", 43)
        g.op("%z", "coreai.mul", ["%y", "%w"], [T_H, f"tensor<{D}xf32>"], T_H, "",
             st, "weight", 43)
        g.op("", "coreai.output", ["%z"], [T_H], "()", "", st, "out", 43)

    def silu():
        st = ("SiLU$1", "Model$1")
        g.op("%s", "coreai.sigmoid", ["%x"], [T_FF], T_FF, "", st, "sigmoid", 60)
        g.op("%y", "coreai.mul", ["%x", "%s"], [T_FF, T_FF], T_FF, "", st, "mul", 60)
        g.op("", "coreai.output", ["%y"], [T_FF], "()", "", st, "out", 60)

    graph(names["rms"], rms, T_H)
    graph(names["silu"], silu, T_FF)


def write(path, blocks, edits, seed, is_new):
    rng = random.Random(seed * 7 + (1 if is_new else 0))  # weight bytes
    uniq = random.Random(seed * 2 + (1 if is_new else 0))
    suffix = lambda: "".join(uniq.choice(string.ascii_lowercase + string.digits)
                             for _ in range(8))
    names = {"rms": "rms_norm_" + suffix(), "silu": "silu_" + suffix()}
    out = ['"builtin.module"() ({\n', '  "coreai.graph"() ({\n',
           f"  ^bb0(%h0: {T_H} loc(unknown)):\n"]
    # builtin.module is op 0, @main op 1, its body from 2.
    g = Graph(out, 2, rng, 3 if is_new else 0)
    h = "%h0"
    for i in range(blocks):
        h = block(g, i, h, names, edits, rng, is_new)
    g.op("", "coreai.output", [h], [T_H], "()", "", ("Model$1",), "out", 200)
    out.append(f'  }}) {{sym_name = "main", function_type = ({T_H}) -> {T_H}}}'
               " : () -> () loc(unknown)\n")
    composites(out, g, names)
    out.append("}) : () -> () loc(unknown)\n")
    out.append("{-#\n  dialect_resources: {\n    builtin: {\n")
    out.append(",\n".join(g.blobs) + "\n    }\n  }\n#-}\n")
    with open(path, "w") as f:
        f.writelines(out)
    return g.index


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--ops", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    blocks = max(4, round(args.ops / OPS_PER_BLOCK))
    rng = random.Random(args.seed)
    spots = rng.sample(range(blocks), 4)
    edits = {"insert": spots[0], "reshape": spots[1], "swap": spots[2],
             "remove": spots[3], "expected": {}}
    os.makedirs(args.out_dir, exist_ok=True)
    ops = write(os.path.join(args.out_dir, "golden.mlir"), blocks, edits,
                args.seed, False)
    new_ops = write(os.path.join(args.out_dir, "new.mlir"), blocks, edits,
                    args.seed, True)
    expected = [edits["expected"][name] for name in
                ("inserted op", "reshape shape", "operand swap", "removed op")]
    with open(os.path.join(args.out_dir, "edits.json"), "w") as f:
        json.dump({"blocks": blocks, "golden_ops": ops, "new_ops": new_ops,
                   "edits": expected}, f, indent=1)
    print(f"blocks={blocks} golden_ops={ops} new_ops={new_ops}")


if __name__ == "__main__":
    main()
