#!/usr/bin/env python3
"""Writes one localisation trial for scripts/diff-localisation: an LLM-like
program, a copy of it with one random edit, and the changes
`aimodel diff --format json` must report for that edit.

  gen_edit_trial.py OUT_DIR --layers N --kind KIND [--seed S]

Writes OUT_DIR/golden.mlir, OUT_DIR/new.mlir (generic MLIR text, the
unregistered `coreai` dialect) and OUT_DIR/expected.json. The same
arguments write the same bytes; the driver prints the seed of every failing
trial so that it can be written again with this command. Python 3 stdlib
only; scripts/diff-localisation imports make_trial() and check().

The program: one "coreai.graph" @main of N transformer layers, each
  - RMS norm as a composite: "coreai.invoke" {callee = @rms_norm_<uniq>,
    epsilon} of a private "coreai.graph"; per program either one definition
    shared by every layer, or one per layer (bodies alike: the call sites
    tell them apart);
  - q/k/v projections: three sibling "coreai.matmul"s of the normed input
    with same-typed weights (the weights first, as torch exports emit them);
  - per-head split: "coreai.reshape" {shape}, "coreai.transpose" {perm};
  - RoPE on q and k: two "coreai.slice_by_index" halves x1, x2, multiplied
    by the layer's cos and sin constants (same type: they look alike),
    x1*cos - x2*sin ("coreai.sub"), x2*cos + x1*sin ("coreai.add"),
    "coreai.concat" {axis};
  - attention: scores "coreai.matmul", scale "coreai.mul", "coreai.softmax"
    {axis}, "coreai.matmul" with v, heads merged back, output projection,
    residual "coreai.add";
  - gated MLP: gate and up "coreai.matmul" siblings, "coreai.silu" of the
    gate, "coreai.mul", down projection, residual "coreai.add";
  - in every fourth layer a "coreai.while" whose body block has arguments
    (^bb0(%i: tensor<f32>, %acc: tensor<1x16x64xf32>)), reads them and
    ends in "coreai.yield"; its results feed the next layer.
Then a final norm. Shapes are small (hidden 64, seq 16, 4 heads of 16,
MLP 256); weights are dense_resource blobs of 16 bytes, other bytes in the
new file (weights count by type only). One program in two carries
coreai-torch 0.4.0 fused locations, with other lines and op ids in the new
file. Neither difference may count.

The edits (KIND), one per trial, on a copy of the program; the ground truth
names ops by (source_index, target_index), their places in the golden's and
the new file's pre-order op tables (builtin.module is 0, the first graph 1,
then its body, an op before the ops of its regions), computed from the
printed order:
  swap       the two operands of a non-commutative op (matmul, sub, concat;
             uniformly among all of them) read from two different ops or
             arguments: exactly that op modified.
  attribute  one attribute, its result type unchanged: a reshape `shape`
             (one dim to -1), a transpose `perm` (another permutation of
             the same result type), a softmax/concat `axis` (-1 <-> 3), a
             reduce_mean `axes`, an invoke's `epsilon`, a while's
             `max_iterations`: exactly that op modified.
  insert     a "coreai.neg"/"coreai.abs"/"coreai.exp" on one use of a
             value, placed just before that user: the new op added (target
             index only); at most one op modified, and only that user.
  delete     a unary op whose input and result types are equal (silu,
             softmax, sqrt, tanh, the k transpose; not an invoke), its
             users rewired to its input: that op removed (source index
             only); at most one op modified, and only one of its former
             users (each of these ops has a single user).
  reorder    two independent ops of a graph's or loop's block, at most 10
             apart, exchange places (neither reads the other, nor an op
             between them that reads it; half the time two ops of one name
             other than constants, e.g. the q and k projections, x1 and x2):
             verdict identical.
  argtype    one block argument f32 -> f16: a while body's (the readers'
             operand types follow; the while's operands and results keep
             their types, legal for an unregistered op), or a graph's entry
             argument (function_type follows): exactly the op holding the
             block and every op reading the argument modified.
  rename     one composite's uniquifier, at its definition and every call
             site: verdict identical.
A trial is correct when the exit code (0 identical, 1 different) and the
verdict are right and the changes listed are exactly the expected ones; an
added or removed graph counts as a change.
"""

import argparse
import functools
import itertools
import json
import os
import random
import string
import struct

KINDS = ("swap", "swapc", "attribute", "insert", "delete", "reorder",
         "argtype", "rename", "shuffle")

D, S, H, HD, FF = 64, 16, 4, 16, 256
F32 = "f32"


def tensor(*shape, elem=F32):
    return (tuple(shape), elem)


@functools.lru_cache(maxsize=None)
def type_text(ty):
    shape, elem = ty
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


T_H = tensor(1, S, D)
T_4 = tensor(1, S, H, HD)
T_HEADS = tensor(1, H, S, HD)
T_HALF = tensor(1, H, S, HD // 2)
T_SCORES = tensor(1, H, S, S)
T_FF = tensor(1, S, FF)
T_ROW = tensor(1, S, 1)
T_SCALAR = tensor()


# --- The program model --------------------------------------------------------
# Values are objects shared by their producer and readers, so a type edited
# on a value is printed wherever it is read; ops keep a uid through the
# edit, which is what pairs an op of the golden with its counterpart.

class Value:
    __slots__ = ("ref", "type", "owner")

    def __init__(self, ref, ty, owner):
        self.ref, self.type, self.owner = ref, ty, owner


class Block:
    __slots__ = ("args", "ops", "owner")

    def __init__(self, owner):
        self.args, self.ops, self.owner = [], [], owner


class Op:
    __slots__ = ("uid", "name", "operands", "results", "attrs", "regions",
                 "loc", "graph")

    def __init__(self, uid, name, operands, attrs, loc):
        self.uid, self.name = uid, name
        self.operands = list(operands)
        self.results = []
        self.attrs = dict(attrs)  # name -> (kind, value), see attr_text
        self.regions = []         # one Block each
        self.loc = loc            # (call stack, identifier, line) or None
        self.graph = False        # a coreai.graph: function_type is derived


def attr_text(attr):
    kind, v = attr
    if kind == "i64s":
        return "array<i64: " + ", ".join(str(x) for x in v) + ">"
    if kind == "i64":
        return f"{v} : i64"
    if kind == "f32":
        return f"{v:.6e} : f32"
    if kind == "sym":
        return "@" + v
    if kind == "str":
        return json.dumps(v)
    if kind == "bool":
        return "true" if v else "false"
    if kind == "splat":
        value, ty = v
        return f"dense<{value:.6e}> : {type_text(ty)}"
    if kind == "resource":
        key, ty = v
        return f"dense_resource<{key}> : {type_text(ty)}"
    raise ValueError(kind)


def walk(op):
    """The op and every op nested in it, in pre-order (the printed order)."""
    yield op
    for block in op.regions:
        for inner in block.ops:
            yield from walk(inner)


class Builder:
    """Holds a program while it is built: uids and value names are handed
    out in build order, so two builds from one rng state agree on both."""

    def __init__(self):
        self.locations = False  # print fused locations
        self.shared = False     # one rms_norm composite for every layer
        self.next_uid = 0
        self.names = set()
        self.module = self.op("builtin.module", [], {}, None, regions=1)

    def fresh(self, hint):
        name, n = "%" + hint, 0
        while name in self.names:
            n += 1
            name = f"%{hint}_{n}"
        self.names.add(name)
        return name

    def op(self, name, operands, attrs, loc, results=(), hint="v",
           regions=0):
        o = Op(self.next_uid, name, operands, attrs, loc)
        self.next_uid += 1
        if len(results) == 1:
            o.results = [Value(self.fresh(hint), results[0], o)]
        elif results:
            base = self.fresh(hint)
            o.results = [Value(f"{base}#{i}", t, o)
                         for i, t in enumerate(results)]
        o.regions = [Block(o) for _ in range(regions)]
        return o

    def arg(self, block, ty, hint):
        v = Value(self.fresh(hint), ty, block)
        block.args.append(v)
        return v


class Emitter:
    """Appends ops to one block."""

    def __init__(self, builder, block, stack=()):
        self.b, self.block, self.stack = builder, block, stack
        self.line = 100

    def __call__(self, name, operands, result, attrs=None, hint="v",
                 ident=None, stack=None, line=0):
        results = () if result is None else (
            result if isinstance(result, list) else (result,))
        loc = (stack if stack is not None else self.stack,
               ident or name.split(".")[-1], self.line + line)
        o = self.b.op(name, operands, attrs or {}, loc, results, hint)
        self.block.ops.append(o)
        if not o.results:
            return o
        return o.results[0] if len(o.results) == 1 else o.results


def suffix(rng):
    return "".join(rng.choice(string.ascii_lowercase + string.digits)
                   for _ in range(8))


def rms_composite(b, name):
    g = b.op("coreai.graph", [], {
        "sym_name": ("str", name), "sym_visibility": ("str", "private"),
        "coreai.composite_decl": ("str", "rms_norm")}, None, regions=1)
    g.graph = True
    body = g.regions[0]
    x = b.arg(body, T_H, "x")
    e = Emitter(b, body, ("RMSNorm$1", "Model$1"))
    e.line = 40
    sq = e("coreai.mul", [x, x], T_H, hint="sq")
    mean = e("coreai.reduce_mean", [sq], T_ROW,
             {"axes": ("i64s", [-1]), "keep_dims": ("bool", True)},
             hint="mean", line=1)
    eps = e("coreai.constant", [], T_ROW,
            {"value": ("splat", (1e-6, T_ROW))}, hint="eps", line=1)
    ae = e("coreai.add", [mean, eps], T_ROW, hint="ae", line=1)
    r = e("coreai.sqrt", [ae], T_ROW, hint="r", line=2)
    y = e("coreai.div", [x, r], T_H, hint="y", line=2)
    w = e("coreai.constant", [], tensor(D),
          {"value": ("resource", (f"w{b.next_uid}", tensor(D)))}, hint="w",
          line=3)
    z = e("coreai.mul", [y, w], T_H, hint="z", line=3)
    e("coreai.output", [z], None, line=3)
    return g


def weight(e, ty, hint, ident, stack, line):
    return e("coreai.constant", [], ty,
             {"value": ("resource", (f"w{e.b.next_uid}", ty))}, hint=hint,
             ident=ident, stack=stack, line=line)


def sdpa_composite(b, name):
    """Attention scores, scale, softmax and the weighted sum, as a
    composite of (q, k transposed, v)."""
    g = b.op("coreai.graph", [], {
        "sym_name": ("str", name), "sym_visibility": ("str", "private"),
        "coreai.composite_decl": ("str", "scaled_dot_product_attention")},
        None, regions=1)
    g.graph = True
    body = g.regions[0]
    q = b.arg(body, T_HEADS, "q")
    kt = b.arg(body, T_HEADS, "kt")
    v = b.arg(body, T_HEADS, "v")
    e = Emitter(b, body, ("SDPA$1", "Model$1"))
    e.line = 60
    s = e("coreai.matmul", [q, kt], T_SCORES, hint="s", ident="scores")
    sc = e("coreai.constant", [], T_SCALAR,
           {"value": ("splat", (0.25, T_SCALAR))}, hint="sc", ident="scale")
    ss = e("coreai.mul", [s, sc], T_SCORES, hint="ss", ident="scale",
           line=1)
    pr = e("coreai.softmax", [ss], T_SCORES, {"axis": ("i64", -1)},
           hint="p", line=2)
    o = e("coreai.matmul", [pr, v], T_HEADS, hint="o", ident="attend",
          line=3)
    e("coreai.output", [o], None, line=3)
    return g


def attention(e, x, p, att, composite):
    """q/k/v projections of x, per-head split, RoPE on q and k, SDPA as a
    composite, heads merged and projected."""
    ws = {n: weight(e, tensor(D, D), p + "w" + n, n + "_proj",
                    ("Linear$1",) + att, 1) for n in "qkv"}
    proj = {n: e("coreai.matmul", [x, ws[n]], T_H, hint=p + n,
                 ident=n + "_proj", stack=("Linear$1",) + att, line=1)
            for n in "qkv"}
    heads = {}
    for n in "qkv":
        x4 = e("coreai.reshape", [proj[n]], T_4,
               {"shape": ("i64s", [1, S, H, HD])}, hint=p + n + "4",
               ident="view_" + n, stack=att, line=2)
        heads[n] = e("coreai.transpose", [x4], T_HEADS,
                     {"perm": ("i64s", [0, 2, 1, 3])}, hint=p + n + "t",
                     ident="transpose_" + n, stack=att, line=3)
    rope = ("RotaryEmbedding$1",) + att
    cos = weight(e, tensor(1, 1, S, HD // 2), p + "cos", "cos", rope, 4)
    sin = weight(e, tensor(1, 1, S, HD // 2), p + "sin", "sin", rope, 4)
    rot = {}
    for n in "qk":
        half = HD // 2
        x1 = e("coreai.slice_by_index", [heads[n]], T_HALF,
               {"begin": ("i64s", [0, 0, 0, 0]),
                "end": ("i64s", [1, H, S, half])},
               hint=p + n + "1", ident="x1", stack=rope, line=5)
        x2 = e("coreai.slice_by_index", [heads[n]], T_HALF,
               {"begin": ("i64s", [0, 0, 0, half]),
                "end": ("i64s", [1, H, S, HD])},
               hint=p + n + "2", ident="x2", stack=rope, line=5)
        a = e("coreai.mul", [x1, cos], T_HALF, hint=p + n + "1c",
              stack=rope, line=6)
        bb = e("coreai.mul", [x2, sin], T_HALF, hint=p + n + "2s",
               stack=rope, line=6)
        r1 = e("coreai.sub", [a, bb], T_HALF, hint=p + n + "r1",
               stack=rope, line=6)
        c = e("coreai.mul", [x2, cos], T_HALF, hint=p + n + "2c",
              stack=rope, line=7)
        d = e("coreai.mul", [x1, sin], T_HALF, hint=p + n + "1s",
              stack=rope, line=7)
        r2 = e("coreai.add", [c, d], T_HALF, hint=p + n + "r2",
               stack=rope, line=7)
        rot[n] = e("coreai.concat", [r1, r2], T_HEADS,
                   {"axis": ("i64", -1)}, hint=p + n + "r", stack=rope,
                   line=8)
    kt = e("coreai.transpose", [rot["k"]], T_HEADS,
           {"perm": ("i64s", [0, 1, 3, 2])}, hint=p + "kT", ident="kT",
           stack=att, line=9)
    o = e("coreai.invoke", [rot["q"], kt, heads["v"]], T_HEADS,
          {"callee": ("sym", composite("sdpa"))}, hint=p + "o",
          ident="sdpa", stack=("SDPA$1",) + att, line=9)
    ot = e("coreai.transpose", [o], T_4, {"perm": ("i64s", [0, 2, 1, 3])},
           hint=p + "ot", ident="transpose_o", stack=att, line=11)
    o3 = e("coreai.reshape", [ot], T_H, {"shape": ("i64s", [1, S, D])},
           hint=p + "o3", ident="view_o", stack=att, line=11)
    wo = weight(e, tensor(D, D), p + "wo", "o_proj", ("Linear$1",) + att, 12)
    return e("coreai.matmul", [o3, wo], T_H, hint=p + "a", ident="o_proj",
             stack=("Linear$1",) + att, line=12)


def mlp(e, x, p, stack):
    """Gate and up projections of x, SiLU gate, down projection."""
    wg = weight(e, tensor(D, FF), p + "wg", "gate_proj",
                ("Linear$2",) + stack, 15)
    wu = weight(e, tensor(D, FF), p + "wu", "up_proj", ("Linear$3",) + stack,
                15)
    g = e("coreai.matmul", [x, wg], T_FF, hint=p + "g", ident="gate_proj",
          stack=("Linear$2",) + stack, line=15)
    u = e("coreai.matmul", [x, wu], T_FF, hint=p + "u", ident="up_proj",
          stack=("Linear$3",) + stack, line=15)
    sg = e("coreai.silu", [g], T_FF, hint=p + "sg", ident="act",
           stack=("SiLU$1",) + stack, line=16)
    m = e("coreai.mul", [sg, u], T_FF, hint=p + "m", ident="gate",
          stack=stack, line=16)
    wd = weight(e, tensor(FF, D), p + "wd", "down_proj",
                ("Linear$4",) + stack, 17)
    return e("coreai.matmul", [m, wd], T_H, hint=p + "d", ident="down_proj",
             stack=("Linear$4",) + stack, line=17)


def block_composite(b, name, kind, composite):
    """An attention or MLP block of one layer as a composite of its input
    (weights inside, as an externalized module holds them)."""
    g = b.op("coreai.graph", [], {
        "sym_name": ("str", name), "sym_visibility": ("str", "private"),
        "coreai.composite_decl": ("str", kind)}, None, regions=1)
    g.graph = True
    body = g.regions[0]
    x = b.arg(body, T_H, "x")
    stack = ("Attention$1" if kind == "attention" else "MLP$1", "Model$1")
    e = Emitter(b, body, stack)
    e.line = 80
    out = (attention(e, x, "", stack, composite) if kind == "attention"
           else mlp(e, x, "", stack))
    e("coreai.output", [out], None, line=18)
    return g


def layer(e, i, h, composite, with_loop, blocks):
    """Layer i on %h; composite(kind) names the composite a new call of
    `kind` ("rms_norm", "sdpa", "attention", "mlp") invokes; with `blocks`
    the attention and MLP blocks are composites too. Returns the layer's
    output value."""
    p = f"l{i}_"
    blk = (f"Block${i + 1}", "Model$1")
    att = ("Attention$1",) + blk
    mlps = ("MLP$1",) + blk
    e.line = 100 + (i % 7) * 20

    def invoke(x, which, line):
        return e("coreai.invoke", [x], T_H,
                 {"callee": ("sym", composite("rms_norm")),
                  "epsilon": ("f32", 1e-6)},
                 hint=p + which, ident=which, stack=("RMSNorm$1",) + blk,
                 line=line)

    def call(kind, x, stack, line):
        return e("coreai.invoke", [x], T_H,
                 {"callee": ("sym", composite(kind))}, hint=p + kind,
                 ident=kind, stack=stack, line=line)

    n1 = invoke(h, "norm1", 0)
    a = (call("attention", n1, att, 1) if blocks
         else attention(e, n1, p, att, composite))
    h2 = e("coreai.add", [h, a], T_H, hint=p + "h2", ident="residual1",
           stack=blk, line=13)
    n2 = invoke(h2, "norm2", 14)
    dn = call("mlp", n2, mlps, 15) if blocks else mlp(e, n2, p, mlps)
    h3 = e("coreai.add", [h2, dn], T_H, hint=p + "h3", ident="residual2",
           stack=blk, line=18)
    if not with_loop:
        return h3
    # A region op, so that block arguments exist: a short refinement loop.
    ref = ("Refine$1",) + blk
    zero = e("coreai.constant", [], T_SCALAR,
             {"value": ("splat", (0.0, T_SCALAR))}, hint=p + "zero",
             stack=ref, line=19)
    wh = e.b.op("coreai.while", [zero, h3],
                {"max_iterations": ("i64", 2)},
                (ref, "while", e.line + 19), (T_SCALAR, T_H), p + "wh",
                regions=1)
    e.block.ops.append(wh)
    body = wh.regions[0]
    it = e.b.arg(body, T_SCALAR, p + "i")
    acc = e.b.arg(body, T_H, p + "acc")
    inner = Emitter(e.b, body, ref)
    inner.line = e.line + 20
    one = inner("coreai.constant", [], T_SCALAR,
                {"value": ("splat", (1.0, T_SCALAR))}, hint=p + "one")
    nxt = inner("coreai.add", [it, one], T_SCALAR, hint=p + "inext")
    t = inner("coreai.tanh", [acc], T_H, hint=p + "tanh", line=1)
    st = inner("coreai.mul", [t, it], T_H, hint=p + "step", line=1)
    x = inner("coreai.sub", [acc, st], T_H, hint=p + "next", line=2)
    inner("coreai.yield", [nxt, x], None, line=2)
    return wh.results[1]


def build_program(rng, layers):
    """A Builder holding the program of `layers` layers in b.module; rng
    decides its variable parts (locations, composite sharing, which layers
    hold a loop, uniquifiers)."""
    b = Builder()
    b.locations = rng.random() < 0.5
    shared = rng.random() < 0.5
    loop_phase = rng.randrange(4)
    main = b.op("coreai.graph", [], {"sym_name": ("str", "main")}, None,
                regions=1)
    main.graph = True
    b.module.regions[0].ops.append(main)
    composites = []
    blocks = rng.random() < 0.5
    makers = {"rms_norm": rms_composite, "sdpa": sdpa_composite,
              "attention": lambda b, name: block_composite(
                  b, name, "attention", composite),
              "mlp": lambda b, name: block_composite(b, name, "mlp",
                                                     composite)}
    shared_ones = {}

    def composite(kind):
        """The composite a new call of `kind` invokes: the program's one
        definition of it, or a fresh one per call (as conversions emit)."""
        if shared and kind in shared_ones:
            return shared_ones[kind]
        g = makers[kind](b, kind + "_" + suffix(rng))
        composites.append(g)
        shared_ones[kind] = g.attrs["sym_name"][1]
        return shared_ones[kind]

    e = Emitter(b, main.regions[0], ("Model$1",))
    h = b.arg(main.regions[0], T_H, "h0")
    for i in range(layers):
        h = layer(e, i, h, composite, i % 4 == loop_phase, blocks)
    e.line = 300
    out = e("coreai.invoke", [h], T_H,
            {"callee": ("sym", composite("rms_norm")),
             "epsilon": ("f32", 1e-6)}, hint="final", ident="norm",
            stack=("RMSNorm$1", "Model$1"))
    e("coreai.output", [out], None, ident="output")
    b.module.regions[0].ops.extend(composites)  # after @main, as exported
    b.shared, b.blocks = shared, blocks
    return b


# --- Printing -----------------------------------------------------------------

def print_program(b, rng, line_shift):
    """Generic MLIR text of b.module; rng gives the weight bytes. Returns
    (text, {uid: pre-order index})."""
    out, blobs, index = [], [], {}
    op_id = [0]

    def loc(op):
        if not b.locations or op.loc is None:
            return ""
        stack, ident, line = op.loc
        op_id[0] += 1
        frames = ", ".join(f'"{f}"' for f in stack)
        return (f' loc(fused<{{call_stack = [{frames}], identifiers = '
                f'["{ident}"]}}>["/Users/alice/llm/model.py":'
                f'{line + line_shift}:0, "coreai"("op_id":{op_id[0]}:0)])')

    def emit(op, depth):
        index[op.uid] = len(index)
        pad = "  " * depth
        res = ""
        if len(op.results) == 1:
            res = op.results[0].ref + " = "
        elif op.results:
            res = f"{op.results[0].ref.split('#')[0]}:{len(op.results)} = "
        out.append(f'{pad}{res}"{op.name}"('
                   + ", ".join(v.ref for v in op.operands) + ")")
        if op.regions:
            out.append(" (")
            for n, block in enumerate(op.regions):
                out.append("{\n" if n == 0 else ", {\n")
                if block.args:
                    out.append(f"{pad}^bb0(" + ", ".join(
                        f"{a.ref}: {type_text(a.type)}" for a in block.args)
                        + "):\n")
                for inner in block.ops:
                    emit(inner, depth + 1)
                out.append(pad + "}")
            out.append(")")
        attrs = []
        for k, v in op.attrs.items():
            attrs.append(f"{k} = {attr_text(v)}")
            if v[0] == "resource":
                data = struct.pack("<4f", *(rng.random() for _ in range(4)))
                blobs.append(f'      {v[1][0]}: "0x04000000'
                             f'{data.hex().upper()}"')
        if op.graph:
            body = op.regions[0]
            ins = ", ".join(type_text(a.type) for a in body.args)
            outs = [type_text(v.type) for v in body.ops[-1].operands]
            outs = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
            attrs.append(f"function_type = ({ins}) -> {outs}")
        if attrs:
            out.append(" {" + ", ".join(attrs) + "}")
        rtypes = [type_text(v.type) for v in op.results]
        rt = rtypes[0] if len(rtypes) == 1 else "(" + ", ".join(rtypes) + ")"
        out.append(" : (" + ", ".join(type_text(v.type) for v in op.operands)
                   + f") -> {rt}{loc(op)}\n")

    emit(b.module, 0)
    if blobs:
        out.append("{-#\n  dialect_resources: {\n    builtin: {\n")
        out.append(",\n".join(blobs) + "\n    }\n  }\n#-}\n")
    return "".join(out), index


# --- Edits --------------------------------------------------------------------
# Each takes the program to edit (a second build of the golden, so uids
# agree) and an rng; it returns the expected report in terms of uids:
#   {"verdict", "required": [(kind, src_uid, tgt_uid)], "optional": [...],
#    "max_optional": n, "what": "..."}.

COMMUTATIVE = {"coreai.add", "coreai.mul"}
NON_COMMUTATIVE = {"coreai.matmul", "coreai.sub", "coreai.div",
                   "coreai.concat", "coreai.pow"}


def all_ops(b):
    return [o for o in walk(b.module)]


def parents(b):
    """uid -> the block holding the op."""
    where = {}
    for op in walk(b.module):
        for block in op.regions:
            for inner in block.ops:
                where[inner.uid] = block
    return where


def uses(b):
    """id(value) -> [(op, slot)] in printed order."""
    found = {}
    for op in walk(b.module):
        for slot, v in enumerate(op.operands):
            found.setdefault(id(v), []).append((op, slot))
    return found


def source(v):
    """What produces v: an op's uid, or ('arg', block, position)."""
    if isinstance(v.owner, Op):
        return v.owner.uid
    return ("arg", id(v.owner), v.owner.args.index(v))


def desc(op):
    return f"{op.name} #{op.uid}"


def modified(op):
    return ("modified", op.uid, op.uid)


def swap_operands(b, rng, names):
    """Swaps the two different operands of a random binary op named in
    `names`."""
    cands = [o for o in all_ops(b) if o.name in names
             and len(o.operands) == 2 and not o.regions
             and source(o.operands[0]) != source(o.operands[1])]
    op = rng.choice(cands)
    op.operands.reverse()
    return {"verdict": "different", "required": [modified(op)],
            "what": f"swap operands of {desc(op)}"}


def edit_swap(b, rng):
    return swap_operands(b, rng, NON_COMMUTATIVE)


def perms_alike(in_shape, perm):
    """Other permutations giving the same result shape."""
    want = [in_shape[p] for p in perm]
    return [list(q) for q in itertools.permutations(range(len(perm)))
            if list(q) != list(perm) and [in_shape[p] for p in q] == want]


def edit_attribute(b, rng):
    cands = []
    for o in all_ops(b):
        a = o.attrs
        if o.name == "coreai.reshape":
            cands.append((o, "shape"))
        elif o.name == "coreai.transpose" and perms_alike(
                o.operands[0].type[0], a["perm"][1]):
            cands.append((o, "perm"))
        elif o.name in ("coreai.softmax", "coreai.concat"):
            cands.append((o, "axis"))
        elif o.name == "coreai.reduce_mean":
            cands.append((o, "axes"))
        elif o.name == "coreai.invoke" and "epsilon" in a:
            cands.append((o, "epsilon"))
        elif o.name == "coreai.while":
            cands.append((o, "max_iterations"))
    op, key = rng.choice(cands)
    kind, old = op.attrs[key]
    if key == "shape":
        # One dim inferred instead of spelled: the same result type.
        spots = [n for n, d in enumerate(old) if d > 1]
        new = list(old)
        new[rng.choice(spots)] = -1
    elif key == "perm":
        new = rng.choice(perms_alike(op.operands[0].type[0], old))
    elif key == "axis":
        rank = len(op.results[0].type[0])
        new = rank - 1 if old == -1 else -1
    elif key == "axes":
        rank = len(op.operands[0].type[0])
        new = [rank - 1 if old[0] == -1 else -1]
    elif key == "epsilon":
        new = 1e-5
    else:
        new = old + 1
    op.attrs[key] = (kind, new)
    return {"verdict": "different", "required": [modified(op)],
            "what": f"{key} of {desc(op)}: {attr_text((kind, old))} -> "
                    f"{attr_text((kind, new))}"}


def edit_insert(b, rng):
    where = parents(b)
    cands = [(op, slot) for op in all_ops(b)
             for slot in range(len(op.operands))]
    user, slot = rng.choice(cands)
    v = user.operands[slot]
    name = rng.choice(("coreai.neg", "coreai.abs", "coreai.exp"))
    new = b.op(name, [v], {}, user.loc, (v.type,), "ins")
    block = where[user.uid]
    block.ops.insert(block.ops.index(user), new)
    user.operands[slot] = new.results[0]
    return {"verdict": "different", "required": [("added", None, new.uid)],
            "optional": [modified(user)], "max_optional": 1,
            "what": f"{name} #{new.uid} on operand {slot} of {desc(user)}"}


def edit_delete(b, rng):
    where = parents(b)
    cands = [o for o in all_ops(b) if len(o.operands) == 1
             and len(o.results) == 1 and not o.regions
             and o.operands[0].type == o.results[0].type
             and o.name != "coreai.invoke"]
    op = rng.choice(cands)
    readers = uses(b).get(id(op.results[0]), [])
    for user, slot in readers:
        user.operands[slot] = op.operands[0]
    where[op.uid].ops.remove(op)
    users = list({u.uid: u for u, _ in readers}.values())
    return {"verdict": "different", "required": [("removed", op.uid, None)],
            "optional": [modified(u) for u in users], "max_optional": 1,
            "what": f"delete {desc(op)} (read by "
                    + ", ".join(desc(u) for u in users) + ")"}


def deps(op):
    """Uids and arguments the op and the ops in its regions read."""
    return {source(v) for inner in walk(op) for v in inner.operands}


def edit_reorder(b, rng, window=10):
    pairs, alike = [], []
    for op in all_ops(b):
        if op is b.module:
            continue  # the graphs themselves: not an op-order question
        for block in op.regions:
            ops = block.ops
            reads = [deps(o) for o in ops]
            for i in range(len(ops) - 1):
                for j in range(i + 1, min(len(ops) - 1, i + window + 1)):
                    a, c = ops[i], ops[j]  # the terminator never moves
                    # a moves after ops i+1..j-1: none may read it; c moves
                    # before ops i..j-1: it may read none of them.
                    if any(a.uid in reads[k] for k in range(i + 1, j + 1)):
                        continue
                    if any(ops[k].uid in reads[j] for k in range(i, j)):
                        continue
                    pairs.append((block, i, j))
                    if a.name == c.name and a.name != "coreai.constant":
                        alike.append((block, i, j))
    block, i, j = rng.choice(alike if alike and rng.random() < 0.5
                             else pairs)
    a, c = block.ops[i], block.ops[j]
    block.ops[i], block.ops[j] = c, a
    return {"verdict": "identical", "required": [],
            "what": f"reorder {desc(a)} and {desc(c)}"}


def edit_argtype(b, rng):
    cands = [(op, block, v) for op in all_ops(b) if op.name != "builtin.module"
             for block in op.regions for v in block.args]
    owner, block, v = rng.choice(cands)
    shape, elem = v.type
    v.type = (shape, "f16")
    readers = list({u.uid: u for u, _ in uses(b).get(id(v), [])}.values())
    return {"verdict": "different",
            "required": [modified(owner)] + [modified(u) for u in readers],
            "what": f"argument {v.ref} of {desc(owner)} f32 -> f16 (read by "
                    + ", ".join(desc(u) for u in readers) + ")"}


def edit_rename(b, rng):
    cands = [o for o in b.module.regions[0].ops
             if o.attrs.get("sym_visibility") == ("str", "private")]
    g = rng.choice(cands)
    old = g.attrs["sym_name"][1]
    new = old[:-8] + suffix(rng)
    g.attrs["sym_name"] = ("str", new)
    for o in all_ops(b):
        if o.attrs.get("callee") == ("sym", old):
            o.attrs["callee"] = ("sym", new)
    return {"verdict": "identical", "required": [],
            "what": f"rename @{old} -> @{new}"}


def edit_swap_commutative(b, rng):
    return swap_operands(b, rng, COMMUTATIVE)


def shuffle_block(block, rng):
    """The block's ops in a random order that keeps every op after what it
    reads (the terminator stays last)."""
    ops, last = block.ops[:-1], block.ops[-1]
    here = {o.uid for o in ops}
    needs = {o.uid: {d for d in deps(o) if d in here} for o in ops}
    placed, order, left = set(), [], list(ops)
    while left:
        ready = [o for o in left if needs[o.uid] <= placed]
        o = rng.choice(ready)
        left.remove(o)
        placed.add(o.uid)
        order.append(o)
    block.ops = order + [last]


def edit_shuffle(b, rng):
    top = b.module.regions[0]
    for op in all_ops(b):
        for block in op.regions:
            if block is not top and block.ops:
                shuffle_block(block, rng)
    rng.shuffle(top.ops)
    return {"verdict": "identical", "required": [],
            "what": "every block in another dependency order, graphs "
                    "in another order"}


EDITS = {"swap": edit_swap, "swapc": edit_swap_commutative,
         "shuffle": edit_shuffle, "attribute": edit_attribute,
         "insert": edit_insert, "delete": edit_delete,
         "reorder": edit_reorder, "argtype": edit_argtype,
         "rename": edit_rename}


# --- One trial ----------------------------------------------------------------

def resuffix(b, rng):
    """What every conversion does: a fresh uniquifier for every composite
    (and externalized graph), and the graphs in another order."""
    top = b.module.regions[0]
    renamed = {}
    for g in top.ops:
        name = g.attrs["sym_name"][1]
        base, _, tail = name.rpartition("_")
        if base and len(tail) == 8:
            renamed[name] = base + "_" + suffix(rng)
            g.attrs["sym_name"] = ("str", renamed[name])
    for o in all_ops(b):
        callee = o.attrs.get("callee")
        if callee and callee[1] in renamed:
            o.attrs["callee"] = ("sym", renamed[callee[1]])
    rng.shuffle(top.ops)


def make_trial(seed, layers, kind, resuffixed=True):
    """(golden text, new text, expected) for one seed: a fresh program and
    one edit of `kind`; with `resuffixed`, NEW as another conversion
    writes it (every uniquifier fresh, the graphs in another order).
    expected names ops by pre-order index."""
    rng = random.Random(f"program:{seed}")
    state = rng.getstate()
    golden = build_program(rng, layers)
    rng.setstate(state)
    new = build_program(rng, layers)  # the same program, its own objects
    edit = EDITS[kind](new, random.Random(f"edit:{seed}"))
    if resuffixed:
        resuffix(new, random.Random(f"suffix:{seed}"))
    weights = random.Random(f"weights:{seed}")
    golden_text, gi = print_program(golden, weights, 0)
    new_text, ni = print_program(new, weights, 3)
    ops = {o.uid: o.name for o in walk(golden.module)}
    ops.update({o.uid: o.name for o in walk(new.module)})

    def entry(e):
        kind_, s, t = e
        return {"kind": kind_, "op": ops[s if s is not None else t],
                "source_index": None if s is None else gi[s],
                "target_index": None if t is None else ni[t]}

    expected = {
        "kind": kind, "seed": str(seed), "layers": layers,
        "resuffixed": resuffixed,
        "what": edit["what"], "verdict": edit["verdict"],
        "exit": 0 if edit["verdict"] == "identical" else 1,
        "required": [entry(e) for e in edit["required"]],
        "optional": [entry(e) for e in edit.get("optional", [])],
        "max_optional": edit.get("max_optional", 0),
        "program": {"composites": "shared" if golden.shared else "per call",
                    "blocks": golden.blocks,
                    "locations": golden.locations,
                    "golden_ops": len(gi), "new_ops": len(ni)},
    }
    return golden_text, new_text, expected


def change_key(c):
    return (c["kind"], c.get("source_index"), c.get("target_index"))


def change_text(c):
    s, t = c.get("source_index"), c.get("target_index")
    if s is None and t is None:
        return f"{c['kind']} {c.get('op', '?')}"
    where = (f"{s}->{t}" if s is not None and t is not None
             else f"src {s}" if s is not None else f"tgt {t}")
    return f"{c['kind']} {c.get('op', '?')} [{where}]"


def check(expected, report, code):
    """'' when the report is right for the expected changes, else why not
    (expected vs got, briefly)."""
    if report is None:
        return f"no JSON report (exit {code})"
    got, why = [], []
    for g in report.get("graphs", []):
        if g.get("status") in ("added", "removed"):
            name = g.get("target") if g["status"] == "added" else g.get("source")
            got.append({"kind": "graph " + g["status"], "op": "@" + str(name)})
        got.extend(g.get("changes", []))
    if code != expected["exit"] or report.get("verdict") != expected["verdict"]:
        why.append(f"exit {code} verdict {report.get('verdict')}, want "
                   f"{expected['exit']} {expected['verdict']}")
    keys = [change_key(c) for c in got]
    required = {change_key(c) for c in expected["required"]}
    optional = {change_key(c) for c in expected["optional"]} - required
    missing = [c for c in expected["required"] if change_key(c) not in keys]
    extra = [c for c in got if change_key(c) not in required | optional]
    allowed = [c for c in got if change_key(c) in optional]
    if missing or extra or len(allowed) > expected["max_optional"] or \
            len(keys) != len(set(keys)):
        want = "; ".join(change_text(c) for c in expected["required"]) or "none"
        if expected["optional"]:
            want += " (+ at most one of: " + "; ".join(
                change_text(c) for c in expected["optional"]) + ")"
        shown = "; ".join(change_text(c) for c in got[:6]) or "none"
        if len(got) > 6:
            shown += f"; ... {len(got) - 6} more"
        why.append(f"want {want}; got {shown}")
    return " | ".join(why)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--kind", choices=KINDS, required=True)
    ap.add_argument("--no-resuffix", action="store_true",
                    help="NEW keeps the golden's uniquifiers and order")
    ap.add_argument("--seed", default="1",
                    help="any string (the driver prints the failing ones)")
    args = ap.parse_args()
    golden, new, expected = make_trial(args.seed, args.layers, args.kind,
                                       not args.no_resuffix)
    os.makedirs(args.out_dir, exist_ok=True)
    for name, text in (("golden.mlir", golden), ("new.mlir", new)):
        with open(os.path.join(args.out_dir, name), "w") as f:
            f.write(text)
    with open(os.path.join(args.out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    print(expected["what"])


if __name__ == "__main__":
    main()
