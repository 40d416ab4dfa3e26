#!/usr/bin/env python3
"""Prints the .pre-commit-config.yaml snippet of docs/audit.md (the first
yaml block of its "pre-commit" section), so the test runs what users copy.

  doc_snippet.py docs/audit.md
"""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
parts = re.split(r"^#+ pre-commit\n", text, maxsplit=1, flags=re.M)
if len(parts) != 2:
    sys.exit("no pre-commit section")
match = re.search(r"```yaml\n(.*?)```", parts[1], re.S)
if not match:
    sys.exit("no yaml block in the pre-commit section")
sys.stdout.write(match.group(1))
