"""How long training stalls for a checkpoint, synchronous (--sync-ckpt)
against asynchronous (the default), side by side, on the bench GPT of
bench/train_step.py (4 layers, hidden 256, AdamW: about 40 MB of state):

    .venv/bin/python bench/ckpt_stall.py [--build build] [--steps 31]
        [--every 10] [--threads 1] [--rounds 2] [--ckpt-root DIR]

Each round trains the same artifact three times: without checkpoints, with
a checkpoint every --every steps written synchronously, and the same
asynchronously. The stall of one checkpoint is the time training spent on
checkpoints (the metrics' ckpt_s: writing them, or starting them, checking
and waiting for the one in flight) summed over the steps before the last,
divided by the checkpoints taken there (the last step's checkpoint, which
the job end waits for in either mode, is left out). "extra" adds what the
steps took beyond the run without checkpoints (the background writer
competes with them for cores and memory bandwidth; noisy on a busy
machine), per checkpoint. The step time is the median step_time_s. The
checkpoints go under --ckpt-root (default: a temporary directory; put it
on the disk you care about: on tmpfs fsync costs nothing).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(ROOT), "python"))
from loom.testing import onnx_models  # noqa: E402

GPT = dict(layers=4, hidden=256, heads=8, vocab=512, seq=128)
BATCH = 8


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stdout}{result.stderr}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(os.path.dirname(ROOT),
                                                        "build"))
    parser.add_argument("--steps", type=int, default=31)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--ckpt-root", default=None)
    parser.add_argument("--keep", action="store_true",
                        help="keep the work directory (artifact, metrics)")
    args = parser.parse_args()
    loomc = os.path.join(args.build, "bin", "loomc")
    loomrun = os.path.join(args.build, "bin", "loomrun")
    work = tempfile.mkdtemp(prefix="loom-bench-ckpt-")
    ckpt_root = args.ckpt_root or work
    onnx = os.path.join(work, "gpt.onnx")
    onnx_models.save(onnx_models.gpt(**GPT), onnx)
    art = os.path.join(work, "gpt.loom")
    run([loomc, onnx, "--input-shape", f"input_ids={BATCH}x{GPT['seq']}",
         "--train", "--loss=cross_entropy", "--logits=logits",
         "--optimizer=adamw", "-o", art])
    tokens = os.path.join(work, "tokens.bin")
    np.random.default_rng(0).integers(0, GPT["vocab"], 100000).astype(
        "<u2").tofile(tokens)

    modes = {"none": [], "sync": ["--sync-ckpt"], "async": []}
    stalls = {mode: [] for mode in modes}
    extras = {mode: [] for mode in modes}
    steps = {mode: [] for mode in modes}
    state_bytes = 0
    for round_ in range(args.rounds):
        for mode, flags in modes.items():
            metrics = os.path.join(work, f"{mode}-{round_}.jsonl")
            ckpt = os.path.join(ckpt_root, f"ckpt-{mode}-{round_}")
            shutil.rmtree(ckpt, ignore_errors=True)
            ckpt_flags = [] if mode == "none" else [
                "--ckpt", ckpt, "--ckpt-every", str(args.every), *flags]
            run([loomrun, art, "--train", "--data", "input_ids=" + tokens,
                 "--steps", str(args.steps), "--threads", str(args.threads),
                 "--metrics", metrics, *ckpt_flags])
            lines = [json.loads(line) for line in open(metrics)]
            steps[mode] += [line["step_time_s"] for line in lines[1:]]
            # Steps 2 .. S-1: the first warms up, the last ends the job.
            total = sum(line["step_time_s"] + line.get("ckpt_s", 0)
                        for line in lines[1:-1])
            if mode == "none":
                baseline = total
                continue
            taken = (args.steps - 1) // args.every
            stalls[mode].append(sum(line.get("ckpt_s", 0) for line in lines
                                    if line["step"] < args.steps) / taken)
            extras[mode].append((total - baseline) / taken)
            last = os.path.join(ckpt, "step-%08d" % args.steps)
            manifest = json.load(open(os.path.join(last, "manifest.json")))
            state_bytes = sum(shard["size"] for shard in manifest["shards"])
            shutil.rmtree(ckpt, ignore_errors=True)

    print(f"checkpoint stall: GPT {GPT}, batch {BATCH}, "
          f"{state_bytes / 1e6:.1f} MB per checkpoint, one every "
          f"{args.every} steps, {args.threads} thread(s), {args.rounds} "
          f"round(s), checkpoints under {ckpt_root}")
    print(f"{'mode':<6} {'stall ms/ckpt':>14} {'extra ms/ckpt':>14} "
          f"{'step ms (median)':>17}")
    for mode in modes:
        stall, extra = (
            (f"{1000 * float(np.mean(stalls[mode])):14.2f}",
             f"{1000 * float(np.mean(extras[mode])):14.1f}")
            if stalls[mode] else (f"{'-':>14}", f"{'-':>14}"))
        print(f"{mode:<6} {stall} {extra} "
              f"{1000 * float(np.median(steps[mode])):17.2f}")
    ratio = np.mean(stalls["async"]) / np.mean(stalls["sync"])
    print(f"async stall / sync stall: {100 * ratio:.1f}%")
    if args.keep:
        print(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
