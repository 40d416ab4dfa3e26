#!/usr/bin/env python3
"""Edits a shard report as a hostile hand would, keeping its summary true
to its findings, so only the checks --merge makes beyond the summary can
catch it.

  tamper.py severity|unlink|relink IN.json OUT.json
    severity: the first error finding becomes info
    unlink:   the first compiled bundle with a source loses it
    relink:   the first source listing compiled bundles lists none
"""
import json
import sys

kind, src, out = sys.argv[1:4]
doc = json.load(open(src))
done = False
for bundle in doc["bundles"]:
    if done:
        break
    if kind == "severity":
        for finding in bundle["findings"]:
            if finding["severity"] == "error":
                finding["severity"] = "info"
                doc["summary"]["error"] -= 1
                doc["summary"]["info"] += 1
                done = True
                break
    elif kind == "unlink" and bundle.get("source"):
        bundle["source"] = None
        done = True
    elif kind == "relink" and bundle.get("compiled"):
        bundle["compiled"] = []
        done = True
if not done:
    sys.exit("nothing to tamper with in " + src)
json.dump(doc, open(out, "w"), indent=2)
