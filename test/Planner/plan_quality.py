"""Plan quality: the auto plan against the best hand plans, under one model.

For GPT sizes from 1.3B to 1T parameters on 8 to 3072 simulated A100s
(clusters/a100x8.json), prints a table of the predicted step times of the
auto plan, the best pure data-parallel plan (best ZeRO stage, microbatches,
recomputation) and the best Megatron plan (tp x pp x dp grid over tp, pp and
microbatches), with the planning time, and fails if the auto plan is slower
than either hand plan anywhere, or finds no plan where a hand plan exists.

usage: plan_quality.py LOOMC OUTDIR [--quick]
"""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402

SIZES = [
    # name, layers, hidden, heads
    ("1.3B", 24, 2048, 16),
    ("13B", 40, 5120, 40),
    ("175B", 96, 12288, 96),
    ("1T", 128, 25600, 160),
]
GPUS = [8, 64, 512, 3072]
BATCH, SEQ, VOCAB = 1536, 2048, 51200


def seconds(line):
    return float(re.search(r"seconds=([-+.e0-9]+)", line).group(1))


def main():
    loomc, out = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    sizes = SIZES[::2] if quick else SIZES
    gpus = GPUS[1::2] if quick else GPUS
    os.makedirs(out, exist_ok=True)
    cluster = os.path.join(ROOT, "clusters", "a100x8.json")
    print(f"{'model':>6} {'GPUs':>5} {'auto':>10} {'data':>10} "
          f"{'megatron':>10} {'auto/best':>9} {'plan s':>7}  auto plan")
    failures = []
    for name, layers, hidden, heads in sizes:
        model = onnx_models.gpt(layers=layers, hidden=hidden, heads=heads,
                                vocab=VOCAB, seq=SEQ, batch=BATCH,
                                weightless=1)
        path = os.path.join(out, f"gpt-{name}.onnx")
        onnx_models.save(model, path)
        for n in gpus:
            start = time.perf_counter()
            run = subprocess.run(
                [loomc, path, "--train", "--simulate", "--cluster", cluster,
                 "--devices", str(n), "--explain", "--hand-plans"],
                capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            text = run.stdout + run.stderr
            auto = hand_data = hand_megatron = None
            shape = ""
            if run.returncode == 0:
                auto = seconds(re.search(r"^predicted step time.*$", text,
                                         re.M).group(0))
                shape = re.search(r"^  mesh +(.*?)  \(", text, re.M).group(1)
                for line in text.splitlines():
                    if line.startswith("  data "):
                        hand_data = None if "none:" in line else \
                            seconds(line)
                    if line.startswith("  megatron "):
                        hand_megatron = None if "none:" in line else \
                            seconds(line)
            elif "no plan fits" not in text:
                failures.append(f"{name} on {n}: loomc failed:\n{text}")
            hands = [t for t in (hand_data, hand_megatron) if t is not None]
            best = min(hands) if hands else None
            fmt = (lambda t: f"{t:10.3f}" if t is not None else
                   f"{'no fit':>10}")
            ratio = f"{auto / best:9.4f}" if auto and best else f"{'-':>9}"
            print(f"{name:>6} {n:>5} {fmt(auto)} {fmt(hand_data)} "
                  f"{fmt(hand_megatron)} {ratio} {elapsed:7.2f}  {shape}")
            if best is not None and (auto is None or
                                     auto > best * (1 + 1e-9)):
                failures.append(f"{name} on {n} GPUs: auto {auto} s is "
                                f"slower than the best hand plan {best} s")
    if failures:
        print("\n".join(["FAILED:"] + failures))
        return 1
    print("auto <= best hand plan everywhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
