"""Checkpoints of compiled training runs (the generated GPT-style decoder,
AdamW with a cosine schedule):

  resume      2N steps in one run vs N steps, stop, resume to 2N on dp=2:
              the losses of steps N+1..2N are bit-identical;
  reshard     a checkpoint written by one plan resumed under another
              (dp=2 -> dp=4, megatron tp=2 -> dp=2, zero3 dp=2 -> 1 device):
              the losses follow the uninterrupted run (rtol 1e-5);
  nan         a NaN injected into rank 1's gradients at step 3
              (LOOM_TEST_FAULT) is skipped on every rank, and the run goes on;
  export      loom-ckpt export, then --params inference with an artifact
              compiled for inference gives the logits that the exported
              weights give through onnxruntime.

    python resume.py --loomc loomc --loomrun loomrun --loom-ckpt loom-ckpt WORKDIR
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "utils"))
sys.path.insert(0, HERE)
from loom.testing import onnx_models  # noqa: E402
import common  # noqa: E402
import read_safetensors  # noqa: E402

N = 6
TRAIN = ["--train", "--loss=cross_entropy", "--logits=logits",
         "--optimizer=adamw", "--lr", "0.01", "--lr-schedule=cosine",
         "--warmup", "2", "--decay-steps", "10"]
report = common.Checks()


run, records = common.run, common.records




def main():
    args = common.parse_arguments()
    w = args.workdir
    model = onnx_models.gpt()
    onnx = os.path.join(w, "gpt.onnx")
    onnx_models.save(model, onnx)
    np.random.default_rng(0).integers(0, 64, 4096).astype("<u2").tofile(
        os.path.join(w, "tokens.bin"))
    data = ["--data", "input_ids=" + os.path.join(w, "tokens.bin"),
            "--threads", "1", "--timeout", "120"]

    def compile(name, *flags):
        art = os.path.join(w, name + ".loom")
        run([args.loomc, onnx, "--input-shape", "input_ids=8x16", *TRAIN,
             *flags, "-o", art])
        return art

    def train(art, ranks, steps, name, *extra, env=None):
        metrics = os.path.join(w, name + ".jsonl")
        run([args.loomrun, "-np", str(ranks), art, "--train", *data, "--steps",
             str(steps), "--metrics", metrics, *extra], env=env)
        return [r["loss"] for r in records(metrics)]

    one = compile("one")
    dp2 = compile("dp2", "--mesh", "dp=2")
    dp4 = compile("dp4", "--mesh", "dp=4")
    tp2 = compile("tp2", "--mesh", "tp=2", "--strategy=megatron")
    z3 = compile("z3", "--mesh", "dp=2", "--zero=3")

    # resume
    full = train(dp2, 2, 2 * N, "full", "--ckpt", os.path.join(w, "full"))
    first = train(dp2, 2, N, "first", "--ckpt", os.path.join(w, "split"),
                  "--ckpt-every", "2")
    second = train(dp2, 2, 2 * N, "second", "--ckpt",
                   os.path.join(w, "split"), "--resume")
    report(first == full[:N] and second == full[N:],
           f"resume: {N} + {N} steps on dp=2 equal {2 * N} uninterrupted "
           f"steps bit for bit (last loss {full[-1]:.6f})")

    # reshard
    reference = train(one, 1, 2 * N, "reference")
    for name, art_a, ranks_a, art_b, ranks_b in [
            ("dp=2 -> dp=4", dp2, 2, dp4, 4),
            ("megatron tp=2 -> dp=2", tp2, 2, dp2, 2),
            ("zero3 dp=2 -> 1 device", z3, 2, one, 1)]:
        slug = "".join(c for c in name if c.isalnum())
        ckpt = os.path.join(w, "re-" + slug)
        a = train(art_a, ranks_a, N, slug + "-a", "--ckpt", ckpt)
        b = train(art_b, ranks_b, 2 * N, slug + "-b", "--ckpt", ckpt,
                  "--resume")
        got = np.array(a + b)
        ok = len(got) == 2 * N and np.allclose(got, reference, rtol=1e-5)
        report(ok, f"reshard {name}: {2 * N} losses follow the "
               f"uninterrupted run (max rel diff "
               f"{np.max(np.abs(got - reference) / reference):.1e})")

    # nan
    metrics = os.path.join(w, "nan.jsonl")
    out = run([args.loomrun, "-np", "2", dp2, "--train", *data, "--steps", str(N),
               "--metrics", metrics],
              env={"LOOM_TEST_FAULT": "rank=1,step=3,action=nan"})
    recs = records(metrics)
    skipped = [r["step"] for r in recs if r["skipped"]]
    clean = [r["loss"] for r in recs]
    report(skipped == [3] and np.isfinite(clean[3:]).all()
           and "1 skipped" in out,
           f"nan: step {skipped} skipped on both ranks, the run goes on "
           f"(final loss {clean[-1]:.4f})")
    out = run([args.loomrun, "-np", "2", dp2, "--train", *data, "--steps", str(N),
               "--on-nan=halt"],
              env={"LOOM_TEST_FAULT": "rank=1,step=3,action=nan"}, expect=1)
    report("step 3" in out, "nan halt: " + next(
        (line for line in out.splitlines() if "error" in line), out))

    # export
    exported = os.path.join(w, "gpt.safetensors")
    run([args.loom_ckpt, "export", os.path.join(w, "full"), "-o", exported])
    tensors, _ = read_safetensors.read(exported)
    names = {t.name for t in model.graph.initializer}
    # The reference implementation (safetensors.torch shares its parser).
    from safetensors.numpy import load_file
    official = load_file(exported)
    same = set(official) == names and all(
        np.array_equal(official[k], tensors[k][1]) for k in names)
    report(set(tensors) == names and same,
           f"export: {len(tensors)} tensors under the ONNX names, read "
           "alike by the safetensors package")
    infer = os.path.join(w, "infer.loom")
    run([args.loomc, onnx, "--input-shape", "input_ids=2x16", "-o", infer])
    ids = np.random.default_rng(1).integers(0, 64, (2, 16))
    np.save(os.path.join(w, "ids.npy"), ids)
    run([args.loomrun, infer, "--params", exported, "--input",
         "input_ids=" + os.path.join(w, "ids.npy"), "--output-dir",
         os.path.join(w, "out")])
    got = np.load(os.path.join(w, "out", "logits.npy"))
    import onnx as onnx_lib
    import onnxruntime
    from onnx import numpy_helper
    for init in model.graph.initializer:
        init.CopyFrom(numpy_helper.from_array(
            np.ascontiguousarray(tensors[init.name][1]), init.name))
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, {"input_ids": ids})[0]
    report(np.allclose(got, want, rtol=1e-4, atol=1e-5),
           "export: --params inference equals onnxruntime on the exported "
           f"weights (max diff {np.max(np.abs(got - want)):.1e})")
    del onnx_lib
    print(f"{report.failures} failure(s)")
    sys.exit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
