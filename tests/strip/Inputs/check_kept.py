"""Checks what `aimodel strip --format json` says it kept against the bytes.

usage: check_kept.py REPORT.json OUTPUT EXIT
         the output holds a home folder only if the report keeps strings,
         names each, and strip exited 1 for them
       check_kept.py --audit AUDIT.json REPORT.json...
         for each strip report (its "input" a delegate of an audited
         bundle): AIM007 on that file exactly when strip kept something,
         naming what it kept
"""
import json
import os
import sys


def check_output(report_path, output, code):
    asset = json.load(open(report_path))["assets"][0]
    kept = asset["strings_kept"]
    data = open(output, "rb").read()
    homes = data.count(b"/Users/") + data.count(b"/home/")
    if kept["count"] == 0:
        if homes:
            sys.exit("%s: %d home folders in the bytes, none reported" %
                     (output, homes))
        if code != 0:
            sys.exit("%s: exit %d with nothing kept" % (output, code))
    else:
        if code != 1:
            sys.exit("%s: kept %d strings, exit %d" % (output, kept["count"],
                                                      code))
        if not kept["reason"]:
            sys.exit("%s: kept strings without a reason" % output)
        for example in kept["examples"]:
            if example.encode() not in data:
                sys.exit("%s: reports %r, not in the bytes" % (output,
                                                               example))


def check_audit(audit_path, reports):
    audit = json.load(open(audit_path))
    payload = {}
    for bundle in audit["bundles"]:
        for finding in bundle["findings"]:
            if finding["rule"] == "AIM007":
                payload[os.path.join(bundle["path"],
                                     finding["file"])] = finding["message"]
    for report_path in reports:
        asset = json.load(open(report_path))["assets"][0]
        name = os.path.normpath(asset["input"])
        kept = asset["strings_kept"]
        message = payload.get(name)
        if kept["count"] == 0 and message:
            sys.exit("%s: strip kept nothing, the audit says: %s" %
                     (name, message))
        if kept["count"] and not message:
            sys.exit("%s: strip kept %d strings, the audit says nothing" %
                     (name, kept["count"]))
        for example in kept["examples"]:
            if example not in message:
                sys.exit("%s: the audit does not name %r" % (name, example))
    print("ok: %d files, the audit reports what strip kept" % len(reports))


if sys.argv[1] == "--audit":
    check_audit(sys.argv[2], sys.argv[3:])
else:
    check_output(sys.argv[1], sys.argv[2], int(sys.argv[3]))
