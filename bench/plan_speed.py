"""Planning time against model size and device count.

Generates weightless GPT models (sequence 2048, vocabulary 51200, batch 1536)
and times `loomc --train --simulate --explain` on simulated 8x A100 nodes:
the whole command (import, planning, explanation) and the search alone (as
the planner reports it), with the plans priced and the chosen plan.

usage: python bench/plan_speed.py [--build build]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402

SIZES = [("1.3B", 24, 2048, 16), ("13B", 40, 5120, 40),
         ("175B", 96, 12288, 96), ("1T", 128, 25600, 160)]
GPUS = [8, 64, 256, 1024, 3072]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    loomc = os.path.join(args.build, "bin", "loomc")
    cluster = os.path.join(ROOT, "clusters", "a100x8.json")
    work = tempfile.mkdtemp(prefix="loom-plan-speed-")
    print(f"{'model':>6} {'ops':>5} {'GPUs':>5} {'loomc s':>8} "
          f"{'search s':>8} {'plans':>6}  chosen plan (predicted step)")
    for name, layers, hidden, heads in SIZES:
        path = os.path.join(work, f"gpt-{name}.onnx")
        onnx_models.save(onnx_models.gpt(
            layers=layers, hidden=hidden, heads=heads, vocab=51200,
            seq=2048, batch=1536, weightless=1), path)
        for n in GPUS:
            start = time.perf_counter()
            out = subprocess.run(
                [loomc, path, "--train", "--simulate", "--cluster", cluster,
                 "--devices", str(n), "--explain", "--plan-cache", "off"],
                capture_output=True, text=True)
            wall = time.perf_counter() - start
            text = out.stdout + out.stderr
            m = re.search(r"searched (\d+) plans in ([0-9.]+) (s|ms|us)",
                          text)
            search = float(m.group(2)) * {"s": 1, "ms": 1e-3,
                                          "us": 1e-6}[m.group(3)] if m else 0
            plans = m.group(1) if m else "-"
            mesh = re.search(r"^  mesh +(\S+ x \S+ x \S+)", text, re.M)
            step = re.search(r"^predicted step time +(\S+ \S+)", text, re.M)
            chosen = (f"{mesh.group(1)} ({step.group(1)})" if mesh and step
                      else "no plan fits")
            cost = subprocess.run([loomc, path, "--emit=cost"],
                                  capture_output=True, text=True).stdout \
                if n == GPUS[0] else cost
            ops = re.search(r"cost of @main \((\d+) ops\)", cost).group(1)
            print(f"{name:>6} {ops:>5} {n:>5} {wall:8.2f} {search:8.3f} "
                  f"{plans:>6}  {chosen}")


if __name__ == "__main__":
    main()
