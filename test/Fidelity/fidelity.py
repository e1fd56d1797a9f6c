"""Cost-model fidelity on this machine.

Calibrates the machine (`loomc calibrate`), lets the planner choose and
predict the step time of the GPT-style decoder of bench/train_step.py
(4 layers, hidden 256, 8 heads, vocabulary 512, 8 x 128 tokens per step,
AdamW) on 1 and on 2 ranks, trains each plan for a few steps with loomrun
(one thread per rank, as calibrated), and compares the median measured step
time with the prediction. Fails when one is off by more than the tolerance.

usage: fidelity.py BUILD_DIR WORK_DIR [--tolerance 0.25] [--steps 12]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402

CONFIG = onnx_models.BENCH_GPT
BATCH = 8


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"command failed ({out.returncode}): {' '.join(cmd)}\n"
                 f"{out.stdout}{out.stderr}")
    return out.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("work")
    parser.add_argument("--tolerance", type=float, default=0.25)
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    loomc = os.path.join(args.build, "bin", "loomc")
    loomrun = os.path.join(args.build, "bin", "loomrun")
    os.makedirs(args.work, exist_ok=True)
    model, tokens = onnx_models.write_bench_gpt(args.work)
    cluster = os.path.join(args.work, "cluster.json")
    print(run([loomc, "calibrate", "--np", "2", "-o", cluster]).strip())

    failures = []
    print(f"{'ranks':>5} {'plan':<40} {'predicted ms':>12} "
          f"{'measured ms':>11} {'error':>7}")
    for ranks in (1, 2):
        art = os.path.join(args.work, f"gpt{ranks}.loom")
        explain = run([loomc, model, "--input-shape",
                       f"input_ids={BATCH}x{CONFIG['seq']}", "--train",
                       "--loss=cross_entropy", "--logits=logits",
                       "--cluster", cluster, "--devices", str(ranks),
                       "--explain", "-o", art])
        predicted = float(re.search(r"seconds=(\S+)\)", explain).group(1))
        mesh = re.search(r"^  mesh +(\S+ x \S+ x \S+)", explain, re.M)
        zero = re.search(r"^  ZeRO stage +(\d)", explain, re.M)
        plan = f"{mesh.group(1)} zero={zero.group(1)}"
        metrics = os.path.join(args.work, f"metrics{ranks}.jsonl")
        run([loomrun, "-np", str(ranks), art, "--train", "--threads", "1",
             "--data", "input_ids=" + tokens, "--steps",
             str(args.steps + 4), "--metrics", metrics])
        times = [json.loads(line)["step_time_s"]
                 for line in open(metrics) if line.strip()][4:]
        measured = statistics.median(times)
        error = predicted / measured - 1
        print(f"{ranks:>5} {plan:<40} {predicted * 1e3:12.1f} "
              f"{measured * 1e3:11.1f} {error:+7.1%}")
        if abs(error) > args.tolerance:
            failures.append(f"{ranks} rank(s): predicted {predicted:.4f} s, "
                            f"measured {measured:.4f} s ({error:+.1%})")
    if failures:
        print("FAILED (tolerance " f"{args.tolerance:.0%}):\n" +
              "\n".join(failures))
        return 1
    print(f"predictions within {args.tolerance:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
