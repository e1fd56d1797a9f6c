"""Staged cases: what scripts/gpu/stage.py compiles on a machine with the
compiler and scripts/gpu/check.py runs on a machine without it (the GPU
machine has loomrun, numpy, onnxruntime and PyTorch, but no MLIR or MPI).

A case is a folder with `case.json` and its files, all paths relative to it:

    {"kind": "run", "artifact": "model.loom",
     "inputs": [["x", "in/x.npy"], ...],
     "outputs": [["logits", "want/0.npy", "plain"], ...],
     "rtol": 1e-3, "atol": 1e-5}

    {"kind": "train", "artifact": "train.loom", "steps": 20,
     "args": ["--data", "input_ids=@tokens.bin", ...],
     "reference_losses": [...], "rtol": 1e-4}

In `args`, `@FILE` is a file of the case. An output's decode is "plain",
"bfloat16" (compared as float32), "int4" (stored as int8/uint8) or
"table:FILE" (a 256-entry float32 table of an 8-bit float's values).
Only numpy is needed here.
"""
import json
import os
import subprocess
import time

import numpy as np


def write_case(folder, case):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(case, f, indent=1)


def read_case(folder):
    with open(os.path.join(folder, "case.json")) as f:
        return json.load(f)


def safe_name(name):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def decode(folder, values, how):
    if how == "bfloat16":
        return (values.view(np.uint16).astype(np.uint32) << 16).view(
            np.float32)
    if how == "int4":
        return values.astype(np.float32)
    if how.startswith("table:"):
        table = np.load(os.path.join(folder, how[len("table:"):]))
        return table[values.view(np.uint8)]
    return values


def compare(name, got, want, rtol, atol):
    """None when `got` matches `want`, else why not."""
    if got.dtype != want.dtype:
        return f"output '{name}' has dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"output '{name}' has shape {got.shape}, expected {want.shape}"
    if want.dtype.kind not in "fc":
        return None if np.array_equal(got, want) else \
            f"output '{name}': values differ"
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(w)
    if not np.array_equal(nan, np.isnan(g)):
        return f"output '{name}': NaNs differ"
    g, w = g[~nan], w[~nan]
    inf = np.isinf(w)
    if not np.array_equal(g[inf], w[inf]):
        return f"output '{name}': infinities differ"
    g, w = g[~inf], w[~inf]
    bad = np.abs(g - w) > atol + rtol * np.abs(w)
    if bad.any():
        return (f"output '{name}': {int(bad.sum())} of {w.size} elements "
                f"differ, max abs error {np.abs(g - w).max():.3g}")
    return None


def expand(folder, args):
    """`args` with @FILE made a path into the case folder."""
    out = []
    for arg in args:
        if "@" in arg:
            head, _, tail = arg.partition("@")
            arg = head + os.path.join(folder, tail)
        out.append(arg)
    return out


def run_case(folder, loomrun, scratch, extra=(), timeout=600):
    """Runs a "run" case; returns (status, message, seconds) with status
    "pass", "run" (loomrun failed) or "mismatch"."""
    case = read_case(folder)
    out = os.path.join(scratch, "out")
    cmd = [loomrun, os.path.join(folder, case["artifact"]),
           "--output-dir", out, *extra]
    for name, path in case["inputs"]:
        cmd += ["--input", f"{name}={os.path.join(folder, path)}"]
    start = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True,
                            timeout=timeout)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines()
        return "run", lines[0] if lines else f"exit {result.returncode}", \
            seconds
    for name, path, how in case["outputs"]:
        got_path = os.path.join(out, safe_name(name) + ".npy")
        if not os.path.exists(got_path):
            return "run", f"no output '{name}'", seconds
        got = decode(folder, np.load(got_path), how)
        want = decode(folder, np.load(os.path.join(folder, path)), how)
        problem = compare(name, got, want, case["rtol"], case["atol"])
        if problem:
            return "mismatch", problem, seconds
    return "pass", "", seconds


def read_metrics(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def train_case(folder, loomrun, scratch, extra=(), timeout=600):
    """Runs a "train" case; returns (losses, step times in s, error)."""
    case = read_case(folder)
    metrics = os.path.join(scratch, "metrics.jsonl")
    cmd = [loomrun, os.path.join(folder, case["artifact"]), "--train",
           "--steps", str(case["steps"]), "--metrics", metrics,
           *expand(folder, case["args"]), *extra]
    result = subprocess.run(cmd, capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines()
        return [], [], lines[-1] if lines else f"exit {result.returncode}"
    rows = [r for r in read_metrics(metrics) if "loss" in r]
    return ([r["loss"] for r in rows], [r.get("step_time_s", 0.0)
                                        for r in rows], "")
