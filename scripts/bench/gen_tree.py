#!/usr/bin/env python3
"""Writes a tree of small Core AI assets for the audit benchmark.

  gen_tree.py OUT --bundles N --legacy-mlirb L.mlirb --modern-mlirb M.mlirb
              [--release-mlirb R.mlirb]

Every asset is X.aimodel/{metadata.json, main.mlirb, main.hash}, 100 to a
folder. One in four is legacy (the coreai-torch 0.4.0 IR, with fused
call-stack locations; metadata without "producer"); the rest are modern
(clean IR), or with --release-mlirb RELEASE-mode 0.4.0 exports (bare op-id
locations, no producer), so every bundle has IR-rule evidence.
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
    parser.add_argument("--legacy-mlirb", required=True)
    parser.add_argument("--modern-mlirb", required=True)
    parser.add_argument("--release-mlirb")
    args = parser.parse_args()

    templates = {}
    sources = [("legacy", args.legacy_mlirb), ("modern", args.modern_mlirb)]
    if args.release_mlirb:
        sources.append(("release", args.release_mlirb))
    rest = "release" if args.release_mlirb else "modern"
    for kind, path in sources:
        with open(path, "rb") as f:
            data = f.read()
        templates[kind] = (data, hashlib.sha256(data).digest())

    for i in range(args.bundles):
        kind = "legacy" if i % 4 == 0 else rest
        folder = os.path.join(args.out, "group-%03d" % (i // 100), "model-%05d.aimodel" % i)
        os.makedirs(folder, exist_ok=True)
        metadata = {"assetVersion": "2.0", "creationDate": "20260614T071406Z"}
        if kind == "modern":
            metadata["producer"] = "coreai-core 1.0.0b2"
        data, digest = templates[kind]
        with open(os.path.join(folder, "metadata.json"), "w") as f:
            json.dump(metadata, f, indent=2, sort_keys=True)
        with open(os.path.join(folder, "main.mlirb"), "wb") as f:
            f.write(data)
        with open(os.path.join(folder, "main.hash"), "wb") as f:
            f.write(digest)
    print("bundles=%d legacy=%d" % (args.bundles, (args.bundles + 3) // 4))


if __name__ == "__main__":
    main()
