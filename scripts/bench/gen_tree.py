#!/usr/bin/env python3
"""Writes a tree of small Core AI assets for the audit benchmark.

  gen_tree.py OUT --bundles N --legacy-mlirb L.mlirb --modern-mlirb M.mlirb
              [--release-mlirb R.mlirb] [--compiled-mlirb C.mlirb]

Every asset is X.aimodel/{metadata.json, main.mlirb, main.hash}, 100 to a
folder. One in four is legacy (the coreai-torch 0.4.0 IR, with fused
call-stack locations; metadata without "producer"); the rest are modern
(clean IR), or with --release-mlirb RELEASE-mode 0.4.0 exports (bare op-id
locations, no producer), so every bundle has IR-rule evidence. With
--compiled-mlirb a third of the N bundles are compiled .aimodelc (C as their
main-h18p.mlirb and delegate graph, a stats.json), each compiled from one of
the sources and kept in a folder of its own (compiled/group-XXX), so every
link crosses the tree. --legacy-mlirb and --release-mlirb may each name
several files: bundle i takes file i // 4 (legacy) or i (release) modulo
their count, so a tree of realistic assets is not one file 10,000 times.
Deterministic: the same arguments write the same bytes.
"""
import argparse
import hashlib
import json
import os


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--bundles", type=int, default=10000)
    parser.add_argument("--legacy-mlirb", required=True, nargs="+")
    parser.add_argument("--modern-mlirb", required=True)
    parser.add_argument("--release-mlirb", nargs="+")
    parser.add_argument("--compiled-mlirb")
    args = parser.parse_args()

    templates = {}
    sources = [("legacy", args.legacy_mlirb), ("modern", [args.modern_mlirb])]
    if args.release_mlirb:
        sources.append(("release", args.release_mlirb))
    rest = "release" if args.release_mlirb else "modern"
    for kind, paths in sources:
        templates[kind] = []
        for path in paths:
            with open(path, "rb") as f:
                data = f.read()
            templates[kind].append((data, hashlib.sha256(data).digest()))

    def template(kind, i):
        choices = templates[kind]
        return choices[(i // 4 if kind == "legacy" else i) % len(choices)]

    compiled = args.bundles // 3 if args.compiled_mlirb else 0
    sources = args.bundles - compiled
    for i in range(sources):
        kind = "legacy" if i % 4 == 0 else rest
        folder = os.path.join(args.out, "group-%03d" % (i // 100), "model-%05d.aimodel" % i)
        os.makedirs(folder, exist_ok=True)
        metadata = {"assetVersion": "2.0", "creationDate": "20260614T071406Z"}
        if kind == "modern":
            metadata["producer"] = "coreai-core 1.0.0b2"
        data, digest = template(kind, i)
        with open(os.path.join(folder, "metadata.json"), "w") as f:
            json.dump(metadata, f, indent=2, sort_keys=True)
        with open(os.path.join(folder, "main.mlirb"), "wb") as f:
            f.write(data)
        with open(os.path.join(folder, "main.hash"), "wb") as f:
            f.write(digest)
    if compiled:
        with open(args.compiled_mlirb, "rb") as f:
            stub = f.read()
    for j in range(compiled):
        # Compiled from source j (same stem), by a current coreai-build.
        i = j
        kind = "legacy" if i % 4 == 0 else rest
        folder = os.path.join(args.out, "compiled", "group-%03d" % (j // 100),
                              "model-%05d.h18p.aimodelc" % i)
        delegates = os.path.join(folder, "main-h18p-delegates", "MPSGraph",
                                 "mpsExecutable.mpsgraphpackage")
        os.makedirs(delegates, exist_ok=True)
        metadata = {"assetVersion": "2.0", "creationDate": "20260706T120000Z",
                    "producer": "coreai-build-3600.83.1",
                    "sourceHash": template(kind, i)[1].hex().upper()}
        with open(os.path.join(folder, "metadata.json"), "w") as f:
            json.dump(metadata, f, indent=2, sort_keys=True)
        with open(os.path.join(folder, "main-h18p.mlirb"), "wb") as f:
            f.write(stub)
        with open(os.path.join(folder, "main.hash"), "wb") as f:
            f.write(hashlib.sha256(stub).digest())
        with open(os.path.join(delegates, "original_model_0.mpsgraph"), "wb") as f:
            f.write(stub)
        with open(os.path.join(folder, "stats.json"), "w") as f:
            json.dump({"operationDistribution": [{"name": "relu", "count": 1}]}, f)
    print("bundles=%d sources=%d compiled=%d legacy=%d" %
          (args.bundles, sources, compiled, (sources + 3) // 4))


if __name__ == "__main__":
    main()
