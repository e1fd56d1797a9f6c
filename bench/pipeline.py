"""Pipeline schedules side by side on this machine's CPU ranks: the bench
GPT (8 layers, hidden 256, 8 heads, vocabulary 512, sequence 128) trained
with AdamW on 2 and 4 pipeline stages, 8 microbatches of 2 sequences per
step, under GPipe, 1F1B, ZB-H1 and interleaved 1F1B (2 chunks per stage),
and 1F1B with full and selective recomputation:

    .venv/bin/python bench/pipeline.py [--build build] [--steps 12]
        [--stages 2,4] [--runs gpipe,1f1b,...]

For each run it prints the median step time, the measured bubble (the
mean over stages of the time a stage waits in receives, as a share of the
step: the runtime's own busy/wait split, metrics file), the bubble the
schedule's theory predicts for equal stages, and each stage's peak memory
(the runtime's accounting: parameters, optimizer state and outputs, plus
the most the program's buffers held at once). Every rank runs one thread;
on a machine with fewer cores than ranks the ranks share cores, which
inflates waits, so compare rows with equal stage counts.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402
from distributed_forward import run  # noqa: E402

CONFIG = dict(layers=8, hidden=256, heads=8, vocab=512, seq=128)
MICROBATCH = 2
MICROBATCHES = 8
RUNS = [
    # name, loomc flags
    ("gpipe", ["--schedule=gpipe"]),
    ("1f1b", ["--schedule=1f1b"]),
    ("zb1p", ["--schedule=zb1p"]),
    ("interleaved", ["--schedule=interleaved", "--virtual-stages=2"]),
    ("1f1b full", ["--schedule=1f1b", "--recompute=full"]),
    ("1f1b selective", ["--schedule=1f1b", "--recompute=selective"]),
]


def theory(name, p, m):
    """The idle share of a step for equal stages (Narayanan et al. 2021;
    Qi et al. 2024 with equal forward, input-gradient and weight-gradient
    times)."""
    if name.startswith("interleaved"):
        return (p - 1) / (2 * m + p - 1)
    if name.startswith("zb1p"):
        return (p - 1) / 3 / (m + (p - 1) / 3)
    return (p - 1) / (m + p - 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--stages", default="2,4")
    parser.add_argument("--runs", default="",
                        help="comma-separated run names (default: all)")
    args = parser.parse_args()
    wanted = set(filter(None, args.runs.split(",")))
    loomc = os.path.join(args.build, "bin", "loomc")
    loomrun = os.path.join(args.build, "bin", "loomrun")
    work = tempfile.mkdtemp(prefix="loom-bench-pipeline-")
    onnx_path = os.path.join(work, "gpt.onnx")
    onnx_models.save(onnx_models.gpt(**CONFIG), onnx_path)
    tokens = os.path.join(work, "tokens.bin")
    np.random.default_rng(0).integers(0, CONFIG["vocab"], 1 << 20).astype(
        "<u2").tofile(tokens)
    shape = f"input_ids={MICROBATCH}x{CONFIG['seq']}"
    print(f"bench GPT {CONFIG}, {MICROBATCHES} microbatches of {MICROBATCH} "
          f"per step, AdamW; median of {args.steps} steps after 2, "
          "1 thread per rank")
    print(f"{'pp':>2} {'schedule':<15} {'step ms':>8} {'bubble':>7} "
          f"{'theory':>7}  peak MiB per stage", flush=True)
    for p in (int(x) for x in args.stages.split(",")):
        for name, flags in RUNS:
            if wanted and name not in wanted:
                continue
            slug = f"pp{p}_" + name.replace(" ", "_")
            art = os.path.join(work, slug + ".loom")
            metrics = os.path.join(work, slug + ".jsonl")
            run([loomc, onnx_path, "--input-shape", shape, "--train",
                 "--loss=cross_entropy", "--logits=logits",
                 "--optimizer=adamw", "--mesh", f"pp={p}", "--microbatches",
                 str(MICROBATCHES), *flags, "-o", art])
            run([loomrun, "-np", str(p), art, "--data",
                 f"input_ids={tokens}", "--train", "--steps",
                 str(args.steps + 2), "--threads", "1", "--metrics",
                 metrics])
            rows = [json.loads(line) for line in open(metrics)][2:]
            step = statistics.median(r["step_time_s"] for r in rows)
            bubble = statistics.median(
                statistics.mean(s["wait_s"] for s in r["stages"]) /
                r["step_time_s"] for r in rows)
            peaks = [max(r["stages"][s]["peak_bytes"] for r in rows) / 2**20
                     for s in range(p)]
            print(f"{p:>2} {name:<15} {step * 1e3:>8.1f} {bubble:>7.1%} "
                  f"{theory(name, p, MICROBATCHES):>7.1%}  " +
                  " ".join(f"{x:.1f}" for x in peaks), flush=True)


if __name__ == "__main__":
    main()
