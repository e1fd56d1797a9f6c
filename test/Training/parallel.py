"""The same training run (same global batch, same data, 20 steps of AdamW
with clipping) on 1, 2 and 4 ranks: data parallel, ZeRO stages 1 to 3,
Megatron tensor parallel and dp x tp, for the generated MLP and the
GPT-style decoder. Every run's losses must match the single-device run
(rtol 1e-5); runs whose reductions add in the same order match to the bit
(reported). Each run's comm log must equal the collectives its manifest
declares, once per step.

    python parallel.py --loomc loomc --loomrun loomrun WORKDIR [--only NAME]
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
CONFIGS = [
    # name, loomc flags, ranks
    ("data dp=2", ["--mesh", "dp=2"], 2),
    ("data dp=4", ["--mesh", "dp=4"], 4),
    ("zero1 dp=2", ["--mesh", "dp=2", "--zero=1"], 2),
    ("zero2 dp=2", ["--mesh", "dp=2", "--zero=2"], 2),
    ("zero3 dp=2", ["--mesh", "dp=2", "--zero=3"], 2),
    ("zero3 dp=4", ["--mesh", "dp=4", "--zero=3"], 4),
    ("megatron tp=2", ["--mesh", "tp=2", "--strategy=megatron"], 2),
    ("megatron dp=2,tp=2", ["--mesh", "dp=2,tp=2", "--strategy=megatron"], 4),
    ("megatron zero1 dp=2,tp=2", ["--mesh", "dp=2,tp=2",
                                  "--strategy=megatron", "--zero=1"], 4),
    ("megatron zero3 dp=2,tp=2", ["--mesh", "dp=2,tp=2",
                                  "--strategy=megatron", "--zero=3"], 4),
]


def run(cmd):
    return common.run(cmd, fatal=False)


def losses(path):
    return [r["loss"] for r in common.records(path)]


def main():
    args = common.parse_arguments([("--only", "")])
    work = args.workdir
    check_log = os.path.join(HERE, "..", "utils", "check_comm_log.py")
    rng = np.random.default_rng(0)
    np.save(os.path.join(work, "x.npy"),
            rng.standard_normal((64, 16)).astype(np.float32))
    np.save(os.path.join(work, "y.npy"), rng.integers(0, 10, 64))
    rng.integers(0, 64, 4096).astype("<u2").tofile(
        os.path.join(work, "tokens.bin"))
    models = {
        "mlp": (onnx_models.mlp(), ["--input-shape", "x=16x16"],
                ["--data", "x=" + os.path.join(work, "x.npy"),
                 "--data", "labels=" + os.path.join(work, "y.npy")]),
        "gpt": (onnx_models.gpt(), ["--input-shape", "input_ids=8x16"],
                ["--data", "input_ids=" + os.path.join(work, "tokens.bin")]),
    }
    train_flags = ["--train", "--loss=cross_entropy", "--logits=logits",
              "--optimizer=adamw", "--lr", "0.01", "--clip-grad-norm", "1.0",
              "--weight-decay", "0.01"]
    total = failures = 0
    for model_name, (model, shape, data) in models.items():
        if args.only and not args.only.startswith(model_name):
            continue
        onnx_path = os.path.join(work, model_name + ".onnx")
        onnx_models.save(model, onnx_path)
        ref_art = os.path.join(work, model_name + ".loom")
        ref_metrics = os.path.join(work, model_name + ".jsonl")
        if run([args.loomc, onnx_path, *shape, *train_flags, "-o", ref_art]) is None \
                or run([args.loomrun, ref_art, *data, "--train", "--steps",
                        str(STEPS), "--threads", "1", "--metrics",
                        ref_metrics]) is None:
            sys.exit(1)
        reference = np.array(losses(ref_metrics))
        print(f"{model_name}: 1 device, loss {reference[0]:.5f} -> "
              f"{reference[-1]:.5f} over {STEPS} steps")
        for name, flags, ranks in CONFIGS:
            label = f"{model_name} {name}"
            if args.only and args.only != label and args.only != model_name:
                continue
            total += 1
            slug = label.replace(" ", "_").replace("=", "").replace(",", "_")
            art = os.path.join(work, slug + ".loom")
            metrics = os.path.join(work, slug + ".jsonl")
            log = os.path.join(work, slug + ".comm")
            ok = run([args.loomc, onnx_path, *shape, *train_flags, *flags,
                      "-o", art], ) is not None
            ok = ok and run([args.loomrun, "-np", str(ranks), art, *data,
                             "--train", "--steps", str(STEPS), "--threads",
                             "1", "--metrics", metrics, "--comm-log", log,
                             "--timeout", "120"]) is not None
            logged = ok and run([sys.executable, check_log, art, log])
            if not ok or not logged:
                failures += 1
                print(f"FAIL: {label} on {ranks} ranks")
                continue
            got = np.array(losses(metrics))
            same = len(got) == STEPS and np.allclose(got, reference,
                                                     rtol=1e-5, atol=0)
            exact = same and np.array_equal(got, reference)
            diff = float(np.max(np.abs(got - reference) / np.abs(reference))) \
                if len(got) == STEPS else float("inf")
            failures += not same
            manifest = json.load(open(os.path.join(art, "manifest.json")))
            kinds = sorted({c["kind"] for c in manifest["collectives"]})
            print(f"{'PASS' if same else 'FAIL'}: {label} on {ranks} ranks: "
                  f"{'bit-identical' if exact else f'max rel diff {diff:.1e}'}"
                  f"; {len(manifest['collectives'])} collective(s) per step "
                  f"({','.join(kinds)})")
    print(f"{total - failures} of {total} parallel training runs match the "
          "single-device losses")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
