"""Prints an aimodel-diff/1 document's changes, one line each:
GRAPH KIND OP SOURCE_INDEX TARGET_INDEX DETAIL ('-' for an absent index),
in the document's order; nothing for an identical diff."""
import json
import sys

doc = json.load(open(sys.argv[1], encoding="utf-8"))
for graph in doc["graphs"]:
    name = graph["source"] or graph["target"]
    for c in graph["changes"]:
        print(name, c["kind"], c["op"], c.get("source_index", "-"),
              c.get("target_index", "-"), c["detail"])
