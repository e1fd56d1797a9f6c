"""make_artifact.py --program SO OUT.loom [options]: writes a hand-made Loom
artifact around the test programs of test/Unit/Runtime/TestProgram.c, so that
loomrun can be tested without the compiler.

Kinds (the entry points of TestProgram.c):
  affine  p float32[3] (= 0.5, 2, -1); x float32[2,3] -> y float32[2,3]
          (= x * p + 1), count int64[] (positive elements of y)
  big     as affine, but the second output is big int64[256] = 0..255
  scalar  no parameters; s float64[], e float32[0] -> r float64[] (= 2 s),
          empty int32[0,3]
  dtypes  seven inputs of every small dtype, copied to seven outputs whose
          names need sanitizing (and two of which collide once sanitized)

Edits, applied in order to the manifest:
  --set PATH=JSON   set a key; PATH is dotted, list indices are numbers
                    (e.g. inputs.0.dtype='"float8"', runtime_abi=2)
  --delete PATH     remove a key
  --raw-manifest T  write T as manifest.json verbatim instead
Files: --no-program, --program-text T (program.so holds T),
       --no-parameters, --parameter-bytes N (truncate or pad parameters.bin).
The manifest's "files" records the size and CRC-32 of the files as written
(--no-files leaves it out, as artifacts before format_version 5 did); then
  --truncate FILE=N  cuts FILE to N bytes
  --flip FILE=OFF    flips the bits of FILE's byte at offset OFF
damage them behind the manifest's back.
"""
import argparse
import json
import os
import shutil
import struct
import zlib


def tensor(name, dtype, shape, global_shape=None, sharding=None):
    """A manifest tensor entry (global_shape and sharding when given)."""
    spec = {"name": name, "dtype": dtype, "shape": shape}
    if global_shape is not None:
        spec["global_shape"] = global_shape
    if sharding is not None:
        spec["sharding"] = sharding
    return spec


def manifest_for(kind):
    manifest = {
        "format": "loom-artifact",
        "format_version": 1,
        "runtime_abi": 1,
        "producer": "make_artifact.py",
        "model": kind + ".onnx",
        "target": {"triple": "x86_64-unknown-linux-gnu", "cpu": "x86-64",
                   "features": ["sse2"]},
        "library": "program.so",
        "entry": "loom_entry",
        "parameter_file": "parameters.bin",
        "parameters": [dict(tensor("p", "float32", [3]), offset=0,
                            nbytes=12)],
        "inputs": [tensor("x", "float32", [2, 3])],
        "outputs": [tensor("y", "float32", [2, 3]),
                    tensor("count", "int64", [])],
    }
    if kind == "big":
        manifest["entry"] = "loom_entry_big"
        manifest["outputs"][1] = tensor("big", "int64", [256])
    elif kind == "scalar":
        manifest["entry"] = "loom_entry_scalar"
        del manifest["parameter_file"]
        manifest["parameters"] = []
        manifest["inputs"] = [tensor("s", "float64", []),
                              tensor("e", "float32", [0])]
        manifest["outputs"] = [tensor("r", "float64", []),
                               tensor("empty", "int32", [0, 3])]
    elif kind == "dtypes":
        manifest["entry"] = "loom_entry_dtypes"
        del manifest["parameter_file"]
        manifest["parameters"] = []
        specs = [("b", "bool", [4]), ("i8", "int8", [4]),
                 ("u8", "uint8", [4]), ("i16", "int16", [2]),
                 ("i32", "int32", [2]), ("f16", "float16", [2]),
                 ("bf16", "bfloat16", [2])]
        manifest["inputs"] = [tensor(n, d, s) for n, d, s in specs]
        # Output names exercise loomrun's file-name sanitizing; "u8/out" and
        # "u8_out" collide once sanitized.
        names = ["b.out", "i8 out", "u8/out", "i16:out", "u8_out",
                 "f16\u00e9", "../bf16"]
        manifest["outputs"] = [tensor(name, d, s)
                               for name, (_, d, s) in zip(names, specs)]
    return manifest


def file_entry(path):
    """The manifest's "files" entry of the file at `path`."""
    with open(path, "rb") as f:
        data = f.read()
    return {"bytes": len(data), "crc32": zlib.crc32(data)}


def record_files(out, manifest, names):
    """Adds "files" for those of `names` that exist in `out`."""
    manifest["files"] = {name: file_entry(os.path.join(out, name))
                         for name in names
                         if os.path.isfile(os.path.join(out, name))}


def damage(out, truncations, flips):
    """The --truncate FILE=N and --flip FILE=OFFSET edits."""
    for spec in truncations:
        name, _, size = spec.partition("=")
        with open(os.path.join(out, name), "r+b") as f:
            f.truncate(int(size))
    for spec in flips:
        name, _, offset = spec.partition("=")
        with open(os.path.join(out, name), "r+b") as f:
            f.seek(int(offset))
            byte = f.read(1)
            f.seek(int(offset))
            f.write(bytes([byte[0] ^ 0xff]))


def edit(manifest, path, value=None, delete=False):
    keys = path.split(".")
    node = manifest
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    last = int(keys[-1]) if isinstance(node, list) else keys[-1]
    if delete:
        del node[last]
    else:
        node[last] = value


def apply_edits(manifest, assignments, deletions):
    """The --set PATH=JSON and --delete PATH edits, in that order."""
    for assignment in assignments:
        path, _, value = assignment.partition("=")
        edit(manifest, path, json.loads(value))
    for path in deletions:
        edit(manifest, path, delete=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("out")
    parser.add_argument("--kind", default="affine",
                        choices=["affine", "big", "scalar", "dtypes"])
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--delete", action="append", default=[])
    parser.add_argument("--raw-manifest")
    parser.add_argument("--no-program", action="store_true")
    parser.add_argument("--program-text")
    parser.add_argument("--no-parameters", action="store_true")
    parser.add_argument("--parameter-bytes", type=int)
    parser.add_argument("--no-files", action="store_true")
    parser.add_argument("--truncate", action="append", default=[])
    parser.add_argument("--flip", action="append", default=[])
    args = parser.parse_args()

    manifest = manifest_for(args.kind)

    os.makedirs(args.out, exist_ok=True)
    if args.program_text is not None:
        with open(os.path.join(args.out, "program.so"), "w") as f:
            f.write(args.program_text)
    elif not args.no_program:
        shutil.copyfile(args.program, os.path.join(args.out, "program.so"))
    if args.kind in ("affine", "big") and not args.no_parameters:
        data = struct.pack("<3f", 0.5, 2.0, -1.0)
        if args.parameter_bytes is not None:
            data = data[:args.parameter_bytes].ljust(args.parameter_bytes,
                                                     b"\0")
        with open(os.path.join(args.out, "parameters.bin"), "wb") as f:
            f.write(data)
    if not args.no_files:
        record_files(args.out, manifest, ["program.so", "parameters.bin"])
    apply_edits(manifest, args.set, args.delete)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        if args.raw_manifest is not None:
            f.write(args.raw_manifest)
        else:
            json.dump(manifest, f, indent=2)
            f.write("\n")
    damage(args.out, args.truncate, args.flip)


if __name__ == "__main__":
    main()
