"""Checks that every path in an aimodel JSON report names the real file.

usage: json_paths.py audit|stats REPORT.json TREE

A path that is valid UTF-8 must be written exactly (so it opens as is) and
carry no *_bytes field; any other path must carry *_bytes, whose hex decodes
to bytes that open. Both kinds must occur under TREE.
"""
import json
import os
import sys

mode, report_path, tree = sys.argv[1], sys.argv[2], os.fsencode(sys.argv[3])
with open(report_path, "rb") as f:
    report = json.loads(f.read().decode("utf-8"))


def exact(entry, key):
    """The bytes `entry[key]` stands for, checking the *_bytes rule."""
    text = entry[key]
    if key + "_bytes" in entry:
        raw = bytes.fromhex(entry[key + "_bytes"])
        try:
            raw.decode("utf-8")
            sys.exit(f"{key}_bytes given for valid UTF-8: {raw!r}")
        except UnicodeDecodeError:
            pass
        return raw, True
    return text.encode("utf-8"), False


seen = {"exact": 0, "hex": 0}
entries = report["bundles"] if mode == "audit" else report["files"]
for entry in entries:
    path, hexed = exact(entry, "path")
    seen["hex" if hexed else "exact"] += 1
    if not path.startswith(tree) or not os.path.lexists(path):
        sys.exit(f"path does not name a file: {path!r}")
    for finding in entry.get("findings", []):
        name, hexed = exact(finding, "file")
        seen["hex" if hexed else "exact"] += 1
        if not os.path.lexists(os.path.join(path, name)):
            sys.exit(f"file does not name a file: {path!r} / {name!r}")
if not seen["exact"] or not seen["hex"]:
    sys.exit(f"expected both kinds of path, saw {seen}")
print("paths ok:", len(entries), "entries")
