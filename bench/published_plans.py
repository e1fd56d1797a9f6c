#!/usr/bin/env python3
"""Prices published training runs with `loomc --plan` and prints predicted
against published step times.

Each run of bench/published/runs.json (sources and derivations in
bench/published/README.md) is priced by its exact plan (dp, tp, pp, virtual
stages, microbatch size, schedule, ZeRO stage, recomputation, sequence
parallelism, Megatron's tensor-parallel pairing) on the matching cluster
description, with the model generated weightless at the run's global batch.
Runs the model cannot price yet are listed with the reason (context
parallelism, FP8, no cluster description). Rows marked holdout (the SC'21
Table 1) are reported apart: they are an independent check, never fitted.
With --auto it also plans each model with --strategy=auto on the same
devices and reports auto's time against the published plan's, under the
same model.

usage: bench/published_plans.py [--loomc PATH] [--out DIR] [--only ID,..]
       [--auto] [--json FILE]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from loom.testing import onnx_models  # noqa: E402


def model_path(out, run):
    m = run["model"]
    batch = run["plan"]["global_batch"]
    key = "-".join(str(m.get(k, 0)) for k in
                   ("arch", "layers", "hidden", "heads", "kv_heads", "ffn",
                    "vocab", "seq")) + f"-b{batch}"
    path = os.path.join(out, key + ".onnx")
    if os.path.exists(path):
        return path
    if m["arch"] == "gpt":
        if m.get("ffn", 4 * m["hidden"]) != 4 * m["hidden"]:
            raise ValueError("gpt generator has ffn = 4 x hidden")
        model = onnx_models.gpt(layers=m["layers"], hidden=m["hidden"],
                                heads=m["heads"], vocab=m["vocab"],
                                seq=m["seq"], batch=batch, weightless=1)
    else:
        model = onnx_models.llama(layers=m["layers"], hidden=m["hidden"],
                                  heads=m["heads"], kv_heads=m["kv_heads"],
                                  ffn=m["ffn"], vocab=m["vocab"], seq=m["seq"],
                                  batch=batch, weightless=1)
    onnx_models.save(model, path + ".part")
    os.replace(path + ".part", path)
    return path


def spec_of(plan):
    parts = [f"dp={plan['dp']}", f"tp={plan['tp']}", f"pp={plan['pp']}",
             f"microbatch-size={plan['microbatch_size']}",
             f"zero={plan['zero']}", f"recompute={plan['recompute']}"]
    if plan["pp"] > 1:
        schedule = plan.get("schedule") or "1f1b"
        if schedule == "interleaved" and plan.get("vpp", 1) < 2:
            # No virtual stages stated: priced with 1F1B's bubble, and the
            # table says so.
            schedule = "1f1b"
        parts.append(f"schedule={schedule}")
        if schedule == "interleaved":
            parts.append(f"vpp={plan['vpp']}")
    if plan["tp"] > 1:
        parts.append("sp=" + ("on" if plan.get("sp") else "off"))
        parts.append("tp-ops=megatron")
    return ",".join(parts)


def why_skipped(run):
    if run["plan"].get("cp", 1) > 1:
        return "context parallelism (not modelled)"
    if run.get("precision") == "fp8":
        return "FP8 (priced in bf16 only)"
    if not run.get("cluster_file"):
        return "no cluster description of its machine"
    return ""


def loomc_run(loomc, path, run, extra):
    cmd = [loomc, path, "--train", "--simulate", "--plan-cache=off",
           "--cluster", os.path.join(ROOT, run["cluster_file"]),
           "--plan", spec_of(run["plan"]),
           "--attention", run.get("attention", "fused")] + extra
    done = subprocess.run(cmd, capture_output=True, text=True)
    fits = True
    if done.returncode != 0:
        # A plan that does not fit is still explained, then refused.
        if "does not fit" not in done.stderr and \
                "no plan fits" not in done.stderr:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        if "seconds=" not in done.stdout:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        fits = False
    return done.stdout, fits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loomc", default=os.path.join(ROOT, "build", "bin",
                                                     "loomc"))
    ap.add_argument("--out", default="/tmp/loom-published")
    ap.add_argument("--only", default="")
    ap.add_argument("--auto", action="store_true")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runs = json.load(open(os.path.join(ROOT, "bench", "published",
                                       "runs.json")))["runs"]
    if args.only:
        wanted = set(args.only.split(","))
        runs = [r for r in runs if r["id"] in wanted]
    print(f"{'run':<40} {'GPUs':>5} {'plan':<34} {'published':>9} "
          f"{'predicted':>9} {'error':>7}" + ("  auto/plan" if args.auto
                                                else ""))
    rows = []
    for run in runs:
        p = run["plan"]
        shape = (f"{p['dp']}x{p['tp']}x{p['pp']}"
                 + (f"v{p['vpp']}" if p.get("vpp", 1) > 1 else "")
                 + f" b{p['microbatch_size']} z{p['zero']} "
                 + p["recompute"][:3] + (" sp" if p.get("sp") else ""))
        skip = why_skipped(run)
        if skip:
            print(f"{run['id']:<40} {run['gpus']:>5} {shape:<34} "
                  f"{run['step_seconds']:>9.2f} {'-':>9} {'-':>7}  "
                  f"skipped: {skip}")
            continue
        try:
            path = model_path(args.out, run)
            text, fits = loomc_run(args.loomc, path, run, [])
            last = text.strip().splitlines()[-1]
            predicted = float(re.search(r"seconds=(\S+)", last).group(1))
            memory = float(re.search(r"memory_bytes=(\S+)", last).group(1))
            ratio = None
            if args.auto and fits:
                text, _ = loomc_run(args.loomc, path, run,
                                    ["--strategy=auto"])
                seconds = re.findall(r"seconds=(\S+)", text)
                # The given plan's summary line comes first, auto's last.
                ratio = float(seconds[-1]) / float(seconds[0])
        except (RuntimeError, ValueError) as e:
            print(f"{run['id']:<40} {run['gpus']:>5} {shape:<34} "
                  f"{run['step_seconds']:>9.2f} {'-':>9} {'-':>7}  "
                  f"failed: {e}")
            continue
        error = predicted / run["step_seconds"] - 1
        rows.append({"id": run["id"], "source": run["id"].split("-")[0],
                     "holdout": run.get("holdout", False),
                     "published": run["step_seconds"],
                     "predicted": predicted, "error": error,
                     "fits": fits, "memory_bytes": memory,
                     "auto_over_plan": ratio})
        note = "" if fits else \
            f"  (predicted not to fit: {memory / 2**30:.1f} GiB per device)"
        if p.get("schedule") == "interleaved" and p.get("vpp", 1) < 2:
            note += "  (interleaved without stated chunks: priced as 1f1b)"
        print(f"{run['id']:<40} {run['gpus']:>5} {shape:<34} "
              f"{run['step_seconds']:>9.2f} {predicted:>9.2f} "
              f"{100 * error:>+6.1f}%"
              + (f"  {ratio:>9.3f}" if ratio is not None else "") + note)
    print()
    for name, group in (("fitted sources", [r for r in rows
                                             if not r["holdout"]]),
                        ("holdout (SC'21 Table 1)",
                         [r for r in rows if r["holdout"]])):
        if not group:
            continue
        errors = [abs(r["error"]) for r in group]
        unfit = sum(not r["fits"] for r in group)
        print(f"{name}: {len(group)} runs ({unfit} predicted not to fit), "
              f"mean |error| "
              f"{100 * statistics.mean(errors):.1f}%, median "
              f"{100 * statistics.median(errors):.1f}%, max "
              f"{100 * max(errors):.1f}%")
    for source in sorted({r["source"] for r in rows}):
        group = [abs(r["error"]) for r in rows if r["source"] == source]
        print(f"  {source}: {len(group)} runs, mean |error| "
              f"{100 * statistics.mean(group):.1f}%")
    if args.auto:
        compared = [r for r in rows if r["auto_over_plan"] is not None]
        worse = [r for r in compared if r["auto_over_plan"] > 1 + 1e-9]
        print(f"auto slower than the published plan (same model): "
              f"{len(worse)} of {len(compared)}; auto/plan median "
              f"{statistics.median(r['auto_over_plan'] for r in compared):.3f}"
              + "".join(f"\n  {r['id']}: {r['auto_over_plan']:.3f}"
                        for r in worse))
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
