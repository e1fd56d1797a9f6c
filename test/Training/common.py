"""What the training test scripts share: the command line (tool paths and a
work directory, emptied first), running a tool, reading metrics."""

import argparse
import json
import os
import shutil
import subprocess
import sys


def parse_arguments(extra=()):
    """--loomc, --loomrun, --loom-ckpt and WORKDIR, plus (flag, default)
    pairs in `extra`; WORKDIR is emptied."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--loomc", default="loomc")
    parser.add_argument("--loomrun", default="loomrun")
    parser.add_argument("--loom-ckpt", default="loom-ckpt")
    for flag, default in extra:
        parser.add_argument(flag, default=default)
    parser.add_argument("workdir")
    args = parser.parse_args()
    if os.path.exists(args.workdir):
        shutil.rmtree(args.workdir)
    os.makedirs(args.workdir)
    return args


def run(cmd, env=None, expect=0, fatal=True):
    """Runs `cmd`; returns its output, or on another exit status prints
    FAIL with the output and exits (or returns None unless `fatal`)."""
    result = subprocess.run(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, **(env or {})))
    if result.returncode == expect:
        return result.stdout
    message = ("FAIL: " + " ".join(cmd) + f" (exit {result.returncode})\n" +
               result.stdout)
    if fatal:
        sys.exit(message)
    print(message)
    return None


def records(path):
    """The JSON lines of a --metrics file."""
    return [json.loads(line) for line in open(path) if line.strip()]


class Checks:
    """Prints a PASS or FAIL line per check and counts the failures."""

    def __init__(self):
        self.failures = 0

    def __call__(self, ok, text):
        self.failures += not ok
        print(f"{'PASS' if ok else 'FAIL'}: {text}")
