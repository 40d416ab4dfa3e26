#!/usr/bin/env python3
"""Runs a command with stdout a pipe whose reader has already gone (as
`cmd | head` ends up), SIGPIPE at its default as a shell leaves it. Prints
the exit code (negative: the signal) and passes stderr through.

  closed_pipe.py COMMAND ARGS...
"""
import os
import subprocess
import sys

read_end, write_end = os.pipe()
os.close(read_end)
p = subprocess.run(sys.argv[1:], stdout=write_end, stderr=subprocess.PIPE,
                   restore_signals=True)
os.close(write_end)
print("exit %d" % p.returncode)
sys.stderr.write(p.stderr.decode("utf-8", "replace"))
