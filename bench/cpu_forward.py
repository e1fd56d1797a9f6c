"""Forward-pass throughput of Loom's CPU backend against onnxruntime, side by
side in one process: the GPT-style decoder (6 layers, hidden 256, 8 heads,
sequence 128, batch 4, vocabulary 512) and the MLP (batch 512), each at 1 and
2 threads (Loom's kernels and thread pool vs onnxruntime's intra-op pool, the
same count). Each engine runs in its own process (their idle threads spin
and would steal the other's cores); rounds of runs alternate between the two
so that machine noise hits both. Prints medians, minimums and the ratio
onnxruntime / Loom (> 1: Loom faster), plus the decoder's compile time and
artifact size.

    .venv/bin/python bench/cpu_forward.py [--runs 30] [--threads 1,2]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402
from loom.runtime import Program, set_num_threads  # noqa: E402

LOOMC = os.path.join(os.environ.get("LOOM_BUILD", os.path.join(ROOT, "build")),
                     "bin", "loomc")


def dir_size(path):
    return sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(path) for f in files)


def compile_model(model, shapes, workdir, name):
    path = os.path.join(workdir, name + ".onnx")
    onnx_models.save(model, path)
    artifact = os.path.join(workdir, name + ".loom")
    cmd = [LOOMC, path, "-o", artifact]
    for key, shape in shapes.items():
        cmd += ["--input-shape", key + "=" + "x".join(map(str, shape))]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return path, artifact, time.perf_counter() - start


def worker(engine, path, artifact, inputs, threads, runs, warmup):
    """Times `runs` runs of one engine; prints the times (s), one per line."""
    feeds = dict(np.load(inputs))
    if engine == "loom":
        set_num_threads(threads)
        program = Program(artifact)
        run = lambda: program.run(feeds)  # noqa: E731
    else:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        session = ort.InferenceSession(path, options,
                                       providers=["CPUExecutionProvider"])
        run = lambda: session.run(None, feeds)  # noqa: E731
    for _ in range(warmup):
        run()
    for _ in range(runs):
        t = time.perf_counter()
        run()
        print(time.perf_counter() - t)


def check(path, artifact, feeds):
    """The largest difference between Loom's and onnxruntime's outputs."""
    got = Program(artifact).run(feeds)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = session.run(None, feeds)
    return max(float(np.abs(got[o.name] - w).max())
               for o, w in zip(session.get_outputs(), want))


def bench(name, path, artifact, feeds, threads, runs, rounds, warmup,
          workdir):
    inputs = os.path.join(workdir, name + "-inputs.npz")
    np.savez(inputs, **feeds)
    err = check(path, artifact, feeds)
    times = {"loom": [], "ort": []}
    for _ in range(rounds):
        for engine in ("loom", "ort"):
            out = subprocess.run(
                [sys.executable, __file__, "--worker", engine, path, artifact,
                 inputs, str(threads), str(runs), str(warmup)],
                check=True, capture_output=True, text=True).stdout
            times[engine] += [float(v) for v in out.split()]
    loom, ref = np.array(times["loom"]), np.array(times["ort"])
    lm, om = np.median(loom) * 1e3, np.median(ref) * 1e3
    print(f"{name:8s} {threads:7d} {lm:10.3f} {loom.min() * 1e3:9.3f} "
          f"{om:10.3f} {ref.min() * 1e3:9.3f} {om / lm:8.2f}x {err:9.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20,
                        help="timed runs per round and engine")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--worker", nargs=7, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        engine, path, artifact, inputs, threads, runs, warmup = args.worker
        worker(engine, path, artifact, inputs, int(threads), int(runs),
               int(warmup))
        return
    threads = [int(t) for t in args.threads.split(",")]
    workdir = tempfile.mkdtemp(prefix="loom-bench-")
    try:
        rng = np.random.default_rng(0)
        gpt = onnx_models.gpt(layers=6, hidden=256, heads=8, vocab=512, seq=128)
        ids = rng.integers(0, 512, (4, 128)).astype(np.int64)
        gpt_path, gpt_art, gpt_compile = compile_model(
            gpt, {"input_ids": ids.shape}, workdir, "gpt")
        mlp = onnx_models.mlp()
        x = rng.standard_normal((512, 16)).astype(np.float32)
        mlp_path, mlp_art, _ = compile_model(mlp, {"x": x.shape}, workdir,
                                             "mlp")
        print(f"decoder: compile {gpt_compile:.2f} s (loomc, ONNX -> .loom), "
              f"artifact {dir_size(gpt_art) / 2**20:.1f} MiB "
              f"(program.so {os.path.getsize(os.path.join(gpt_art, 'program.so')) / 2**10:.0f} KiB)")
        print(f"{'model':8s} {'threads':>7s} {'loom ms':>10s} {'min':>9s} "
              f"{'ort ms':>10s} {'min':>9s} {'ort/loom':>9s} {'max err':>9s}")
        for t in threads:
            bench("decoder", gpt_path, gpt_art, {"input_ids": ids}, t,
                  args.runs, args.rounds, args.warmup, workdir)
            bench("mlp", mlp_path, mlp_art, {"x": x}, t, args.runs * 20,
                  args.rounds, args.warmup * 20, workdir)
    finally:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
