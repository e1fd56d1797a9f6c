"""Compiles what the GPU check runs (scripts/gpu-check.sh), on this machine,
into staged cases (scripts/gpu/cases.py):

    stage.py OUT [--target cuda] [--loomc loomc] [--loomrun loomrun]
             [--jobs N] [--node-filter S] [--quick]

- OUT/node/NAME: every ONNX node test that passes on the CPU
  (test/Target/CPU/node-tests, minus its expectations file), compiled for
  the target, with its inputs and expected outputs;
- OUT/models/NAME: the generated MLP, GPT, BERT-style and CNN models with
  onnxruntime's outputs on seeded inputs (rtol 1e-3);
- OUT/train/gpt_fp32: 20 AdamW steps of the generated GPT, with the losses
  of the same artifact compiled for the CPU and run here (the reference);
- OUT/train/chargpt: the README's character GPT (300 steps), with the CPU
  losses;
- OUT/bench: bench/gpu_train_step.py's artifact and PyTorch weights.

`--target cpu` stages the same cases for the CPU: check.py then runs them
here (the dry run of the whole check).
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "Target", "CPU", "node-tests"))
sys.path.insert(0, os.path.join(ROOT, "test", "utils"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402
import run_node_tests as cpu_node_tests  # noqa: E402
from loom.testing import onnx_models  # noqa: E402
from node_tests import load_expectations, split_node_tests  # noqa: E402

GPT_TRAIN = dict(layers=4, hidden=64, heads=4, vocab=128, seq=32)
TRAIN_FLAGS = ["--train", "--loss=cross_entropy", "--logits=logits",
               "--optimizer=adamw", "--lr", "1e-3"]


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"stage: {' '.join(cmd)} failed:\n{result.stderr}")
    return result.stdout


def stage_node_test(item, args, folder):
    """Compiles one node test into `folder`; returns None or why not."""
    name, directory = item
    model = onnx.load(os.path.join(directory, "model.onnx"))
    data_dir = os.path.join(directory, "test_data_set_0")
    initializers = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in initializers]
    inputs, protos = {}, {}
    for i, info in enumerate(graph_inputs):
        protos[info.name] = cpu_node_tests.read_pb(
            os.path.join(data_dir, f"input_{i}.pb"))
        inputs[info.name] = numpy_helper.to_array(protos[info.name])
    expected = [cpu_node_tests.read_pb(os.path.join(data_dir, f"output_{i}.pb"))
                for i in range(len(model.graph.output))]
    for node in model.graph.node:
        for position in cpu_node_tests.CONSTANT_OPERANDS.get(node.op_type, ()):
            if position < len(node.input) and node.input[position] in inputs:
                value = inputs.pop(node.input[position])
                model.graph.initializer.append(
                    numpy_helper.from_array(value, node.input[position]))
    os.makedirs(os.path.join(folder, "in"), exist_ok=True)
    os.makedirs(os.path.join(folder, "want"), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        cmd = [args.loomc, path, f"--target={args.target}", "-o",
               os.path.join(folder, "model.loom")]
        for key, value in inputs.items():
            if value.ndim:
                cmd += ["--input-shape",
                        f"{key}={'x'.join(map(str, value.shape))}"]
        result = subprocess.run(cmd, capture_output=True, text=True,
                                timeout=300)
        if result.returncode != 0:
            return result.stderr.strip().splitlines()[0] \
                if result.stderr.strip() else "loomc failed"
    with open(os.path.join(folder, "model.loom", "manifest.json")) as f:
        manifest = json.load(f)
    case = {"kind": "run", "artifact": "model.loom", "inputs": [],
            "outputs": [], "rtol": cpu_node_tests.RTOL,
            "atol": cpu_node_tests.ATOL}
    for spec in manifest["inputs"]:
        value = inputs[spec["name"]]
        if spec["dtype"] == "bfloat16":
            value = value.view(np.uint16).view("V2")
        elif spec["dtype"] in cpu_node_tests.FLOAT8:
            value = cpu_node_tests.float8_bits(protos[spec["name"]]).view("V1")
        elif spec["dtype"] in ("int4", "uint4"):
            value = value.astype(np.int8 if spec["dtype"] == "int4"
                                 else np.uint8)
        rel = os.path.join("in", cases.safe_name(spec["name"]) + ".npy")
        np.save(os.path.join(folder, rel), value)
        case["inputs"].append([spec["name"], rel])
    for i, (spec, proto) in enumerate(zip(manifest["outputs"], expected)):
        dtype, how = spec["dtype"], "plain"
        if dtype in cpu_node_tests.FLOAT8:
            want = cpu_node_tests.float8_bits(proto).view(np.uint8)
            table = cpu_node_tests.decode_float8(
                np.arange(256, dtype=np.uint8), dtype).astype(np.float32)
            np.save(os.path.join(folder, "want", "table.npy"), table)
            how = "table:want/table.npy"
        else:
            want = numpy_helper.to_array(proto)
            if dtype == "bfloat16":
                how = "bfloat16"
            elif dtype in ("int4", "uint4"):
                want = want.astype(np.float32)
                how = "int4"
        rel = os.path.join("want", f"{i}.npy")
        np.save(os.path.join(folder, rel), want)
        case["outputs"].append([spec["name"], rel, how])
    cases.write_case(folder, case)
    return None


def stage_node_tests(out, args):
    covered, _ = split_node_tests(args.loomc, args.node_filter)
    failing = load_expectations(os.path.join(
        ROOT, "test", "Target", "CPU", "node-tests", "run-expectations.txt"))
    items = [item for item in covered if item[0] not in failing]
    if args.quick:
        items = items[::10]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        problems = list(pool.map(
            lambda item: stage_node_test(
                item, args, os.path.join(out, "node", item[0])), items))
    failed = {item[0]: p for item, p in zip(items, problems) if p}
    for name in failed:
        shutil.rmtree(os.path.join(out, "node", name), ignore_errors=True)
    with open(os.path.join(out, "node", "index.json"), "w") as f:
        json.dump({"cpu_passing": len(items), "compiled": len(items) -
                   len(failed), "not_compiled": failed}, f, indent=1)
    print(f"node tests: {len(items)} pass on the CPU, "
          f"{len(items) - len(failed)} compiled for {args.target}")
    for name, why in sorted(failed.items()):
        print(f"  not compiled: {name}: {why}")


def stage_models(out, args):
    import onnxruntime as ort
    for name in ("mlp", "gpt", "bert", "cnn"):
        folder = os.path.join(out, "models", name)
        os.makedirs(os.path.join(folder, "in"), exist_ok=True)
        os.makedirs(os.path.join(folder, "want"), exist_ok=True)
        model = onnx_models.MODELS[name]()
        path = os.path.join(folder, name + ".onnx")
        onnx_models.save(model, path)
        rng = np.random.default_rng(0)
        feeds, case = {}, {"kind": "run", "artifact": "model.loom",
                           "inputs": [], "outputs": [], "rtol": 1e-3,
                           "atol": 1e-5}
        cmd = [args.loomc, path, f"--target={args.target}", "-o",
               os.path.join(folder, "model.loom")]
        for info in model.graph.input:
            dims = [d.dim_value if d.dim_value > 0 else 3
                    for d in info.type.tensor_type.shape.dim]
            if info.type.tensor_type.elem_type == onnx.TensorProto.INT64:
                value = rng.integers(0, 64, dims).astype(np.int64)
            else:
                value = rng.standard_normal(dims).astype(np.float32)
            feeds[info.name] = value
            rel = os.path.join("in", cases.safe_name(info.name) + ".npy")
            np.save(os.path.join(folder, rel), value)
            case["inputs"].append([info.name, rel])
            cmd += ["--input-shape", f"{info.name}={'x'.join(map(str, dims))}"]
        run(cmd)
        session = ort.InferenceSession(path)
        for i, (info, want) in enumerate(zip(session.get_outputs(),
                                             session.run(None, feeds))):
            rel = os.path.join("want", f"{i}.npy")
            np.save(os.path.join(folder, rel), want)
            case["outputs"].append([info.name, rel, "plain"])
        os.remove(path)
        cases.write_case(folder, case)
        print(f"model {name}: compiled for {args.target}")


def reference_losses(args, onnx_path, shape, flags, data_args, steps, folder):
    """The losses of the same training step compiled for the CPU, run here."""
    with tempfile.TemporaryDirectory() as tmp:
        art = os.path.join(tmp, "cpu.loom")
        run([args.loomc, onnx_path, "--input-shape", shape, *flags,
             "--target=cpu", "-o", art])
        metrics = os.path.join(tmp, "m.jsonl")
        run([args.loomrun, art, "--train", "--steps", str(steps),
             "--metrics", metrics, "--threads", "2",
             *cases.expand(folder, data_args)])
        return [r["loss"] for r in cases.read_metrics(metrics) if "loss" in r]


def stage_train(out, args):
    # The generated GPT, 20 steps, fp32.
    folder = os.path.join(out, "train", "gpt_fp32")
    os.makedirs(folder, exist_ok=True)
    cfg = dict(GPT_TRAIN, seed=0, train_init=1)
    onnx_path = os.path.join(folder, "gpt.onnx")
    onnx_models.save(onnx_models.gpt(**cfg), onnx_path)
    np.random.default_rng(0).integers(0, cfg["vocab"], 50000).astype(
        "<u2").tofile(os.path.join(folder, "tokens.bin"))
    shape = f"input_ids=8x{cfg['seq']}"
    data_args = ["--data", "input_ids=@tokens.bin", "--seed", "0"]
    run([args.loomc, onnx_path, "--input-shape", shape, *TRAIN_FLAGS,
         f"--target={args.target}", "-o", os.path.join(folder, "train.loom")])
    losses = reference_losses(args, onnx_path, shape, TRAIN_FLAGS, data_args,
                              20, folder)
    os.remove(onnx_path)
    cases.write_case(folder, {"kind": "train", "artifact": "train.loom",
                              "steps": 20, "args": data_args,
                              "reference_losses": losses, "rtol": 1e-4})
    print(f"train gpt_fp32: 20 CPU losses {losses[0]:.4f} .. {losses[-1]:.4f}")

    # The README's character GPT (scripts/run-example.sh), on one device.
    folder = os.path.join(out, "train", "chargpt")
    os.makedirs(folder, exist_ok=True)
    subprocess.run([sys.executable, "-m", "loom.testing.chardata", folder],
                   check=True, capture_output=True,
                   env=dict(os.environ, PYTHONPATH=os.path.join(ROOT,
                                                                "python")))
    with open(os.path.join(folder, "vocab.json")) as f:
        vocab = json.load(f)["size"]
    onnx_path = os.path.join(folder, "gpt.onnx")
    onnx_models.save(onnx_models.gpt(layers=2, hidden=64, heads=4,
                                     vocab=vocab, seq=64, seed=0,
                                     train_init=1), onnx_path)
    flags = ["--train", "--loss=cross_entropy", "--logits=logits",
             "--optimizer=adamw", "--lr", "3e-3", "--weight-decay", "0.01",
             "--clip-grad-norm", "1.0", "--lr-schedule=cosine", "--warmup",
             "20", "--decay-steps", "280", "--min-lr", "3e-4"]
    steps = 60 if args.quick else 300
    data_args = ["--data", "input_ids=@tokens.bin", "--seed", "0"]
    run([args.loomc, onnx_path, "--input-shape", "input_ids=32x64", *flags,
         f"--target={args.target}", "-o", os.path.join(folder, "train.loom")])
    losses = reference_losses(args, onnx_path, "input_ids=32x64", flags,
                              data_args, steps, folder)
    os.remove(onnx_path)
    cases.write_case(folder, {"kind": "train", "artifact": "train.loom",
                              "steps": steps, "args": data_args,
                              "reference_losses": losses, "rtol": 5e-2})
    print(f"train chargpt: {steps} CPU losses {losses[0]:.3f} .. "
          f"{losses[-1]:.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--target", default="cuda")
    parser.add_argument("--loomc", default="loomc")
    parser.add_argument("--loomrun", default="loomrun")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--node-filter", default="")
    parser.add_argument("--quick", action="store_true",
                        help="every tenth node test, a short chargpt run")
    args = parser.parse_args()
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(os.path.join(args.out, "node"))
    with open(os.path.join(args.out, "target.json"), "w") as f:
        json.dump({"target": args.target}, f)
    stage_node_tests(args.out, args)
    stage_models(args.out, args)
    stage_train(args.out, args)
    bench = os.path.join(ROOT, "bench", "gpu_train_step.py")
    run([sys.executable, bench, "prepare", os.path.join(args.out, "bench"),
         "--loomc", args.loomc, "--target", args.target])
    print(f"staged in {args.out}")


if __name__ == "__main__":
    main()
