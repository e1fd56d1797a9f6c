"""Compiles the generated models with loomc -o, runs them with loomrun and
compares every output with onnxruntime's on the same seeded inputs.

Usage: run_models.py OUTDIR MODEL... (models from
loom.testing.onnx_models). Each model's dynamic dimensions are fixed to the
sizes below. Prints one line per output with the largest error; exits
non-zero on any mismatch.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

from loom.testing import onnx_models

BATCH = 3
RTOL, ATOL = 1e-4, 1e-5

# Big enough that loops and GEMMs are split over the thread pool.
MODELS = dict(onnx_models.MODELS, gpt_wide=lambda: onnx_models.gpt(
    layers=2, hidden=128, heads=4, vocab=256, seq=128))


def feeds_for(model, rng):
    feeds = {}
    for info in model.graph.input:
        dims = [d.dim_value if d.dim_value > 0 else BATCH
                for d in info.type.tensor_type.shape.dim]
        if info.type.tensor_type.elem_type == onnx.TensorProto.INT64:
            feeds[info.name] = rng.integers(0, 64, dims).astype(np.int64)
        else:
            feeds[info.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("names", nargs="+", choices=sorted(MODELS))
    parser.add_argument("--loomc-arg", action="append", default=[],
                        help="an extra loomc flag (repeatable)")
    args = parser.parse_args()
    outdir, names = args.outdir, args.names
    os.makedirs(outdir, exist_ok=True)
    failed = False
    for name in names:
        model = MODELS[name]()
        path = os.path.join(outdir, name + ".onnx")
        onnx_models.save(model, path)
        rng = np.random.default_rng(0)
        feeds = feeds_for(model, rng)
        artifact = os.path.join(outdir, name + ".loom")
        cmd = ["loomc", path, "-o", artifact, *args.loomc_arg]
        run = ["loomrun", artifact, "--threads", "2", "--output-dir",
               os.path.join(outdir, name + "-out")]
        for key, value in feeds.items():
            cmd += ["--input-shape", key + "=" + "x".join(map(str, value.shape))]
            npy = os.path.join(outdir, f"{name}-{key}.npy")
            np.save(npy, value)
            run += ["--input", f"{key}={npy}"]
        subprocess.run(cmd, check=True)
        subprocess.run(run, check=True, stdout=subprocess.DEVNULL)
        session = ort.InferenceSession(path)
        expected = session.run(None, feeds)
        for info, want in zip(session.get_outputs(), expected):
            got = np.load(os.path.join(outdir, name + "-out",
                                       info.name + ".npy"))
            ok = got.shape == want.shape and np.allclose(
                got, want, rtol=RTOL, atol=ATOL)
            err = float(np.abs(got - want).max()) if got.shape == want.shape \
                else float("inf")
            print(f"{name} {info.name} {list(got.shape)}: "
                  f"{'match' if ok else 'MISMATCH'} (max abs error {err:.2e})")
            failed |= not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
