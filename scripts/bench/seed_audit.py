#!/usr/bin/env python3
"""The baseline of `aimodel audit --metadata-only` in scripts/bench-audit.

  seed_audit.py PATH...

Issue 23 measures the metadata-only audit against "the seed's Python audit
script". No such script is in the repository's history, in scripts/ or
tests/, nor in ../shared, so this is a faithful minimal equivalent of what
`audit --metadata-only` checks per bundle, written the way a team's first
gate would be: walk PATH for *.aimodel / *.aimodelc folders, parse
metadata.json (an object; a .aimodel without "producer" is AIM001), and
compare main.hash with the SHA-256 of the mlirb (AIM003; a missing member
is AIM004, unusable JSON AIM005). Prints one line per finding and a count;
exit 0 (a benchmark baseline, not a gate).
"""
import hashlib
import json
import os
import sys


def audit_bundle(folder, findings):
    compiled = folder.endswith(".aimodelc")
    try:
        with open(os.path.join(folder, "metadata.json"), "rb") as f:
            metadata = json.loads(f.read())
        if not isinstance(metadata, dict):
            raise ValueError("not an object")
        if not compiled and "producer" not in metadata:
            findings.append(("AIM001", folder))
    except FileNotFoundError:
        findings.append(("AIM004", folder))
    except (OSError, ValueError):
        findings.append(("AIM005", folder))
    mlirb = [n for n in os.listdir(folder) if n.endswith(".mlirb")]
    if not mlirb:
        findings.append(("AIM004", folder))
        return
    with open(os.path.join(folder, mlirb[0]), "rb") as f:
        digest = hashlib.sha256(f.read()).digest()
    try:
        with open(os.path.join(folder, "main.hash"), "rb") as f:
            if f.read() != digest:
                findings.append(("AIM003", folder))
    except OSError:
        findings.append(("AIM003", folder))


def main():
    findings = []
    bundles = 0
    for root in sys.argv[1:]:
        for folder, dirs, _ in os.walk(root):
            dirs.sort()
            for name in list(dirs):
                if name.endswith((".aimodel", ".aimodelc")):
                    audit_bundle(os.path.join(folder, name), findings)
                    bundles += 1
                    dirs.remove(name)
    for rule, folder in findings:
        print(f"{folder}: {rule}")
    print(f"{bundles} bundles, {len(findings)} findings")


if __name__ == "__main__":
    main()
