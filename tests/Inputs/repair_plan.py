#!/usr/bin/env python3
"""The repair every audit report suggests, run as given, does what it says.

    repair_plan.py AIMODEL FIXTURES WORK [TRIALS]

Each trial builds a tree of random copies of fixtures whose fate under
`aimodel strip --in-place` is known (repaired, repaired only with --rehash,
skipped as compiled, broken or holding a symlink, nothing to do), at random
depths and under random names (spaces, quotes), and audits it with random
inputs (the root, its top folders, absolute or relative). Then:
- text, Markdown and HTML suggest the same commands with the same counts,
  and the counts are the ground truth's;
- the commands, run by bash exactly as printed, change exactly the assets
  counted, which then audit without AIM002/AIM003/AIM007/AIM012, and leave
  every other file byte for byte as it was;
- auditing again suggests no command, and skips what it skipped before.
Prints "ok TRIALS trials, N assets" or the first difference (exit 1).
"""
import html
import os
import random
import re
import shutil
import subprocess
import sys

aimodel, fixtures, work = sys.argv[1], sys.argv[2], sys.argv[3]
trials = int(sys.argv[4]) if len(sys.argv) > 4 else 6

# Fixture (relative to FIXTURES/audit) -> what strip --in-place does to it.
POOL = {
    "AIM002/restamped.aimodel": "strip",
    "AIM007/paths.aimodel": "strip",
    "AIM012/op-ids.aimodel": "strip",
    "provenance/sources/from-legacy.aimodel": "strip",
    "AIM003/hex-hash.aimodel": "rehash",
    "AIM003/missing-hash.aimodel": "rehash",
    "AIM003/short-hash.aimodel": "rehash",
    "AIM003/wrong-hash.aimodel": "rehash",
    "AIM005/not-json.aimodel": "broken",
    "AIM005/truncated.aimodel": "broken",
    "AIM006/not-bytecode.aimodel": "broken",
    "AIM004/missing-mlirb.aimodel": "broken",
    "AIM010/member-link.aimodel": "symlink",
    "AIM008/legacy.h18p.aimodelc": "compiled",
    "clean/tiny.aimodel": "nothing",
    "clean/modern.aimodel": "nothing",
    "AIM001/legacy.aimodel": "nothing",
    "clean/tiny.h18p.aimodelc": "nothing",
}
REPAIRED = ("AIM002", "AIM003", "AIM007", "AIM012")
NAMES = ["m", "model one", "it's", "dec-layer", "x"]


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def snapshot(root):
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if os.path.islink(
                os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            out[rel] = ("link:" + os.readlink(p)) if os.path.islink(p) \
                else open(p, "rb").read()
    return out


def build(rng, tree):
    shutil.rmtree(tree, ignore_errors=True)
    assets = {}
    for i in range(rng.randint(8, 30)):
        source, fate = rng.choice(list(POOL.items()))
        # A payload asset whose hash is also wrong: --rehash repairs it.
        zero_hash = fate == "strip" and rng.random() < 0.2
        folders = [rng.choice(["a", "b b", "c'"]) for _ in
                   range(rng.randint(0, 3))]
        suffix = ".h18p.aimodelc" if source.endswith(".aimodelc") \
            else ".aimodel"
        name = "%s%d%s" % (rng.choice(NAMES), i, suffix)
        rel = os.path.join(*(folders + [name]))
        shutil.copytree(os.path.join(fixtures, "audit", source),
                        os.path.join(tree, rel), symlinks=True)
        if zero_hash:
            with open(os.path.join(tree, rel, "main.hash"), "wb") as f:
                f.write(bytes(32))
            fate = "rehash"
        assets[rel] = fate
    return assets


def run(args, cwd, ok=(0, 1)):
    p = subprocess.run(args, cwd=cwd, capture_output=True)
    if p.returncode not in ok:
        fail("%s exited %d: %s" % (args, p.returncode,
                                   p.stderr.decode(errors="replace")))
    return p.stdout.decode("utf-8", errors="surrogateescape")


def plans(cwd, inputs):
    """(commands, sentences) as each report format gives them."""
    text = run([aimodel, "audit", "--fail-on", "never"] + inputs, cwd)
    md = run([aimodel, "audit", "--fail-on", "never", "--format",
              "markdown"] + inputs, cwd)
    page = run([aimodel, "audit", "--fail-on", "never", "--format",
                "html"] + inputs, cwd)
    got = {
        "text": [(m.group(1), m.group(2)) for m in re.finditer(
            r"^repair: `(.*)` (repairs \d+ assets?)", text, re.M)],
        # One backtick: the commands hold none.
        "markdown": [(m.group(1), m.group(2)) for m in re.finditer(
            r"^- `(.*)` (repairs \d+ assets?)", md, re.M)],
        "html": [(html.unescape(m.group(1)), m.group(2)) for m in re.finditer(
            r"<pre>(.*)</pre>\n<p>It (repairs \d+ assets?)", page)],
    }
    if not got["text"] == got["markdown"] == got["html"]:
        fail("the formats disagree: %r" % got)
    skipped = re.findall(r"^repair: not repaired by strip: (.*)$", text, re.M)
    return got["text"], skipped


def main():
    rng = random.Random(20261203)
    total = 0
    for trial in range(trials):
        tree = os.path.join(work, "t%d" % trial, "tree")
        assets = build(rng, tree)
        total += len(assets)
        tops = sorted({a.split(os.sep)[0] for a in assets})
        if rng.random() < 0.5:
            inputs = [rng.choice([".", tree])]
        else:
            inputs = [t if rng.random() < 0.5 else os.path.join(tree, t)
                      for t in tops]
        before = snapshot(tree)
        commands, skipped = plans(tree, inputs)
        count = lambda fate: sum(1 for f in assets.values() if f == fate)
        want = []
        for fate in ("strip", "rehash"):
            n = count(fate)
            if n:
                want.append("repairs %d asset%s" % (n, "" if n == 1 else "s"))
        if [c[1] for c in commands] != want:
            fail("trial %d (%s): counts %r, expected %r" %
                 (trial, inputs, [c[1] for c in commands], want))
        for fate, noun in (("compiled", "compiled bundle"),
                           ("broken", "unreadable or incomplete asset"),
                           ("symlink", "asset")):
            n = count(fate)
            said = re.search(r"\b%d %s" % (n, noun), skipped[0]) \
                if skipped else None
            if n and not said:
                fail("trial %d: %d %s not said skipped: %r" %
                     (trial, n, fate, skipped))
        for command, _ in commands:
            if not command.startswith("aimodel strip --in-place "):
                fail("not an in-place repair: " + command)
            run(["bash", "-c", aimodel + command[len("aimodel"):]], tree)
        after = snapshot(tree)
        for rel, fate in assets.items():
            mine = lambda files: {k: v for k, v in files.items()
                                  if k == rel or k.startswith(rel + os.sep)}
            changed = mine(before) != mine(after)
            if changed != (fate in ("strip", "rehash")):
                fail("trial %d: %s (%s) %s" % (
                    trial, rel, fate, "changed" if changed else "unchanged"))
            if fate in ("strip", "rehash"):
                out = run([aimodel, "audit", rel], tree)
                if any(rule in out for rule in REPAIRED):
                    fail("trial %d: %s still reports %s" % (trial, rel, out))
        again, skipped_again = plans(tree, inputs)
        if again or skipped_again != skipped:
            fail("trial %d: after the repair: %r %r" % (
                trial, again, skipped_again))
    print("ok %d trials, %d assets" % (trials, total))


main()
