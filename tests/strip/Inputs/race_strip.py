"""Races `aimodel strip` against what a hostile world does at the same time,
many times, and checks that every DST is complete and verified, or absent.

usage:
  race_strip.py namespaces AIMODEL SRC DST RUNS [--force] [--no-exchange]
      Two strips of SRC to one DST at once, each in its own pid namespace
      (`unshare -p -f`: both are pid 1, as in two containers sharing a
      volume). After each round DST is complete (SRC's files,
      every main.hash the SHA-256 of its main.mlirb, `aimodel audit` clean of
      AIM002/AIM003/AIM006/AIM007), no temporary is left, and SRC is as it
      was. Without --force exactly one run writes DST and the other exits 2
      saying DST appeared (or exists); with it both succeed, or, built with
      the plain POSIX fallbacks (--no-exchange: no atomic swap of two
      folders), the one that lost the swap exits 2 saying so, having
      published nothing.
  race_strip.py changing AIMODEL ASSET DST RUNS
      Strips ASSET while another thread keeps rewriting bytes of its
      main.mlirb (an exporter still writing). Whenever strip exits 0, DST's
      main.hash is the SHA-256 of DST's main.mlirb; otherwise it exits 2,
      naming the change, and writes nothing.
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import time


def files(root):
    found = set()
    for folder, dirs, names in os.walk(root):
        for name in names:
            found.add(os.path.relpath(os.path.join(folder, name), root))
    return found


def digests(root):
    out = {}
    for rel in files(root):
        with open(os.path.join(root, rel), "rb") as f:
            out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def check_verified(aimodel, dst):
    for folder, dirs, names in os.walk(dst):
        if folder.endswith(".aimodel"):
            got = open(os.path.join(folder, "main.hash"), "rb").read()
            if got != sha256(os.path.join(folder, "main.mlirb")):
                sys.exit("%s: main.hash is not the SHA-256 of main.mlirb" %
                         folder)
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


def namespaces(aimodel, src, dst, runs, force, noExchange):
    before = digests(src)
    expected = {f for f in files(src)}
    command = ["unshare", "-p", "-f", aimodel, "strip", "-q", "-j", "1",
               src, "-o", dst]
    if force:
        command.insert(5, "--force")
    for round in range(runs):
        if not force:
            subprocess.run(["rm", "-rf", dst], check=True)
        runs_ = [subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for _ in range(2)]
        results = [(r.wait(), r.stderr.read().decode()) for r in runs_]
        codes = sorted(code for code, _ in results)
        lostSwap = (noExchange and codes == [0, 2] and
                    "cannot replace it with the output" in
                    [err for code, err in results if code == 2][0])
        if force and codes != [0, 0] and not lostSwap:
            sys.exit("round %d: --force exits %s: %s" % (round, codes,
                                                          results))
        if not force:
            if codes != [0, 2]:
                sys.exit("round %d: exits %s: %s" % (round, codes, results))
            loser = [err for code, err in results if code == 2][0]
            if ("appeared while the output was built" not in loser and
                    "already exists" not in loser):
                sys.exit("round %d: the second run says: %s" % (round, loser))
        if not os.path.isdir(dst):
            sys.exit("round %d: no DST though a run succeeded" % round)
        if files(dst) != expected:
            sys.exit("round %d: partial output: %d of %d files" %
                     (round, len(files(dst)), len(expected)))
        check_verified(aimodel, dst)
        if temporaries(dst):
            sys.exit("round %d: temporaries left: %s" % (round,
                                                          temporaries(dst)))
        if digests(src) != before:
            sys.exit("round %d: the input changed" % round)
    print("ok: %d rounds, every DST complete and verified" % runs)


def changing(aimodel, asset, dst, runs):
    mlirb = os.path.join(asset, "main.mlirb")
    size = os.path.getsize(mlirb)
    rng = random.Random(5)
    stop = threading.Event()

    def writer():
        # Flip a byte in the second half (weights) and put it back, again
        # and again: the file changes while it is read.
        with open(mlirb, "r+b") as f:
            while not stop.is_set():
                at = rng.randrange(size // 2, size)
                f.seek(at)
                old = f.read(1)
                f.seek(at)
                f.write(bytes([old[0] ^ 0xFF]))
                f.flush()
                time.sleep(0.001)
                f.seek(at)
                f.write(old)
                f.flush()
                time.sleep(0.001)

    outcomes = {"written": 0, "refused": 0}
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for round in range(runs):
            subprocess.run(["rm", "-rf", dst], check=True)
            run = subprocess.run([aimodel, "strip", "-q", asset, "-o", dst],
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
            err = run.stderr.decode()
            if run.returncode == 0:
                got = open(os.path.join(dst, "main.hash"), "rb").read()
                if got != sha256(os.path.join(dst, "main.mlirb")):
                    sys.exit("round %d: exit 0 and main.hash is not the "
                             "SHA-256 of the written main.mlirb" % round)
                outcomes["written"] += 1
            elif run.returncode == 2:
                if ("changed while it was stripped" not in err and
                        "main.hash is not the SHA-256" not in err):
                    sys.exit("round %d: exit 2 says: %s" % (round, err))
                if os.path.lexists(dst) or temporaries(dst):
                    sys.exit("round %d: exit 2 left output behind" % round)
                outcomes["refused"] += 1
            else:
                sys.exit("round %d: exit %d: %s" % (round, run.returncode,
                                                    err))
    finally:
        stop.set()
        thread.join()
    if outcomes["refused"] == 0:
        sys.exit("no run saw the change: the asset is too small to test this")
    print("ok: %d runs, every exit 0 verified, every change refused" % runs)


def main():
    args = sys.argv[1:]
    force = "--force" in args
    noExchange = "--no-exchange" in args
    args = [a for a in args if a not in ("--force", "--no-exchange")]
    if args[0] == "namespaces":
        namespaces(args[1], args[2], args[3], int(args[4]), force, noExchange)
    elif args[0] == "changing":
        changing(args[1], args[2], args[3], int(args[4]))
    else:
        sys.exit(__doc__)


main()
