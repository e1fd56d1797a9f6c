"""make_train_artifact.py --program SO OUT.loom [options]: writes a hand-made
training artifact (format_version 3, docs/Training.md) around the programs
of test/Unit/Runtime/TrainProgram.c, and optionally its training data, so
that `loomrun --train` can be tested without the compiler.

Kinds (entry points of TrainProgram.c; mesh dp=D, group 0 = [dp]):
  train   linear regression with AdamW, optimizer state of w sharded on dp
  tokens  checks token-file batches (labels = the next tokens)
  predict inference with the parameters of "train" (w, b): y = x . w + b,
          x [8, 4], no mesh and no training object

Options:
  --mesh dp=D        the mesh (default dp=1)
  --batch B          the global batch (default 8)
  --seq T            tokens per example (tokens kind; default 6)
  --lr X, --schedule constant|cosine, --warmup N, --decay-steps N
  --data DIR         train: write DIR/x.npy [N, 4] and DIR/y.npy [N] with
                     N = --examples (default 40); tokens: DIR/tokens.bin
                     (--num-tokens uint16 tokens, default 500)
  --set PATH=JSON, --delete PATH  manifest edits (as make_artifact.py)
The manifest lists the size and CRC-32 of program.so and parameters.bin.
"""
import argparse
import json
import os
import shutil

import numpy as np

from make_artifact import apply_edits, record_files, tensor


def build(args, D):
    B = args.batch
    manifest = {
        "format": "loom-artifact",
        "format_version": 3,
        "runtime_abi": 3,
        "producer": "make_train_artifact.py",
        "model": args.kind + ".onnx",
        "target": {"triple": "x86_64-unknown-linux-gnu", "cpu": "x86-64"},
        "library": "program.so",
        "entry": "loom_entry_" + args.kind,
        "mesh": {"axes": [{"name": "dp", "size": D}]},
        "groups": [["dp"]],
        "parameter_file": "parameters.bin",
    }
    rows = [["dp"], []]
    schedule = {"kind": args.schedule, "warmup": args.warmup,
                "decay_steps": args.decay_steps, "min_lr": 0.0}
    scalar = lambda name: tensor(name, "float32", [])
    if args.kind == "train":
        params = [
            ("cfg", "int64", [3], None, None,
             np.array([4, B // D, D], np.int64), None),
            ("w", "float32", [4], None, None,
             np.array([0.5, -0.25, 0.0, 1.0], np.float32), "w.new"),
            ("b", "float32", [1], None, None, np.zeros(1, np.float32),
             "b.new"),
            ("adamw.m:w", "float32", [4 // D], [4], [["dp"]], None,
             "m_w.new"),
            ("adamw.v:w", "float32", [4 // D], [4], [["dp"]], None,
             "v_w.new"),
            ("adamw.m:b", "float32", [1], None, None, None, "m_b.new"),
            ("adamw.v:b", "float32", [1], None, None, None, "v_b.new"),
        ]
        manifest["inputs"] = [
            tensor("x", "float32", [B // D, 4], [B, 4], rows),
            tensor("y", "float32", [B // D], [B], [["dp"]]),
            scalar("train.lr"), scalar("train.bias_correction1"),
            scalar("train.bias_correction2"), scalar("train.loss_scale")]
        manifest["outputs"] = [
            scalar("loss"), scalar("train.grad_norm"),
            tensor("w.new", "float32", [4]), tensor("b.new", "float32", [1]),
            tensor("m_w.new", "float32", [4 // D], [4], [["dp"]]),
            tensor("v_w.new", "float32", [4 // D], [4], [["dp"]]),
            tensor("m_b.new", "float32", [1]),
            tensor("v_b.new", "float32", [1])]
        manifest["collectives"] = [
            {"kind": "all_gather", "group": 0, "bytes": (B // D) * 24},
            {"kind": "all_gather", "group": 0, "bytes": (4 // D) * 4}]
        manifest["training"] = {
            "loss": "loss", "grad_norm": "train.grad_norm",
            "optimizer": {"kind": "adamw", "lr": args.lr, "beta1": 0.9,
                          "beta2": 0.999, "eps": 1e-08, "weight_decay": 0.0,
                          "momentum": 0.0},
            "lr_schedule": schedule, "grad_accum": 1,
            "clip_grad_norm": None, "zero": 1,
            "scalars": {"train.lr": "lr",
                        "train.bias_correction1": "bias_correction1",
                        "train.bias_correction2": "bias_correction2",
                        "train.loss_scale": "loss_scale"},
            "data_inputs": ["x", "y"], "labels": None, "batch": B,
            "tokens_per_example": None, "flops_per_step": 20.0 * B}
    elif args.kind == "predict":
        del manifest["mesh"], manifest["groups"]
        params = [
            ("w", "float32", [4], None, None,
             np.array([0.5, -0.25, 0.0, 1.0], np.float32), None),
            ("b", "float32", [1], None, None, np.zeros(1, np.float32), None)]
        manifest["inputs"] = [tensor("x", "float32", [8, 4])]
        manifest["outputs"] = [tensor("y", "float32", [8])]
    else:
        T = args.seq
        params = [
            ("cfg", "int64", [2], None, None,
             np.array([B // D, T], np.int64), None),
            ("p", "float32", [1], None, None, np.zeros(1, np.float32),
             "p.new")]
        manifest["inputs"] = [
            tensor("ids", "int32", [B // D, T], [B, T], rows),
            tensor("labels", "int32", [B // D, T], [B, T], rows),
            scalar("train.lr")]
        manifest["outputs"] = [scalar("loss"), scalar("train.grad_norm"),
                               tensor("p.new", "float32", [1])]
        manifest["collectives"] = [
            {"kind": "all_reduce", "group": 0, "bytes": 16},
            {"kind": "all_reduce", "group": 0, "bytes": 8}]
        manifest["training"] = {
            "loss": "loss", "grad_norm": "train.grad_norm",
            "optimizer": {"kind": "sgd", "lr": args.lr},
            "lr_schedule": schedule,
            "scalars": {"train.lr": "lr"},
            "data_inputs": ["ids", "labels"], "labels": "labels",
            "batch": B, "tokens_per_example": T}
    return manifest, params


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("out")
    parser.add_argument("--kind", default="train", choices=["train", "tokens", "predict"])
    parser.add_argument("--mesh", default="dp=1")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=6)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--schedule", default="constant")
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--decay-steps", type=int, default=100)
    parser.add_argument("--data")
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--num-tokens", type=int, default=500)
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--delete", action="append", default=[])
    args = parser.parse_args()

    D = int(args.mesh.split("=")[1])
    manifest, params = build(args, D)
    blob = b""
    manifest["parameters"] = []
    for name, dtype, shape, global_shape, sharding, array, update in params:
        spec = tensor(name, dtype, shape, global_shape, sharding)
        if array is None:
            spec["init"] = "zeros"
        else:
            offset = (len(blob) + 63) // 64 * 64
            blob = blob.ljust(offset, b"\0") + array.tobytes()
            spec.update(offset=offset, nbytes=array.nbytes)
        if update:
            spec["update"] = update
        manifest["parameters"].append(spec)

    os.makedirs(args.out, exist_ok=True)
    shutil.copyfile(args.program, os.path.join(args.out, "program.so"))
    with open(os.path.join(args.out, "parameters.bin"), "wb") as f:
        f.write(blob)
    record_files(args.out, manifest, ["program.so", "parameters.bin"])
    apply_edits(manifest, args.set, args.delete)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    if args.data:
        os.makedirs(args.data, exist_ok=True)
        rng = np.random.default_rng(3)
        if args.kind in ("train", "predict"):
            x = rng.standard_normal((args.examples, 4)).astype(np.float32)
            y = (x @ np.array([2.0, -1.0, 0.5, 3.0], np.float32)
                 + np.float32(0.7)).astype(np.float32)
            np.save(os.path.join(args.data, "x.npy"), x)
            np.save(os.path.join(args.data, "y.npy"), y)
        else:
            tokens = rng.integers(0, 1000, args.num_tokens).astype("<u2")
            tokens.tofile(os.path.join(args.data, "tokens.bin"))


if __name__ == "__main__":
    main()
