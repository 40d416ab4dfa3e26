"""Kills `aimodel strip` with SIGKILL at random moments and checks that DST
never exists partially: after every kill it is absent, or complete (the file
list of SRC minus what is skipped, and `aimodel audit` finds no AIM002,
AIM003, AIM006 or AIM007 in it); that the inputs are never modified; and
that re-running the same command completes the job and leaves no temporary.

usage: kill_strip.py AIMODEL SRC DST EXPECTED_SKIPPED... [--force]
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import time


def files(root):
    found = set()
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            path = os.path.join(folder, name)
            if not os.path.isdir(path) or os.path.islink(path):
                found.add(os.path.relpath(path, root))
    return found


def digests(root):
    result = {}
    for rel in files(root):
        path = os.path.join(root, rel)
        if os.path.islink(path):
            result[rel] = "link:" + os.readlink(path)
        else:
            with open(path, "rb") as f:
                result[rel] = hashlib.sha256(f.read()).hexdigest()
    return result


def check_complete(aimodel, src, dst, skipped):
    expected = {f for f in files(src)
                if not any(f == s or f.startswith(s + "/") for s in skipped)}
    got = files(dst)
    if got != expected:
        sys.exit("partial output: missing %s, extra %s" %
                 (sorted(expected - got)[:5], sorted(got - expected)[:5]))
    audit = subprocess.run([aimodel, "audit", "--format", "json",
                            "--fail-on", "never", dst],
                           capture_output=True, check=True)
    for bundle in json.loads(audit.stdout)["bundles"]:
        for finding in bundle["findings"]:
            if finding["rule"] in ("AIM002", "AIM003", "AIM006", "AIM007"):
                sys.exit("%s: %s in the output" % (bundle["path"],
                                                   finding["rule"]))


def temporaries(dst):
    parent, name = os.path.split(os.path.abspath(dst))
    prefix = "." + name + ".aimodel-strip-"
    return [n for n in os.listdir(parent) if n.startswith(prefix)]


def main():
    args = sys.argv[1:]
    force = "--force" in args
    args = [a for a in args if a != "--force"]
    aimodel, src, dst, skipped = args[0], args[1], args[2], args[3:]
    command = [aimodel, "strip", "-j", "2", "-q", src, "-o", dst]
    if force:
        command.insert(2, "--force")
    before = digests(src)
    # How long one whole run takes, so kills land before, during and after.
    start = time.monotonic()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    whole = time.monotonic() - start
    check_complete(aimodel, src, dst, skipped)
    if not force:
        subprocess.run(["rm", "-rf", dst], check=True)
    rng = random.Random(8)
    kills = 0
    for attempt in range(12):
        delay = rng.uniform(0.0, whole * 1.2)
        run = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(delay)
        run.kill()  # SIGKILL
        run.wait()  # reaped: its pid is no longer alive
        kills += run.returncode == -9
        if os.path.lexists(dst):
            check_complete(aimodel, src, dst, skipped)
            if not force:
                subprocess.run(["rm", "-rf", dst], check=True)
        elif force:
            sys.exit("--force lost the old output")
        if digests(src) != before:
            sys.exit("the input changed")
    if kills == 0:
        sys.exit("no run was killed: the tree is too small to test this")
    # The same command again completes the job and cleans up after the kills.
    rerun = subprocess.run(command, stdout=subprocess.DEVNULL)
    if rerun.returncode not in (0, 1):
        sys.exit("the re-run failed: exit %d" % rerun.returncode)
    check_complete(aimodel, src, dst, skipped)
    if temporaries(dst):
        sys.exit("temporaries left: %s" % temporaries(dst))
    if digests(src) != before:
        sys.exit("the input changed")
    print("ok: %d runs killed" % kills)


main()
