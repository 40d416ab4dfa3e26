#!/usr/bin/env python3
"""Runs aimodel commands over a bundle whose main.mlirb another process
keeps truncating and rewriting in place (as an exporter or `cp` does), and
checks that every run ends with exit 0, 1 or 2 -- never a signal -- and
that an exit 2 says why on stderr in one line per problem.

  rewrite_loop.py AIMODEL BUNDLE.aimodel WORKDIR --runs N [--opt AIMODEL_OPT]
                  [--rewrite FILE --only COMMAND]

BUNDLE's main.mlirb must be large enough to be mapped (aimodel maps from
16 KiB up). --rewrite rewrites FILE instead (another file the commands
read, such as a bundle folder's tokenizer.json, with BUNDLE that folder);
--only runs one command. Prints one summary line per command: runs, exit codes seen,
how many said "changed while it was read". Exit 1 on a violation, naming
the run.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import threading
import time


def rewriter(path, original, stop, rng):
    """Truncates to a random length, sleeps, writes the original back."""
    while not stop.is_set():
        with open(path, "r+b") as f:
            f.truncate(rng.randrange(0, len(original)))
        time.sleep(rng.uniform(0, 0.004))
        with open(path, "r+b") as f:
            f.write(original)
            f.truncate(len(original))
        time.sleep(rng.uniform(0, 0.004))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aimodel")
    parser.add_argument("bundle")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--opt", help="aimodel-opt, run too (no passes)")
    parser.add_argument("--rewrite", help="the file to rewrite")
    parser.add_argument("--only", help="the one command to run")
    args = parser.parse_args()

    mlirb = os.path.join(args.bundle, "main.mlirb")
    target = args.rewrite or mlirb
    with open(target, "rb") as f:
        original = f.read()
    other = os.path.join(args.workdir, "other.mlirb")
    if os.path.exists(mlirb):
        shutil.copyfile(mlirb, other)
    out = os.path.join(args.workdir, "stripped.aimodel")
    commands = {
        "audit": [args.aimodel, "audit", "-q", args.bundle],
        "diff": [args.aimodel, "diff", other, mlirb],
        "stats": [args.aimodel, "stats", mlirb],
        "show": [args.aimodel, "show", mlirb],
        "strip": [args.aimodel, "strip", "--allow-kept", args.bundle, "-o", out],
    }
    if args.opt:
        commands["aimodel-opt"] = [args.opt, mlirb, "-o", os.devnull]
    if args.only:
        commands = {args.only: commands[args.only]}
    rng = random.Random(7)
    stop = threading.Event()
    thread = threading.Thread(target=rewriter,
                              args=(target, original, stop, random.Random(11)))
    thread.start()
    failures = []
    try:
        for name, command in commands.items():
            codes = {}
            changed = 0
            for run in range(args.runs):
                shutil.rmtree(out, ignore_errors=True)
                time.sleep(rng.uniform(0, 0.003))
                p = subprocess.run(command, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=120)
                codes[p.returncode] = codes.get(p.returncode, 0) + 1
                err = p.stderr.decode("utf-8", "replace")
                if "changed while it was" in err:
                    changed += 1
                where = "%s run %d: exit %d, stderr %r" % (
                    name, run, p.returncode, err[:300])
                if p.returncode not in (0, 1, 2):
                    failures.append(where + " (a signal or a stray code)")
                elif p.returncode == 2 and not err.strip():
                    failures.append(where + " (exit 2 without a word)")
                elif any(not line.startswith("aimodel") for line in
                         err.splitlines()):
                    failures.append(where + " (a line not from aimodel)")
            print("%s: %d runs, exits %s, %d said it changed while it was read" %
                  (name, args.runs, dict(sorted(codes.items())), changed))
    finally:
        stop.set()
        thread.join()
    for failure in failures[:10]:
        print("FAIL " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
