"""Training-step throughput of Loom against PyTorch on this CPU, side by
side in one run, for the generated MLP and the GPT-style decoder:

    .venv/bin/python bench/train_step.py [--build build] [--threads 1]
        [--steps 30] [--torch-python /usr/bin/python3]

Both sides train the same model (the ONNX generator's weights) with AdamW
and mean cross entropy on the same batch shape, with the same number of
threads; Loom's step time is the median of `loomrun --train` step times
(metrics file), PyTorch's the median of forward + backward + optimizer
step (bench/torch_train.py, run by a Python that has torch: Debian's
python3-torch, which `apt-get install python3-torch` provides). Prints
each median and the ratio PyTorch / Loom (above 1: Loom is faster).
"""

import argparse
import json
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402
from distributed_forward import run  # noqa: E402

GPT = "layers=4,hidden=256,heads=8,vocab=512,seq=128"
MODELS = [
    # name, generator, loomc input shape, batch, config, ranks
    ("mlp", "mlp", "x={b}x16", 256, "", 1),
    ("gpt", "gpt", "input_ids={b}x{seq}", 8, GPT, 1),
    # Data parallel on 2 ranks of one thread each, against PyTorch with as
    # many threads in all.
    ("gpt dp=2", "gpt", "input_ids={b}x{seq}", 8, GPT, 2),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--torch-python", default="/usr/bin/python3")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternate Loom and PyTorch this many times "
                             "(this machine's speed drifts; medians over "
                             "all rounds)")
    args = parser.parse_args()
    loomc = os.path.join(args.build, "bin", "loomc")
    loomrun = os.path.join(args.build, "bin", "loomrun")
    work = tempfile.mkdtemp(prefix="loom-bench-train-")
    print(f"training step (AdamW, cross entropy), {args.threads} thread(s), "
          f"median of {args.steps} steps after 5 warm-up steps")
    print(f"{'model':<9} {'shape':<18} {'thr':>3} {'loom ms':>9} "
          f"{'torch ms':>9} {'torch/loom':>10}")
    for name, gen, shape, batch, config, ranks in MODELS:
        threads = args.threads * ranks
        cfg = {k: int(v) for k, v in
               (i.split("=") for i in filter(None, config.split(",")))}
        from onnx import numpy_helper
        model = getattr(onnx_models, gen)(**cfg)
        slug = name.replace(" ", "_").replace("=", "")
        path = os.path.join(work, slug + ".onnx")
        onnx_models.save(model, path)
        weights = os.path.join(work, slug + ".npz")
        np.savez(weights, **{t.name: numpy_helper.to_array(t)
                             for t in model.graph.initializer})
        input_shape = shape.format(b=batch, **cfg)
        art = os.path.join(work, slug + ".loom")
        mesh = ["--mesh", f"dp={ranks}"] if ranks > 1 else []
        run([loomc, path, "--input-shape", input_shape, "--train",
             "--loss=cross_entropy", "--logits=logits", "--optimizer=adamw",
             *mesh, "-o", art])
        rng = np.random.default_rng(0)
        data = []
        if name == "mlp":
            np.save(os.path.join(work, "x.npy"),
                    rng.standard_normal((batch, 16)).astype(np.float32))
            np.save(os.path.join(work, "y.npy"),
                    rng.integers(0, 10, batch).astype(np.int64))
            data = ["--data", "x=" + os.path.join(work, "x.npy"),
                    "--data", "labels=" + os.path.join(work, "y.npy")]
        else:
            rng.integers(0, cfg["vocab"], 100000).astype("<u2").tofile(
                os.path.join(work, "tokens.bin"))
            data = ["--data", "input_ids=" + os.path.join(work, "tokens.bin")]
        loom_times, torch_times = [], []
        for round_ in range(args.rounds):
            metrics = os.path.join(work, f"{slug}-{round_}.jsonl")
            run([loomrun, "-np", str(ranks), art, "--train", *data,
                 "--steps", str(args.steps + 5), "--threads",
                 str(args.threads), "--metrics", metrics])
            loom_times += [json.loads(line)["step_time_s"]
                           for line in open(metrics) if line.strip()][5:]
            out = run([args.torch_python,
                       os.path.join(ROOT, "bench", "torch_train.py"),
                       "--model", gen, "--weights", weights, "--batch",
                       str(batch), "--config", config, "--steps",
                       str(args.steps), "--threads", str(threads)])
            torch_times.append(float(out.split("median_ms")[1].split()[0]))
        loom_ms = 1000 * float(np.median(loom_times))
        torch_ms = float(np.median(torch_times))
        print(f"{name:<9} {input_shape:<18} {threads:>3} {loom_ms:9.3f} "
              f"{torch_ms:9.3f} "
              f"{torch_ms / loom_ms:9.2f}x")


if __name__ == "__main__":
    main()
