"""make_dist_artifact.py --program SO OUT.loom [options]: writes a hand-made
distributed Loom artifact (format_version 2, runtime ABI 3) around the
programs of test/Unit/Runtime/TestCollectives.c, plus its inputs and the
outputs numpy expects, so that multi-rank runs can be tested without the
compiler.

Kinds (the entry points of TestCollectives.c; mesh (dp, tp), groups
[tp], [dp], [dp, tp]):
  dist       a tensor-parallel MLP using every collective
  dtypes     reductions of every dtype over all ranks, an 8-bit gather
  allreduce  y = sum over [tp] of x, float32[--count] (replicated)

Options:
  --mesh dp=D,tp=T  the mesh (default dp=2,tp=2)
  --inputs DIR      write the global inputs to DIR/<name>.npy
  --expected DIR    write the expected global outputs to DIR/<name>.npy
  --count N         elements of the allreduce kind (default 16)
  --set PATH=JSON, --delete PATH  manifest edits (as make_artifact.py)
The manifest lists the size and CRC-32 of program.so and parameters.bin.
"""
import argparse
import json
import os
import shutil

import numpy as np

from make_artifact import apply_edits, record_files, tensor


def collective(kind, group, nbytes):
    return {"kind": kind, "group": group, "bytes": nbytes}


def bf16(values):
    """float32 values as bfloat16 bits (exact for the small values used)."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(
        np.uint16)


def build(kind, D, T, count, rng):
    """Returns manifest, parameter arrays, inputs and expected outputs."""
    manifest = {
        "format": "loom-artifact",
        "format_version": 2,
        "runtime_abi": 3,
        "producer": "make_dist_artifact.py",
        "model": kind + ".onnx",
        "target": {"triple": "x86_64-unknown-linux-gnu", "cpu": "x86-64"},
        "library": "program.so",
        "entry": "loom_entry_" + kind,
        "mesh": {"axes": [{"name": "dp", "size": D},
                          {"name": "tp", "size": T}]},
        "groups": [["tp"], ["dp"], ["dp", "tp"]],
    }
    params, inputs, expected = [], {}, {}
    N = D * T
    if kind == "dist":
        assert 4 % T == 0, "the dist program needs tp to divide 4"
        ints = lambda shape: rng.integers(-3, 4, shape).astype(np.float32)
        x, w1, w2 = ints((4 * D, 4)), ints((4, 3 * T)), ints((3 * T, 4 * T))
        params = [("cfg", "int64", [2], None, None,
                   np.array([D, T], np.int64)),
                  ("w1", "float32", [4, 3], [4, 3 * T], [[], ["tp"]], w1),
                  ("w2", "float32", [3, 4 * T], [3 * T, 4 * T], [["tp"], []],
                   w2)]
        inputs["x"] = x
        manifest["inputs"] = [tensor("x", "float32", [4, 4], [4 * D, 4],
                                     [["dp"], []])]
        h = x @ w1
        z = h @ w2
        zshape = [4 * D, 4 * T]
        manifest["outputs"] = [
            tensor("h", "float32", [4, 3 * T], [4 * D, 3 * T], [["dp"], []]),
            tensor("z", "float32", [4, 4 * T], zshape, [["dp"], []]),
            tensor("zs", "float32", [4, 4], zshape, [["dp"], ["tp"]]),
            tensor("za", "float32", [4 // T, 4 * T], zshape,
                   [["dp", "tp"], []]),
            tensor("zt", "float32", [4, 4], zshape, [["dp"], ["tp"]]),
            tensor("xb", "float32", [4, 4], [4 * D, 4], [["dp"], []]),
            tensor("idx", "int64", [1, 1], [D, T], [["dp"], ["tp"]]),
            tensor("red", "int32", [2]),
            tensor("fm", "float64", [1]),
        ]
        d, t = np.meshgrid(np.arange(D), np.arange(T), indexing="ij")
        expected = {"h": h, "z": z, "zs": z, "za": z, "zt": z,
                    "xb": np.tile(x[:4], (D, 1)),
                    "idx": (100 * d + 10 * t + d * T + t).astype(np.int64),
                    "red": np.array([(N - 1) // 2, N - 1], np.int32),
                    "fm": np.array([N / 2], np.float64)}
        manifest["collectives"] = [
            collective("all_gather", 0, 4 * 3 * 4),
            collective("all_reduce", 0, 64 * T),
            collective("reduce_scatter", 0, 64 * T),
            collective("all_to_all", 0, 64),
            collective("take_shard", 0, 64 * T),
            collective("broadcast", 1, 64),
            collective("all_reduce", 2, 4),
            collective("all_reduce", 2, 4),
            collective("all_reduce", 2, 8),
        ]
    elif kind == "dtypes":
        rows = [["dp", "tp"], []]
        f16 = rng.integers(-4, 5, (N, 4)).astype(np.float16)
        bfv = rng.integers(-8, 9, (N, 4)).astype(np.float32)
        i8 = rng.integers(-20, 21, (N, 4)).astype(np.int8)
        u16 = rng.integers(0, 65536, (N, 4)).astype(np.uint16)
        u64 = (rng.integers(0, 2**20, (N, 4)).astype(np.uint64)
               + np.uint64(2**60))
        b = rng.integers(0, 2, (N, 4)).astype(bool)
        b[0] = [True, True, False, False]
        if N > 1:
            b[1] = [True, False, True, False]
        f8 = rng.integers(0, 256, (N, 4)).astype(np.uint8)
        inputs = {"f16": f16, "bf16": bf16(bfv).view("V2"), "i8": i8,
                  "u16": u16, "u64": u64, "b": b, "f8": f8}
        dtypes = {"f16": "float16", "bf16": "bfloat16", "i8": "int8",
                  "u16": "uint16", "u64": "uint64", "b": "bool",
                  "f8": "float8e4m3fn"}
        manifest["inputs"] = [tensor(n, dt, [1, 4], [N, 4], rows)
                              for n, dt in dtypes.items()]
        manifest["outputs"] = [
            tensor("f16_sum", "float16", [4]),
            tensor("bf16_max", "bfloat16", [4]),
            tensor("i8_sum", "int8", [4]),
            tensor("u16_min", "uint16", [4]),
            tensor("u64_sum", "uint64", [4]),
            tensor("b_sum", "bool", [4]),
            tensor("b_mean", "bool", [4]),
            tensor("f8_all", "float8e4m3fn", [N, 4]),
        ]
        expected = {"f16_sum": f16.sum(0, dtype=np.float16),
                    "bf16_max": bf16(bfv.max(0)).view("V2"),
                    "i8_sum": i8.sum(0, dtype=np.int8),
                    "u16_min": u16.min(0),
                    "u64_sum": u64.sum(0, dtype=np.uint64),
                    "b_sum": b.any(0), "b_mean": b.all(0),
                    "f8_all": f8.view("V1")}
        manifest["collectives"] = (
            [collective("all_reduce", 2, n) for n in (8, 8, 4, 8, 32, 4, 4)]
            + [collective("all_gather", 2, 4)])
    elif kind == "allreduce":
        x = rng.standard_normal(count).astype(np.float32)
        params = [("cfg", "int64", [1], None, None,
                   np.array([count], np.int64))]
        inputs["x"] = x
        manifest["inputs"] = [tensor("x", "float32", [count])]
        manifest["outputs"] = [tensor("y", "float32", [count])]
        expected = {"y": x * T}
        manifest["collectives"] = [collective("all_reduce", 0, 4 * count)]
    return manifest, params, inputs, expected


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("out")
    parser.add_argument("--kind", default="dist",
                        choices=["dist", "dtypes", "allreduce"])
    parser.add_argument("--mesh", default="dp=2,tp=2")
    parser.add_argument("--count", type=int, default=16)
    parser.add_argument("--inputs")
    parser.add_argument("--expected")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--delete", action="append", default=[])
    args = parser.parse_args()

    sizes = dict(item.split("=") for item in args.mesh.split(","))
    D, T = int(sizes["dp"]), int(sizes["tp"])
    rng = np.random.default_rng(args.seed)
    manifest, params, inputs, expected = build(args.kind, D, T, args.count,
                                               rng)
    if params:
        manifest["parameter_file"] = "parameters.bin"
        blob = b""
        manifest["parameters"] = []
        for name, dtype, shape, global_shape, sharding, array in params:
            offset = (len(blob) + 63) // 64 * 64
            blob = blob.ljust(offset, b"\0") + array.tobytes()
            spec = tensor(name, dtype, shape, global_shape, sharding)
            spec.update(offset=offset, nbytes=array.nbytes)
            manifest["parameters"].append(spec)

    os.makedirs(args.out, exist_ok=True)
    shutil.copyfile(args.program, os.path.join(args.out, "program.so"))
    if params:
        with open(os.path.join(args.out, "parameters.bin"), "wb") as f:
            f.write(blob)
    record_files(args.out, manifest, ["program.so", "parameters.bin"])
    apply_edits(manifest, args.set, args.delete)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    for directory, arrays in ((args.inputs, inputs),
                              (args.expected, expected)):
        if directory:
            os.makedirs(directory, exist_ok=True)
            for name, array in arrays.items():
                np.save(os.path.join(directory, name + ".npy"), array)


if __name__ == "__main__":
    main()
