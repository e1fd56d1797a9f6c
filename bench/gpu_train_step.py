"""The GPT training step on one GPU, Loom against PyTorch, side by side in
one run. In two halves, since the GPU machine has no compiler:

    # here (needs loomc): compile the step for the GPU
    .venv/bin/python bench/gpu_train_step.py prepare OUT [--target cuda]
    # on the GPU machine (needs loomrun and torch): run both, print ratios
    python3 bench/gpu_train_step.py run OUT --loomrun PATH [--steps 50]

Both train the same model (the ONNX generator's GPT with the same seed:
`run` regenerates it, so no weights travel but the artifact's) with AdamW
and mean cross entropy on the same batch shape, in fp32 (PyTorch with TF32
off, as Loom's CUDA code is plain fp32; `--tf32` adds a TF32 PyTorch row).
Prints median step times, the ratio PyTorch / Loom (above 1: Loom is
faster) and each one's model FLOP utilisation against the H200's dense
fp32 peak (67 TFLOP/s; TF32 tensor cores: 495 TFLOP/s).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

CONFIG = dict(layers=4, hidden=256, heads=8, vocab=512, seq=128)
BATCH = 32
FP32_PEAK = 67e12
TF32_PEAK = 495e12


def flops_per_step(cfg, batch):
    """6 N T for the weights plus the attention score products."""
    h, layers, seq, vocab = (cfg["hidden"], cfg["layers"], cfg["seq"],
                             cfg["vocab"])
    params = layers * 12 * h * h + vocab * h  # blocks and the lm head
    tokens = batch * seq
    return 6 * params * tokens + 12 * layers * h * seq * tokens


def write_model(folder):
    from loom.testing import onnx_models
    from onnx import numpy_helper
    model = onnx_models.gpt(seed=0, **CONFIG)
    path = os.path.join(folder, "gpt.onnx")
    onnx_models.save(model, path)
    weights = os.path.join(folder, "gpt.npz")
    np.savez(weights, **{t.name: numpy_helper.to_array(t)
                         for t in model.graph.initializer})
    return path, weights


def prepare(args):
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = write_model(tmp)
        cmd = [args.loomc, path, "--input-shape",
               f"input_ids={BATCH}x{CONFIG['seq']}", "--train",
               "--loss=cross_entropy", "--logits=logits", "--optimizer=adamw",
               f"--target={args.target}", "-o",
               os.path.join(args.out, "train.loom")]
        subprocess.run(cmd, check=True)
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump({"config": CONFIG, "batch": BATCH,
                   "target": args.target}, f)


def run(args):
    with open(os.path.join(args.out, "bench.json")) as f:
        meta = json.load(f)
    cfg, batch = meta["config"], meta["batch"]
    work = tempfile.mkdtemp(prefix="loom-gpu-bench-")
    _, weights = write_model(work)
    tokens = os.path.join(work, "tokens.bin")
    np.random.default_rng(0).integers(0, cfg["vocab"], 200000).astype(
        "<u2").tofile(tokens)
    metrics = os.path.join(work, "m.jsonl")
    warmup = 5
    result = subprocess.run(
        [args.loomrun, os.path.join(args.out, "train.loom"), "--train",
         "--data", f"input_ids={tokens}", "--steps",
         str(args.steps + warmup), "--metrics", metrics],
        capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"loomrun failed:\n{result.stderr}")
    with open(metrics) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    loom_ms = 1000 * float(np.median([r["step_time_s"]
                                      for r in rows[warmup:]]))
    flops = flops_per_step(cfg, batch)
    config = ",".join(f"{k}={v}" for k, v in cfg.items())
    torch_rows = [("pytorch fp32", [])]
    if args.tf32:
        torch_rows.append(("pytorch tf32", ["--tf32"]))
    print(f"GPT {config}, batch {batch}: {flops / 1e9:.1f} GFLOP per step; "
          f"median of {args.steps} steps after {warmup} warm-up steps")
    print(f"{'who':<14} {'ms/step':>9} {'TFLOP/s':>8} {'MFU fp32':>9} "
          f"{'torch/loom':>10}")
    print(f"{'loom ' + meta['target']:<14} {loom_ms:9.3f} "
          f"{flops / loom_ms / 1e9:8.2f} "
          f"{100 * flops / loom_ms * 1e3 / FP32_PEAK:8.1f}%")
    for name, extra in torch_rows:
        out = subprocess.run(
            [args.torch_python, os.path.join(ROOT, "bench", "torch_train.py"),
             "--model", "gpt", "--weights", weights, "--batch", str(batch),
             "--config", config, "--steps", str(args.steps), "--device",
             "cuda", *extra], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{name}: failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        torch_ms = float(out.stdout.split("median_ms")[1].split()[0])
        print(f"{name:<14} {torch_ms:9.3f} {flops / torch_ms / 1e9:8.2f} "
              f"{100 * flops / torch_ms * 1e3 / FP32_PEAK:8.1f}% "
              f"{torch_ms / loom_ms:9.2f}x")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="verb", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("out")
    p.add_argument("--loomc", default="loomc")
    p.add_argument("--target", default="cuda")
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--loomrun", default="loomrun")
    r.add_argument("--steps", type=int, default=50)
    r.add_argument("--tf32", action="store_true")
    r.add_argument("--torch-python", default=sys.executable)
    args = parser.parse_args()
    prepare(args) if args.verb == "prepare" else run(args)


if __name__ == "__main__":
    main()
