#!/usr/bin/env python3
"""Kills `aimodel strip --in-place` at random moments and checks every asset.

    in_place_kills.py AIMODEL WORKDIR SOURCE.aimodel [RUNS] [--backup]

Builds a tree of copies of SOURCE (a legacy asset) in nested folders, then
RUNS times: starts an in-place repair (-j 2), SIGKILLs it after a random
delay, and checks that every asset is whole: either exactly the original,
or a verified stripped copy (main.hash is the SHA-256 of main.mlirb, the
same member names, a strip record). With --backup every replaced asset's
original must be in the backup, byte for byte. A last run must finish:
exit 0, nothing left to strip, no temporary left. Prints "ok RUNS runs,
K killed mid-run" or the first asset found wrong (exit 1).
"""
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

aimodel, work, source = sys.argv[1], sys.argv[2], sys.argv[3]
runs = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4].isdigit() else 20
with_backup = "--backup" in sys.argv
aside_ok = "--aside-ok" in sys.argv
random.seed(7)


def files_of(folder):
    out = {}
    for root, dirs, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, folder)] = open(p, "rb").read()
    return out


original = files_of(source)
shutil.rmtree(work, ignore_errors=True)
tree, backup = os.path.join(work, "tree"), os.path.join(work, "originals")
assets = []
for i in range(120):
    rel = os.path.join("group%d" % (i % 6), "m%03d.aimodel" % i)
    shutil.copytree(source, os.path.join(tree, rel))
    assets.append(rel)


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def check(run):
    for rel in assets:
        path = os.path.join(tree, rel)
        if not os.path.isdir(path):
            # Without an atomic swap (--aside-ok: the POSIX fallback) the
            # original may sit aside in its temporary; the next run puts it
            # back.
            folder, name = os.path.split(path)
            aside = [os.path.join(folder, d, "old") for d in os.listdir(folder)
                     if d.startswith("." + name + ".aimodel-strip-")]
            if aside_ok and any(os.path.isdir(a) and files_of(a) == original
                                for a in aside):
                continue
            fail("run %d: %s is missing" % (run, rel))
        now = files_of(path)
        if now == original:
            continue
        if set(now) != set(original):
            fail("run %d: %s holds %s" % (run, rel, sorted(now)))
        if hashlib.sha256(now["main.mlirb"]).digest() != now["main.hash"]:
            fail("run %d: %s is half written (main.hash)" % (run, rel))
        if "strip" not in json.loads(now["metadata.json"]):
            fail("run %d: %s has no strip record" % (run, rel))
        if with_backup and files_of(os.path.join(backup, rel)) != original:
            fail("run %d: the original of %s is not in the backup" % (run, rel))


def command():
    cmd = [aimodel, "strip", "-q", "-j", "2", "--in-place", tree]
    return cmd + (["--backup", backup] if with_backup else [])


killed = 0
for run in range(runs):
    proc = subprocess.Popen(command(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(random.uniform(0.0, 0.12))
    if proc.poll() is None:
        killed += 1
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    check(run)
    if run % 4 == 3:  # now and then, start over from legacy copies
        for rel in assets:
            # One set aside by a killed POSIX swap waits for the next run.
            if random.random() < 0.5 and os.path.isdir(os.path.join(tree, rel)):
                shutil.rmtree(os.path.join(tree, rel))
                shutil.copytree(source, os.path.join(tree, rel))
                if with_backup:
                    shutil.rmtree(os.path.join(backup, rel), ignore_errors=True)

done = subprocess.run(command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
if done.returncode != 0:
    fail("the last run exited %d: %s" % (done.returncode, done.stderr.decode()))
check(runs)
for rel in assets:
    if not os.path.isdir(os.path.join(tree, rel)):
        fail("the last run left %s missing" % rel)
    if files_of(os.path.join(tree, rel)) == original:
        fail("the last run left %s unstripped" % rel)
for root, dirs, files in os.walk(work):
    for d in dirs:
        if ".aimodel-strip-" in d:
            left = os.path.join(root, d)
            fail("a temporary is left: %s %s; the last run said: %s" % (
                left, sorted(os.listdir(left)), done.stderr.decode()))
if killed < runs // 2:
    fail("only %d of %d runs were killed mid-run: the tree is too small" %
         (killed, runs))
print("ok %d runs, %d killed mid-run" % (runs, killed))
