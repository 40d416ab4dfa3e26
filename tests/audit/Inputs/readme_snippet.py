#!/usr/bin/env python3
"""Prints the README's .pre-commit-config.yaml snippet (the first yaml block
of its "### pre-commit" section), so the test runs what users copy.

  readme_snippet.py README.md
"""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("\n### pre-commit\n", 1)[1]
match = re.search(r"```yaml\n(.*?)```", section, re.S)
if not match:
    sys.exit("no yaml block in the pre-commit section")
sys.stdout.write(match.group(1))
