"""Runs the staged GPU check (scripts/gpu/stage.py's cases) with loomrun and
prints one line per part and a summary; writes the results as JSON.

    check.py STAGE --loomrun PATH [--json FILE] [--jobs N] [--skip-bench]

Parts, each PASS or FAIL (the exit status is 1 when one fails):
- node: the node tests that pass on the CPU, run on this device; at least
  99% of them pass;
- models: the generated MLP, GPT, BERT-style and CNN against onnxruntime
  (rtol 1e-3);
- gpt_fp32: 20 training steps equal the CPU's losses (rtol 1e-4);
- chargpt: the character GPT's loss curve tracks the CPU's (rtol 5e-2 on
  the mean of each tenth), with the time per step;
- bench: bench/gpu_train_step.py run, side by side with PyTorch (printed,
  not judged).
Needs numpy only (PyTorch for the bench).
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cases  # noqa: E402


def check_node(stage, args, results):
    folder = os.path.join(stage, "node")
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    names = sorted(n for n in os.listdir(folder)
                   if os.path.isdir(os.path.join(folder, n)))

    def one(name):
        with tempfile.TemporaryDirectory() as tmp:
            return (name,) + cases.run_case(os.path.join(folder, name),
                                            args.loomrun, tmp, timeout=120)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(one, names))
    passed = sum(1 for r in rows if r[1] == "pass")
    base = index["cpu_passing"]
    ratio = passed / max(base, 1)
    failures = {name: f"{status}: {msg}" for name, status, msg, _ in rows
                if status != "pass"}
    failures.update({name: f"compile: {why}"
                     for name, why in index["not_compiled"].items()})
    for name, why in sorted(failures.items()):
        print(f"  node {name}: {why}")
    ok = ratio >= 0.99
    print(f"{'PASS' if ok else 'FAIL'} node tests: {passed} of {base} that "
          f"pass on the CPU pass here ({100 * ratio:.1f}%, need 99%); "
          f"{len(index['not_compiled'])} did not compile, "
          f"{len(rows) - passed} failed to run or mismatched")
    results["node"] = {"ok": ok, "passed": passed, "cpu_passing": base,
                       "failures": failures}
    return ok


def check_models(stage, args, results):
    folder = os.path.join(stage, "models")
    ok, rows = True, {}
    for name in sorted(os.listdir(folder)):
        with tempfile.TemporaryDirectory() as tmp:
            status, msg, seconds = cases.run_case(os.path.join(folder, name),
                                                  args.loomrun, tmp)
        rows[name] = f"{status} {msg}".strip()
        ok &= status == "pass"
        print(f"  model {name}: {status} {msg} ({seconds:.2f} s)")
    print(f"{'PASS' if ok else 'FAIL'} models against onnxruntime: "
          f"{sum(v == 'pass' for v in rows.values())} of {len(rows)}")
    results["models"] = {"ok": ok, "rows": rows}
    return ok


def check_train(stage, name, args, results, smooth):
    folder = os.path.join(stage, "train", name)
    case = cases.read_case(folder)
    with tempfile.TemporaryDirectory() as tmp:
        losses, times, error = cases.train_case(folder, args.loomrun, tmp)
    want = case["reference_losses"]
    if error or len(losses) != len(want):
        print(f"FAIL {name}: {error or f'{len(losses)} losses, expected {len(want)}'}")
        results[name] = {"ok": False, "error": error}
        return False
    got, ref = np.array(losses), np.array(want)
    if smooth:  # the curve's shape: means of each tenth of the run
        got = np.array([c.mean() for c in np.array_split(got, 10)])
        ref = np.array([c.mean() for c in np.array_split(ref, 10)])
    rel = float(np.max(np.abs(got - ref) / np.abs(ref)))
    ok = rel <= case["rtol"]
    step_ms = 1000 * float(np.median(times[len(times) // 5:])) if times else 0
    print(f"{'PASS' if ok else 'FAIL'} {name}: {len(losses)} steps, loss "
          f"{losses[0]:.4f} -> {losses[-1]:.4f} (CPU {want[0]:.4f} -> "
          f"{want[-1]:.4f}), max relative difference {rel:.2e} (limit "
          f"{case['rtol']:.0e}), median step {step_ms:.3f} ms")
    results[name] = {"ok": ok, "max_rel": rel, "losses": losses,
                     "reference": want, "median_step_ms": step_ms}
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stage")
    parser.add_argument("--loomrun", required=True)
    parser.add_argument("--json")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--skip-bench", action="store_true")
    args = parser.parse_args()
    start = time.time()
    results, ok = {}, True
    with open(os.path.join(args.stage, "target.json")) as f:
        results["target"] = json.load(f)["target"]
    info = subprocess.run([args.loomrun, os.path.join(
        args.stage, "models", "mlp", "model.loom"), "--info"],
        capture_output=True, text=True)
    print(info.stdout + info.stderr)
    ok &= check_node(args.stage, args, results)
    ok &= check_models(args.stage, args, results)
    ok &= check_train(args.stage, "gpt_fp32", args, results, smooth=False)
    ok &= check_train(args.stage, "chargpt", args, results, smooth=True)
    print("SKIP gpt_bf16: mixed precision is not compiled yet (issue 16, "
          "item 6)")
    if not args.skip_bench:
        bench = subprocess.run(
            [sys.executable, os.path.join(ROOT, "bench", "gpu_train_step.py"),
             "run", os.path.join(args.stage, "bench"), "--loomrun",
             args.loomrun], capture_output=True, text=True)
        print(bench.stdout + bench.stderr)
        results["bench"] = {"rc": bench.returncode, "output": bench.stdout}
    results["ok"] = bool(ok)
    results["seconds"] = time.time() - start
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"gpu check: {'PASS' if ok else 'FAIL'} in {results['seconds']:.0f} s")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
