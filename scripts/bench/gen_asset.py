#!/usr/bin/env python3
"""Writes a large, valid MLIR bytecode asset for scripts/bench-reader.

  gen_asset.py OUT.mlirb --ops N --weights W --weight-bytes B [--mlir-opt PATH]

How (the fast, honest way; Python 3 stdlib only):

1. Write the IR as generic MLIR text: one "builtin.module" holding
   "coreai.graph" bodies; each layer is a "coreai.constant" holding
   dense_resource<w_N> (tensor<RxCxf16>, RxCx2 = B bytes) followed by a
   "coreai.matmul" and elementwise ops. Most ops carry the coreai-torch 0.4.0
   location form, a FusedLoc with a {call_stack, identifiers} metadata
   dictionary over file:line:col and "coreai"/"torch" ("op_id":N:0) name
   locations; the others a bare "coreai"("op_id":N:0). The
   {-# dialect_resources #-} trailer holds every w_N with a 16-byte
   placeholder blob, so the text stays ~20 MB instead of 2 GiB of hex.
2. mlir-opt-22 --allow-unregistered-dialect --emit-bytecode turns it into
   stock bytecode (every section written by MLIR itself).
3. The Resource (5) and ResourceOffset (6) sections are rewritten to give
   each blob its real size (B bytes of deterministic pseudo-random data,
   alignment kept, 0xCB padding recomputed); all other sections are copied
   byte for byte, only their header padding is recomputed. The blob sizes
   then match the tensor types, so the file is what MLIR itself would write
   for the same IR with full weights.

The caller (bench-reader) checks that mlir-opt-22 parses the result.
Prints "ops=N size=BYTES" on success.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

MAGIC = b"ML\xefR"
RESOURCE, RESOURCE_OFFSET = 5, 6
PAD = 0xCB


# --- MLIR bytecode varints ---------------------------------------------------

def read_varint(buf, pos):
    first = buf[pos]
    if first & 1:
        return first >> 1, pos + 1
    if first == 0:
        return int.from_bytes(buf[pos + 1:pos + 9], "little"), pos + 9
    n = (first & -first).bit_length()  # trailing zeros + 1 = total bytes
    value = int.from_bytes(buf[pos:pos + n], "little") >> n
    return value, pos + n


def varint(value):
    for n in range(1, 9):
        if value < (1 << (7 * n)):
            return ((value << n) | (1 << (n - 1))).to_bytes(n, "little")
    return b"\x00" + value.to_bytes(8, "little")


def parse_sections(buf):
    """Returns (header bytes, [(id, alignment, payload memoryview)])."""
    if buf[:4] != MAGIC:
        raise SystemExit("gen_asset: mlir-opt output is not bytecode")
    _, pos = read_varint(buf, 4)
    pos = buf.index(b"\x00", pos) + 1  # producer string
    header = bytes(buf[:pos])
    sections = []
    while pos < len(buf):
        id_aligned = buf[pos]
        length, pos = read_varint(buf, pos + 1)
        alignment = 1
        if id_aligned & 0x80:
            alignment, pos = read_varint(buf, pos)
            while pos % alignment:
                pos += 1
        sections.append((id_aligned & 0x7F, alignment, buf[pos:pos + length]))
        pos += length
    return header, sections


# --- The IR text ---------------------------------------------------------------

ELEMENTWISE = ["coreai.decomposable.broadcasting_add", "coreai.mul", "coreai.relu",
               "coreai.sigmoid", "coreai.tanh", "coreai.sub", "coreai.gelu"]
BINARY = {"coreai.decomposable.broadcasting_add", "coreai.mul", "coreai.sub"}


def write_text(path, n_ops, n_weights, weight_bytes):
    elems = weight_bytes // 2  # f16
    rows = 1
    while rows * rows < elems:
        rows *= 2
    cols = elems // rows
    if rows * cols * 2 != weight_bytes:
        raise SystemExit("gen_asset: --weight-bytes must be 2 * power of two")
    act = f"tensor<1x{rows}xf16>"
    out_t = f"tensor<1x{cols}xf16>"
    wt = f"tensor<{rows}x{cols}xf16>"
    # Each graph: coreai.graph + coreai.output; the module itself is 1 op.
    graphs = max(1, n_weights // 32)
    fixed = 1 + 2 * graphs + 2 * n_weights  # module, graph+output, const+matmul
    extra = max(0, n_ops - fixed)
    per_layer, remainder = divmod(extra, n_weights)

    op_id = 0
    count = 0
    lines = ['"builtin.module"() ({']

    def loc(kind, depth):
        nonlocal op_id
        op_id += 1
        if op_id % 4 == 0:  # a quarter: bare op_id name location
            return f'loc("coreai"("op_id":{op_id}:0))'
        return ('loc(fused<{call_stack = ["%s$%d", "Block$%d", "Model$1"], '
                'identifiers = ["%s_%d"]}>['
                '"/Users/alice/miniconda3/lib/python3.11/site-packages/torch/nn/modules/%s.py":%d:0, '
                '"/Users/alice/projects/model/model.py":%d:0, '
                '"coreai"("op_id":%d:0), "torch"("op_id":%d:0)])'
                % (kind.capitalize(), op_id, depth, kind, op_id, kind,
                   100 + op_id % 900, 10 + depth, op_id, 2 * op_id + 1))

    w = 0
    per_graph = [n_weights // graphs + (1 if g < n_weights % graphs else 0)
                 for g in range(graphs)]
    for g in range(graphs):
        lines.append('  "coreai.graph"() ({')
        lines.append(f'  ^bb0(%x: {act} loc(unknown)):')
        count += 1
        h = "%x"
        for layer in range(per_graph[g]):
            lines.append(f'    %w{w} = "coreai.constant"() {{value = dense_resource<w_{w}> : {wt}}}'
                         f' : () -> {wt} {loc("constant", layer)}')
            lines.append(f'    %m{w} = "coreai.matmul"({h}, %w{w}) : ({act}, {wt}) -> {out_t}'
                         f' {loc("linear", layer)}')
            count += 2
            cur = f"%m{w}"
            n_elem = per_layer + (1 if w < remainder else 0)
            for e in range(n_elem):
                name = ELEMENTWISE[e % len(ELEMENTWISE)]
                res = f"%e{w}_{e}"
                if name in BINARY:
                    lines.append(f'    {res} = "{name}"({cur}, {cur}) : ({out_t}, {out_t}) -> {out_t}'
                                 f' {loc(name.rsplit(".", 1)[1], layer)}')
                else:
                    lines.append(f'    {res} = "{name}"({cur}) : ({out_t}) -> {out_t}'
                                 f' {loc(name.rsplit(".", 1)[1], layer)}')
                cur = res
                count += 1
            # Square weights keep the chain well typed (rows == cols).
            h = cur if rows == cols else "%x"
            w += 1
        lines.append(f'    "coreai.output"({h}) : ({act}) -> () {loc("output", 0)}')
        count += 1
        lines.append(f'  }}) {{sym_name = "graph_{g}", function_type = ({act}) -> {act}}}'
                     ' : () -> () loc(unknown)')
    lines.append('}) : () -> () loc(unknown)')
    count += 1
    # Placeholder blobs: alignment 4, 16 bytes of data.
    lines.append("{-#\n  dialect_resources: {\n    builtin: {")
    lines.append(",\n".join(f'      w_{i}: "0x04000000{"00" * 16}"' for i in range(n_weights)))
    lines.append("    }\n  }\n#-}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return count


# --- Resource section rewrite -----------------------------------------------------

class Data:
    """Deterministic pseudo-random weight bytes, streamed in chunks."""

    def __init__(self, seed=20250101, block=1 << 22):
        self.block = random.Random(seed).randbytes(block)

    def write(self, out, index, size):
        start = (index * 4099) % len(self.block)
        while size:
            chunk = self.block[start:start + size]
            out.write(chunk)
            size -= len(chunk)
            start = 0


def rewrite(small_path, out_path, weight_bytes):
    with open(small_path, "rb") as f:
        buf = f.read()
    header, sections = parse_sections(buf)
    by_id = {sid: (al, payload) for sid, al, payload in sections}
    if RESOURCE not in by_id or RESOURCE_OFFSET not in by_id:
        raise SystemExit("gen_asset: mlir-opt wrote no resource sections")

    # ResourceOffset: external groups, then dialect groups; entries are
    # (key string index, entry size, kind byte).
    offsets = by_id[RESOURCE_OFFSET][1]
    res_payload = by_id[RESOURCE][1]
    new_offsets = bytearray()
    plan = []  # per entry: (old entry bytes, kind, where its size goes)
    pos = 0
    res_pos = 0

    def copy_varint():
        nonlocal pos
        value, end = read_varint(offsets, pos)
        new_offsets.extend(offsets[pos:end])
        pos = end
        return value

    def group():
        nonlocal pos, res_pos
        n = copy_varint()
        for _ in range(n):
            copy_varint()  # key
            size, pos = read_varint(offsets, pos)
            kind = offsets[pos]
            pos += 1
            old = res_payload[res_pos:res_pos + size]
            res_pos += size
            plan.append((old, kind, len(new_offsets)))
            new_offsets.append(kind)

    n_external = copy_varint()
    for _ in range(n_external):
        copy_varint()
        group()
    while pos < len(offsets):
        copy_varint()  # dialect
        group()

    # Blob padding is relative to the file start (MLIR checks the address of
    # the data; the buffer is page aligned), and the section may be unaligned
    # (MLIR 22 writes it so), so the layout depends on where the section's
    # data starts.
    def layout(data_start):
        entries = []  # (prefix or raw entry bytes, blob index or None, data size)
        at = data_start
        blob_index = 0
        for old, kind, _ in plan:
            if kind == 0 and len(old):  # blob: resize, repad
                alignment, _ = read_varint(old, 0)
                prefix = bytearray(varint(alignment) + varint(weight_bytes))
                while (at + len(prefix)) % alignment:
                    prefix.append(PAD)
                entries.append((bytes(prefix), blob_index, weight_bytes))
                at += len(prefix) + weight_bytes
                blob_index += 1
            else:
                entries.append((bytes(old), None, 0))
                at += len(old)
        return entries, at - data_start

    def patched_offsets(entries):
        # Sizes go in before each kind byte.
        out = bytearray()
        last = 0
        for (_, _, at), (prefix, _, size) in zip(plan, entries):
            out.extend(new_offsets[last:at])
            out.extend(varint(len(prefix) + size))
            last = at
        out.extend(new_offsets[last:])
        return out

    def section_header(sid, alignment, length, pos):
        head = bytearray([sid | (0x80 if alignment > 1 else 0)]) + varint(length)
        if alignment > 1:
            head += varint(alignment)
            while (pos + len(head)) % alignment:
                head.append(PAD)
        return bytes(head)

    # Plan every section's header and payload length (fixed point for the
    # resource section: its length varint moves its data start).
    entries, _ = layout(0)
    plans = []
    for _ in range(8):
        plans = []
        pos = len(header)
        offsets_bytes = patched_offsets(entries)
        stable = True
        for sid, alignment, payload in sections:
            if sid == RESOURCE:
                guess_len = sum(len(p) + n for p, _, n in entries)
                head = section_header(sid, alignment, guess_len, pos)
                new_entries, length = layout(pos + len(head))
                if length != guess_len or new_entries != entries:
                    entries, stable = new_entries, False
            elif sid == RESOURCE_OFFSET:
                length = len(offsets_bytes)
                head = section_header(sid, alignment, length, pos)
            else:
                length = len(payload)
                head = section_header(sid, alignment, length, pos)
            plans.append((sid, head, payload, length))
            pos += len(head) + length
        if stable:
            break
    else:
        raise SystemExit("gen_asset: resource layout did not converge")

    data = Data()
    with open(out_path, "wb") as out:
        out.write(header)
        for sid, head, payload, length in plans:
            out.write(head)
            if sid == RESOURCE:
                for prefix, idx, size in entries:
                    out.write(prefix)
                    if idx is not None:
                        data.write(out, idx, size)
            elif sid == RESOURCE_OFFSET:
                out.write(offsets_bytes)
            else:
                out.write(payload)
        size = out.tell()
    if size != pos:
        raise SystemExit(f"gen_asset: wrote {size} bytes, planned {pos}")
    return size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ops", type=int, default=50000)
    ap.add_argument("--weights", type=int, default=2048)
    ap.add_argument("--weight-bytes", type=int, default=512 * 1024)
    ap.add_argument("--mlir-opt", default="mlir-opt-22")
    args = ap.parse_args()

    out_dir = os.path.dirname(os.path.abspath(args.out))
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        text = os.path.join(tmp, "asset.mlir")
        small = os.path.join(tmp, "small.mlirb")
        ops = write_text(text, args.ops, args.weights, args.weight_bytes)
        subprocess.run([args.mlir_opt, "--allow-unregistered-dialect",
                        "--emit-bytecode", text, "-o", small], check=True)
        partial = args.out + ".partial"
        size = rewrite(small, partial, args.weight_bytes)
        os.replace(partial, args.out)
    print(f"ops={ops} size={size}")


if __name__ == "__main__":
    sys.exit(main())
