#!/usr/bin/env python3
"""Checks a stripped asset's strip record against the asset it came from.

    strip_record.py SOURCE.aimodel COPY.aimodel

The copy's metadata.json must be the source's text with one member added
(or one "strip" value replaced): every other byte the same. The record must
name the source's and the copy's main.mlirb by size and SHA-256, the
copy's being its main.hash. Prints "record ok" or why not; exit 1 if not.
"""
import hashlib
import json
import os
import sys


def fail(why):
    print("record wrong: " + why)
    sys.exit(1)


src, out = sys.argv[1], sys.argv[2]
before = open(os.path.join(src, "metadata.json"), "rb").read()
after = open(os.path.join(out, "metadata.json"), "rb").read()
old, new = json.loads(before), json.loads(after)
record = new.pop("strip", None)
if record is None:
    fail("no strip key")
old.pop("strip", None)
if old != new:
    fail("other keys changed")
if "strip" not in json.loads(before):
    # One insertion: a common prefix and suffix make up the whole source.
    p = 0
    while p < len(before) and before[p] == after[p]:
        p += 1
    s = 0
    while s < len(before) - p and before[-1 - s] == after[-1 - s]:
        s += 1
    if p + s != len(before):
        fail("bytes other than the record changed")


def described(folder):
    data = open(os.path.join(folder, "main.mlirb"), "rb").read()
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


if record.get("from_main_mlirb") != described(src):
    fail("from_main_mlirb is not the source's main.mlirb")
if record.get("main_mlirb") != described(out):
    fail("main_mlirb is not the copy's main.mlirb")
stored = open(os.path.join(out, "main.hash"), "rb").read().hex()
if record["main_mlirb"]["sha256"] != stored:
    fail("main_mlirb.sha256 is not main.hash")
if record.get("tool") != "aimodel strip":
    fail("tool is " + repr(record.get("tool")))
print("record ok")
