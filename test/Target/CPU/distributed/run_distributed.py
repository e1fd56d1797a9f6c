"""End-to-end check of distributed execution: compiles the generated MLP and
GPT-style decoder for several meshes and strategies, runs each on as many
ranks as its mesh has (loomrun -np N, through mpirun), and compares rank 0's
outputs with the single-device program's (rtol 1e-5). Each run logs its
collectives (LOOM_COMM_LOG); the log must match, call by call, the kind,
group and bytes the artifact's manifest says the partitioned program moves.

    python run_distributed.py --loomc build/bin/loomc --loomrun build/bin/loomrun WORKDIR
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "..", "python"))
from loom.testing import onnx_models  # noqa: E402

CHECK_COMM_LOG = os.path.join(os.path.dirname(__file__), "..", "..", "..",
                              "utils", "check_comm_log.py")

# (model, strategy, mesh): every mesh of 1, 2 and 4 ranks the issue names.
CASES = [
    ("mlp", "data", "dp=1"),
    ("mlp", "data", "dp=2"),
    ("mlp", "data", "dp=4"),
    ("mlp", "megatron", "tp=2"),
    ("mlp", "megatron", "dp=2,tp=2"),
    ("gpt", "data", "dp=2"),
    ("gpt", "data", "dp=2,tp=2"),
    ("gpt", "megatron", "tp=1"),
    ("gpt", "megatron", "tp=2"),
    ("gpt", "megatron", "tp=4"),
    ("gpt", "megatron", "dp=2,tp=2"),
]


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.stdout.write(f"FAILED ({result.returncode}): {' '.join(cmd)}\n"
                         f"{result.stdout}{result.stderr}")
        sys.exit(1)
    return result


def ranks(mesh):
    n = 1
    for part in mesh.split(","):
        n *= int(part.split("=")[1])
    return n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loomc", required=True)
    parser.add_argument("--loomrun", required=True)
    parser.add_argument("--cases", default="",
                        help="comma-separated indices into CASES (default all)")
    parser.add_argument("workdir")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.RandomState(0)
    models = {
        "mlp": (onnx_models.mlp(), {"x": rng.standard_normal((8, 16))
                                    .astype(np.float32)}),
        "gpt": (onnx_models.gpt(layers=2, hidden=32, heads=4, vocab=64,
                                seq=16),
                {"input_ids": rng.randint(0, 64, (4, 16)).astype(np.int64)}),
    }
    reference = {}
    for name, (model, feeds) in models.items():
        path = os.path.join(args.workdir, name + ".onnx")
        onnx_models.save(model, path)
        shapes = []
        for key, value in feeds.items():
            np.save(os.path.join(args.workdir, f"{name}.{key}.npy"), value)
            shapes += ["--input-shape",
                       f"{key}={'x'.join(map(str, value.shape))}"]
        art = os.path.join(args.workdir, name + ".loom")
        run([args.loomc, path, *shapes, "-o", art])
        out = os.path.join(args.workdir, name + ".ref")
        run([args.loomrun, art, "--threads", "1", "--output-dir", out,
             *sum([["--input", f"{k}={args.workdir}/{name}.{k}.npy"]
                   for k in feeds], [])])
        reference[name] = (path, shapes, feeds, out)

    selected = range(len(CASES))
    if args.cases:
        selected = [int(i) for i in args.cases.split(",")]
    failures = 0
    for index in selected:
        name, strategy, mesh = CASES[index]
        path, shapes, feeds, ref_dir = reference[name]
        tag = f"{name}-{strategy}-{mesh.replace(',', '_').replace('=', '')}"
        art = os.path.join(args.workdir, tag + ".loom")
        run([args.loomc, path, *shapes, "--mesh", mesh,
             f"--strategy={strategy}", "-o", art])
        out = os.path.join(args.workdir, tag + ".out")
        log = os.path.join(args.workdir, tag + ".comm")
        n = ranks(mesh)
        start = time.time()
        run([args.loomrun, "-np", str(n), art, "--threads", "1",
             "--output-dir", out, "--comm-log", log,
             *sum([["--input", f"{k}={args.workdir}/{name}.{k}.npy"]
                   for k in feeds], [])])
        seconds = time.time() - start
        worst = 0.0
        ok = True
        for file in sorted(os.listdir(ref_dir)):
            want = np.load(os.path.join(ref_dir, file))
            got = np.load(os.path.join(out, file))
            if got.shape != want.shape:
                print(f"{tag}: {file}: shape {got.shape}, want {want.shape}")
                ok = False
                continue
            if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
                print(f"{tag}: {file}: max abs difference "
                      f"{np.max(np.abs(got - want))}")
                ok = False
            worst = max(worst, float(np.max(np.abs(got - want))))
        checked = subprocess.run([sys.executable, CHECK_COMM_LOG, art, log],
                                 capture_output=True, text=True)
        problems = ([] if checked.returncode == 0 else
                    (checked.stdout + checked.stderr).strip().splitlines())
        for p in problems:
            print(f"{tag}: comm log: {p}")
        ok &= not problems
        with open(os.path.join(art, "manifest.json")) as f:
            calls = json.load(f).get("collectives", [])
        moved = sum(c["bytes"] for c in calls)
        kinds = sorted({c["kind"] for c in calls})
        print(f"{'PASS' if ok else 'FAIL'}: {name} {strategy} {mesh} on {n} "
              f"rank(s): max |diff| {worst:.2e}, {len(calls)} collective(s) "
              f"{','.join(kinds) or '-'} moving {moved} B per rank, "
              f"{seconds:.1f} s")
        failures += not ok
    print(f"{len(selected) - failures} of {len(selected)} distributed runs "
          "match the single-device outputs")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
