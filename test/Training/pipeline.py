"""Pipelined training equals one device: the generated 4-layer GPT trained
20 AdamW steps (clipping on) with 4 microbatches per step, on pp=2 and pp=4
under GPipe, 1F1B, ZB-H1 and interleaved 1F1B, with full and selective
recomputation (pipelined and on one device), and with pp beside dp and tp
(dp=2 x pp=2, tp=2 x pp=2, dp=2 x tp=2 x pp=2 on 8 ranks), and a GPT whose
head is its token embedding (tied across the first and the last stage).
The reference is one device with --grad-accum 4 (the same microbatches). Losses must match within 1e-5
relative, and every rank's comm log must match its stage's manifest.

    python pipeline.py --loomc loomc --loomrun loomrun WORKDIR [--only NAME]
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
from loom.testing import onnx_models  # noqa: E402
import common  # noqa: E402

STEPS = 20
MICROBATCHES = 4
CONFIGS = [
    # name, loomc flags, ranks
    ("pp=2 gpipe", ["--mesh", "pp=2", "--schedule=gpipe"], 2),
    ("pp=2 1f1b", ["--mesh", "pp=2", "--schedule=1f1b"], 2),
    ("pp=2 zb1p", ["--mesh", "pp=2", "--schedule=zb1p"], 2),
    ("pp=2 interleaved", ["--mesh", "pp=2", "--schedule=interleaved",
                          "--virtual-stages=2"], 2),
    ("pp=4 gpipe", ["--mesh", "pp=4", "--schedule=gpipe"], 4),
    ("pp=4 1f1b", ["--mesh", "pp=4", "--schedule=1f1b"], 4),
    ("pp=4 zb1p", ["--mesh", "pp=4", "--schedule=zb1p"], 4),
    ("pp=4 interleaved", ["--mesh", "pp=4", "--schedule=interleaved"], 4),
    ("pp=2 1f1b recompute=full", ["--mesh", "pp=2", "--recompute=full"], 2),
    ("pp=2 1f1b recompute=selective", ["--mesh", "pp=2",
                                       "--recompute=selective"], 2),
    ("pp=4 zb1p recompute=full", ["--mesh", "pp=4", "--schedule=zb1p",
                                  "--recompute=full"], 4),
    ("1 device recompute=full", ["--recompute=full"], 1),
    ("1 device recompute=selective", ["--recompute=selective"], 1),
    ("dp=2,pp=2 1f1b", ["--mesh", "dp=2,pp=2"], 4),
    ("tp=2,pp=2 megatron", ["--mesh", "pp=2,tp=2", "--strategy=megatron"], 4),
    ("dp=2,tp=2,pp=2 megatron", ["--mesh", "dp=2,pp=2,tp=2",
                                 "--strategy=megatron"], 8),
    # GPT with lm_head = wte^T: a copy on the first and the last stage.
    ("tied pp=2 1f1b", ["--mesh", "pp=2"], 2),
    ("tied pp=4 interleaved", ["--mesh", "pp=4", "--schedule=interleaved"],
     4),
]


def losses(path):
    return [r["loss"] for r in common.records(path)]


def main():
    args = common.parse_arguments([("--only", "")])
    work = args.workdir
    check_log = os.path.join(HERE, "..", "utils", "check_comm_log.py")
    rng = np.random.default_rng(0)
    rng.integers(0, 64, 4096).astype("<u2").tofile(
        os.path.join(work, "tokens.bin"))
    shape = ["--input-shape", "input_ids=4x16"]
    data = ["--data", "input_ids=" + os.path.join(work, "tokens.bin")]
    flags = ["--train", "--loss=cross_entropy", "--logits=logits",
             "--optimizer=adamw", "--lr", "0.01", "--clip-grad-norm", "1.0",
             "--weight-decay", "0.01"]
    models, references = {}, {}
    for model, tied in (("gpt", 0), ("tied", 1)):
        onnx_path = os.path.join(work, model + ".onnx")
        onnx_models.save(onnx_models.gpt(layers=4, tied=tied), onnx_path)
        models[model] = onnx_path
        ref_art = os.path.join(work, model + ".loom")
        ref_metrics = os.path.join(work, model + ".jsonl")
        common.run([args.loomc, onnx_path, *shape, *flags, "--grad-accum",
                    str(MICROBATCHES), "-o", ref_art])
        common.run([args.loomrun, ref_art, *data, "--train", "--steps",
                    str(STEPS), "--threads", "1", "--metrics", ref_metrics])
        references[model] = np.array(losses(ref_metrics))
        print(f"{model} 4 layers: 1 device, {MICROBATCHES} microbatches: "
              f"loss {references[model][0]:.5f} -> "
              f"{references[model][-1]:.5f} over {STEPS} steps")
    total = failures = 0
    for name, extra, ranks in CONFIGS:
        if args.only and args.only != name:
            continue
        model = "tied" if name.startswith("tied ") else "gpt"
        onnx_path, reference = models[model], references[model]
        total += 1
        slug = name.replace(" ", "_").replace("=", "").replace(",", "_")
        art = os.path.join(work, slug + ".loom")
        metrics = os.path.join(work, slug + ".jsonl")
        log = os.path.join(work, slug + ".comm")
        ok = common.run([args.loomc, onnx_path, *shape, *flags,
                         "--microbatches", str(MICROBATCHES), *extra, "-o",
                         art], fatal=False) is not None
        ok = ok and common.run([args.loomrun, "-np", str(ranks), art, *data,
                                "--train", "--steps", str(STEPS), "--threads",
                                "1", "--metrics", metrics, "--comm-log", log,
                                "--timeout", "120"], fatal=False) is not None
        logged = ok and (ranks == 1 or common.run(
            [sys.executable, check_log, art, log], fatal=False))
        if not ok or not logged:
            failures += 1
            print(f"FAIL: {name} on {ranks} ranks")
            continue
        got = np.array(losses(metrics))
        same = len(got) == STEPS and np.allclose(got, reference, rtol=1e-5,
                                                 atol=0)
        diff = float(np.max(np.abs(got - reference) / np.abs(reference))) \
            if len(got) == STEPS else float("inf")
        failures += not same
        top = json.load(open(os.path.join(art, "manifest.json")))
        stages = top["pipeline"]["stages"] if "pipeline" in top else []
        sends = []
        for stage in stages:
            m = json.load(open(os.path.join(art, stage, "manifest.json")))
            sends.append(sum(c["kind"] == "send" for c in m["collectives"]))
        print(f"{'PASS' if same else 'FAIL'}: {name} on {ranks} ranks: "
              f"max rel diff {diff:.1e}; sends per step by stage {sends}")
    print(f"{total - failures} of {total} pipelined runs match the "
          "single-device losses")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
