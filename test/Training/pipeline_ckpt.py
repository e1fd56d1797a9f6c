"""Checkpoints and failures of pipelined training runs (the generated
4-layer GPT, AdamW, 4 microbatches per step):

  resume      6 + 6 steps on pp=2 with a resume equal 12 uninterrupted
              steps bit for bit;
  reshard     a pp=2 checkpoint resumed on one device and on dp=2, and a
              one-device checkpoint resumed on pp=2 (1F1B) and pp=4
              (interleaved): the losses follow the one-device run
              (rtol 1e-5);
  nan         a NaN injected into rank 1's gradients (stage 1) at step 3 is
              skipped on every rank of every stage;
  kill        a rank of stage 1 killed at a transfer ends the whole job
              within the timeout, naming the rank and its stage;
  metrics     every step reports each stage's busy and waiting time and
              peak memory.

    python pipeline_ckpt.py --loomc loomc --loomrun loomrun WORKDIR
"""

import os
import shutil
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
from loom.testing import onnx_models  # noqa: E402
import common  # noqa: E402

N = 6
MICROBATCHES = 4
TRAIN = ["--train", "--loss=cross_entropy", "--logits=logits",
         "--optimizer=adamw", "--lr", "0.01", "--lr-schedule=cosine",
         "--warmup", "2", "--decay-steps", "10", "--clip-grad-norm", "1.0"]
report = common.Checks()
run, records = common.run, common.records




def losses(path):
    return np.array([r["loss"] for r in records(path)])


def main():
    args = common.parse_arguments()
    w = args.workdir
    onnx_path = os.path.join(w, "gpt.onnx")
    onnx_models.save(onnx_models.gpt(layers=4), onnx_path)
    tokens = os.path.join(w, "tokens.bin")
    np.random.default_rng(0).integers(0, 64, 4096).astype("<u2").tofile(tokens)
    data = ["--data", "input_ids=" + tokens]

    def compile_(name, *flags):
        art = os.path.join(w, name + ".loom")
        run([args.loomc, onnx_path, "--input-shape", "input_ids=4x16", *TRAIN,
             "--microbatches", str(MICROBATCHES), *flags, "-o", art])
        return art

    def train(art, ranks, steps, metrics, *extra, env=None, expect=0):
        return run([args.loomrun, "-np", str(ranks), art, *data, "--train",
                    "--steps", str(steps), "--threads", "1", "--metrics",
                    metrics, *extra], env=env, expect=expect,
                   fatal=expect == 0)

    one = compile_("one")
    pp2 = compile_("pp2", "--mesh", "pp=2")
    dp2 = compile_("dp2", "--mesh", "dp=2")
    pp4 = compile_("pp4", "--mesh", "pp=4", "--schedule=interleaved")

    ref = os.path.join(w, "one.jsonl")
    train(one, 1, 2 * N, ref)
    reference = losses(ref)
    whole = os.path.join(w, "pp2.jsonl")
    train(pp2, 2, 2 * N, whole)

    # Resume: the second half equals the uninterrupted run bit for bit.
    ckpt = os.path.join(w, "ckpt-pp2")
    part = os.path.join(w, "pp2-part.jsonl")
    train(pp2, 2, N, part, "--ckpt", ckpt, "--ckpt-every", str(N))
    half = os.path.join(w, "ckpt-pp2-step6")
    shutil.copytree(ckpt, half)
    out = train(pp2, 2, 2 * N, part, "--ckpt", ckpt, "--resume")
    got = losses(part)
    report("resuming from" in out and len(got) == 2 * N and
           np.array_equal(got, losses(whole)),
           f"resume: {N} + {N} steps on pp=2 equal {2 * N} uninterrupted "
           "steps bit for bit")

    # Reshard the pp=2 checkpoint (its step N) under other plans.
    def reshard(name, art, ranks, source):
        slug = name.replace(" ", "_").replace(">", "").replace("=", "")
        copy = os.path.join(w, "ckpt-" + slug)
        shutil.copytree(source, copy)
        metrics = os.path.join(w, slug + ".jsonl")
        train(art, ranks, 2 * N, metrics, "--ckpt", copy, "--resume")
        got = losses(metrics)
        ok = len(got) == N and np.allclose(got, reference[N:], rtol=1e-5,
                                           atol=0)
        report(ok, f"reshard {name}: steps {N + 1}-{2 * N} follow the "
               "one-device run")

    reshard("pp=2 -> 1 device", one, 1, half)
    reshard("pp=2 -> dp=2", dp2, 2, half)
    ckpt1 = os.path.join(w, "ckpt-one")
    train(one, 1, N, os.path.join(w, "one-part.jsonl"), "--ckpt", ckpt1,
          "--ckpt-every", str(N))
    reshard("1 device -> pp=2", pp2, 2, ckpt1)
    reshard("1 device -> pp=4 interleaved", pp4, 4, ckpt1)

    # A GPT whose head is its token embedding: the copy on each end stage
    # is checkpointed once, and resumes on one device.
    tied_onnx = os.path.join(w, "tied.onnx")
    onnx_models.save(onnx_models.gpt(layers=4, tied=1), tied_onnx)

    def compile_tied(name, *flags):
        art = os.path.join(w, name + ".loom")
        run([args.loomc, tied_onnx, "--input-shape", "input_ids=4x16", *TRAIN,
             "--microbatches", str(MICROBATCHES), *flags, "-o", art])
        return art

    tied_one, tied_pp2 = compile_tied("tied-one"), compile_tied(
        "tied-pp2", "--mesh", "pp=2")
    tied_ref = os.path.join(w, "tied-one.jsonl")
    train(tied_one, 1, 2 * N, tied_ref)
    tied_ckpt = os.path.join(w, "ckpt-tied")
    train(tied_pp2, 2, N, os.path.join(w, "tied-pp2.jsonl"), "--ckpt",
          tied_ckpt)
    import json
    listed = [t["name"] for t in json.load(open(os.path.join(
        tied_ckpt, f"step-{N:08d}", "manifest.json")))["tensors"]]
    tied_metrics = os.path.join(w, "tied-resumed.jsonl")
    train(tied_one, 1, 2 * N, tied_metrics, "--ckpt", tied_ckpt, "--resume")
    got = losses(tied_metrics)
    report(listed.count("wte.weight") == 1 and len(got) == N and
           np.allclose(got, losses(tied_ref)[N:], rtol=1e-5, atol=0),
           "tied: the embedding both end stages hold is checkpointed once "
           "and a pp=2 checkpoint resumes on one device")

    # A NaN in stage 1's gradients at step 3: every rank skips the update.
    nan = os.path.join(w, "nan.jsonl")
    out = train(pp2, 2, N, nan, "--log-every", "1",
                env={"LOOM_TEST_FAULT": "rank=1,step=3,action=nan"})
    skipped = [r["step"] for r in records(nan) if r["skipped"]]
    report(skipped == [3] and f"trained {N} steps (1 skipped)" in out,
           f"nan: step {skipped} skipped on every stage")

    # A rank of stage 1 killed at its 5th transfer or collective.
    start = time.time()
    out = train(pp2, 2, N, os.path.join(w, "kill.jsonl"), "--timeout", "20",
                env={"LOOM_TEST_FAULT": "rank=1,collective=5,action=kill"},
                expect=1) or ""
    seconds = time.time() - start
    named = "rank 1 (pipeline stage 1) was killed" in out
    report(named and seconds < 60,
           "kill: " + (out.strip().splitlines() or [""])[-1])

    # Per-stage metrics on every step.
    rows = records(whole)
    ok = all(len(r.get("stages", [])) == 2 for r in rows) and all(
        s["busy_s"] > 0 and s["wait_s"] >= 0 and s["peak_bytes"] > 0
        for r in rows for s in r["stages"])
    report(ok, "metrics: busy, wait and peak memory of both stages on "
           "every step")
    print(f"{report.failures} failure(s)")
    sys.exit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
