#!/usr/bin/env python3
"""Predicted against measured, plan by plan, on this machine.

Calibrates the machine (`loomc calibrate --np 2`), then for each plan of the
bench GPT (bench/train_step.py's decoder: 4 layers, hidden 256, 8 heads,
vocabulary 512, sequence 128; AdamW) compiles it with `loomc --plan SPEC
--explain -o`, trains it with `loomrun --threads 1`, and compares the
planner's predicted step time and per-stage memory with the median measured
step time and the largest `peak_bytes` per stage (the runtime's parameters,
outputs and the most its buffers held at once). Plans: data parallel with
ZeRO 0-3, tensor parallel, pipelines with each schedule and recomputation.

usage: bench/plan_fidelity.py [--build DIR] [--work DIR] [--steps N]
       [--only NAME,..] [--tolerance 0.15]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402

CONFIG = onnx_models.BENCH_GPT
BATCH = 8  # sequences per microbatch (the model's batch)

# name, ranks, microbatches per step, --plan SPEC
PLANS = [
    ("1 rank", 1, 1, "dp=1,tp=1,pp=1"),
    ("dp=2 zero=0", 2, 1, "dp=2,tp=1,pp=1,zero=0"),
    ("dp=2 zero=1", 2, 1, "dp=2,tp=1,pp=1,zero=1"),
    ("dp=2 zero=2", 2, 1, "dp=2,tp=1,pp=1,zero=2"),
    ("dp=2 zero=3", 2, 1, "dp=2,tp=1,pp=1,zero=3"),
    ("tp=2", 2, 1, "dp=1,tp=2,pp=1,tp-ops=megatron"),
    ("pp=2 gpipe", 2, 4, "dp=1,tp=1,pp=2,schedule=gpipe"),
    ("pp=2 1f1b", 2, 4, "dp=1,tp=1,pp=2,schedule=1f1b"),
    ("pp=2 zb1p", 2, 4, "dp=1,tp=1,pp=2,schedule=zb1p"),
    ("pp=2 interleaved", 2, 4, "dp=1,tp=1,pp=2,schedule=interleaved"),
    ("pp=2 1f1b full", 2, 4, "dp=1,tp=1,pp=2,schedule=1f1b,recompute=full"),
    ("pp=2 1f1b selective", 2, 4,
     "dp=1,tp=1,pp=2,schedule=1f1b,recompute=selective"),
]


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {out.stderr.strip()}")
    return out.stdout


def predicted_memory(explain, stages):
    per = re.search(r"per stage .*\(bytes=([0-9,]+)\)", explain)
    if per:
        return [float(b) for b in per.group(1).split(",")]
    last = explain.strip().splitlines()[-1]
    return [float(re.search(r"memory_bytes=(\S+)", last).group(1))] * stages


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default="/tmp/loom-plan-fidelity")
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--tolerance", type=float, default=0.15)
    ap.add_argument("--cluster", default="")
    args = ap.parse_args()
    loomc = os.path.join(args.build, "bin", "loomc")
    loomrun = os.path.join(args.build, "bin", "loomrun")
    os.makedirs(args.work, exist_ok=True)
    model, tokens = onnx_models.write_bench_gpt(args.work, tokens=200000)
    cluster = args.cluster or os.path.join(args.work, "cluster.json")
    if not args.cluster:
        print(run([loomc, "calibrate", "--np", "2", "-o", cluster]).strip())
    plans = PLANS
    if args.only:
        wanted = set(args.only.split(","))
        plans = [p for p in PLANS if p[0] in wanted]
    print(f"{'plan':<22} {'pred ms':>8} {'meas ms':>8} {'error':>7}  "
          f"memory per stage, predicted / measured MiB (error)")
    worst_time = worst_memory = 0.0
    for name, ranks, microbatches, spec in plans:
        art = os.path.join(args.work, name.replace(" ", "_") + ".loom")
        try:
            explain = run([loomc, model, "--input-shape",
                           f"input_ids={BATCH}x{CONFIG['seq']}", "--train",
                           "--loss=cross_entropy", "--logits=logits",
                           "--optimizer=adamw", "--microbatches",
                           str(microbatches), "--cluster", cluster,
                           "--devices", str(ranks), "--plan", spec, "-o", art])
        except RuntimeError as e:
            print(f"{name:<22} not compiled: {e}")
            continue
        last = explain.strip().splitlines()[-1]
        predicted = float(re.search(r"seconds=(\S+)", last).group(1))
        pp = int(re.search(r"pp=(\d+)", last).group(1))
        memory = predicted_memory(explain, pp)
        metrics = os.path.join(args.work, name.replace(" ", "_") + ".jsonl")
        run([loomrun, "-np", str(ranks), art, "--train", "--threads", "1",
             "--data", "input_ids=" + tokens, "--steps",
             str(args.steps + args.warmup), "--metrics", metrics])
        lines = [json.loads(line) for line in open(metrics) if line.strip()]
        steps = [x for x in lines if "step_time_s" in x][args.warmup:]
        measured = statistics.median(x["step_time_s"] for x in steps)
        peaks = [0.0] * pp
        for x in steps:
            if "stages" in x:
                for s, stage in enumerate(x["stages"]):
                    peaks[s] = max(peaks[s], stage.get("peak_bytes", 0))
            elif "peak_bytes" in x:
                peaks = [max(peaks[0], x["peak_bytes"])] * pp
        error = predicted / measured - 1
        worst_time = max(worst_time, abs(error))
        cells = []
        for p, m in zip(memory, peaks):
            e = p / m - 1 if m else float("nan")
            if m:
                worst_memory = max(worst_memory, abs(e))
            cells.append(f"{p / 2**20:.1f} / {m / 2**20:.1f} ({e:+.0%})")
        print(f"{name:<22} {predicted * 1e3:8.1f} {measured * 1e3:8.1f} "
              f"{error:+7.1%}  " + ", ".join(cells))
    print(f"worst step-time error {worst_time:.1%}, worst memory error "
          f"{worst_memory:.1%} (goal {args.tolerance:.0%} and 10%)")


if __name__ == "__main__":
    main()
