"""The GPT-style decoder's forward pass on one rank and on two (data
parallel, Megatron tensor parallel), measured side by side in one run:

    .venv/bin/python bench/distributed_forward.py [--build build] [--runs 20]

Prints each configuration's median latency (loomrun --bench, one kernel
thread per rank), its speed-up over one rank with one thread, the largest
difference of its logits from the single-rank ones, and what it
communicates per run (loomrun --comm-stats). The decoder is the one
bench/cpu_forward.py uses: 6 layers, hidden 256, 8 heads, sequence 128,
vocabulary 512, batch 4.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    loomc = os.path.join(args.build, "bin", "loomc")
    loomrun = os.path.join(args.build, "bin", "loomrun")
    work = tempfile.mkdtemp(prefix="loom-bench-dist-")
    model = os.path.join(work, "decoder.onnx")
    onnx_models.save(onnx_models.gpt(layers=6, hidden=256, heads=8, vocab=512,
                                     seq=128), model)
    ids = os.path.join(work, "ids.npy")
    np.save(ids, np.random.RandomState(0).randint(0, 512, (4, 128))
            .astype(np.int64))
    configs = [
        ("1 rank, 1 thread", [], 1, 1),
        ("1 rank, 2 threads", [], 1, 2),
        ("data dp=2, 2 ranks", ["--mesh", "dp=2", "--strategy=data"], 2, 1),
        ("megatron tp=2, 2 ranks", ["--mesh", "tp=2", "--strategy=megatron"],
         2, 1),
    ]
    reference = None
    base = None
    print(f"decoder forward, batch 4 x 128 tokens, {args.runs} runs each "
          "(median)")
    for name, flags, ranks, threads in configs:
        tag = re.sub(r"[^a-z0-9]+", "-", name)
        art = os.path.join(work, tag + ".loom")
        run([loomc, model, "--input-shape", "input_ids=4x128", *flags,
             "-o", art])
        out = os.path.join(work, tag)
        text = run([loomrun, "-np", str(ranks), art, "--input",
                    f"input_ids={ids}", "--output-dir", out, "--threads",
                    str(threads), "--bench", str(args.runs), "--comm-stats"])
        median = float(re.search(r"median ([0-9.]+) ms", text).group(1))
        moved = re.search(r"total\s+(\d+)\s+(\d+)", text)
        logits = np.load(os.path.join(out, "logits.npy"))
        if reference is None:
            reference, base = logits, median
        diff = float(np.max(np.abs(logits - reference)))
        comm = "-"
        if moved:
            calls = int(moved.group(1)) // (args.runs + 3) // ranks
            volume = int(moved.group(2)) // (args.runs + 3) // ranks
            comm = f"{calls} calls, {volume / 1e6:.2f} MB per rank per run"
        print(f"{name:24s} {median:8.2f} ms  x{base / median:4.2f}  "
              f"max |diff| {diff:.1e}  comm {comm}")


if __name__ == "__main__":
    main()
