"""read_safetensors.py FILE [--save DIR] [--print]: a minimal, independent
safetensors reader (numpy only) for the runtime's tests. Checks the layout
the format requires (8-byte little-endian header size, a JSON header whose
tensors' data_offsets tile the data exactly, in order), then prints one
line per tensor: "NAME DTYPE SHAPE" (and its values with --print), and the
metadata as "__metadata__ KEY=VALUE". --save writes DIR/NAME.npy per tensor
(':' and '/' in names become '_')."""
import argparse
import json
import os
import struct
import sys

import numpy as np

DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "i1", "I16": "<i2",
          "I32": "<i4", "I64": "<i8", "U8": "u1", "U16": "<u2", "U32": "<u4",
          "U64": "<u8", "BOOL": "?", "BF16": "<u2", "F8_E4M3": "u1",
          "F8_E5M2": "u1"}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        sys.exit(f"{path}: too short")
    (size,) = struct.unpack("<Q", data[:8])
    if 8 + size > len(data):
        sys.exit(f"{path}: header size {size} exceeds the file")
    header = json.loads(data[8:8 + size])
    body = data[8 + size:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    end = 0
    for name, spec in sorted(header.items(),
                             key=lambda item: item[1]["data_offsets"]):
        begin, stop = spec["data_offsets"]
        if begin != end:
            sys.exit(f"{path}: tensor {name} starts at {begin}, not {end}")
        dtype = np.dtype(DTYPES[spec["dtype"]])
        count = int(np.prod(spec["shape"], dtype=np.int64))
        if stop - begin != count * dtype.itemsize:
            sys.exit(f"{path}: tensor {name} has the wrong size")
        tensors[name] = (spec["dtype"], np.frombuffer(
            body[begin:stop], dtype).reshape(spec["shape"]))
        end = stop
    if end != len(body):
        sys.exit(f"{path}: {len(body) - end} bytes after the last tensor")
    return tensors, metadata


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--save")
    parser.add_argument("--print", action="store_true")
    args = parser.parse_args()
    tensors, metadata = read(args.file)
    for name in sorted(tensors):
        dtype, array = tensors[name]
        line = f"{name} {dtype} {list(array.shape)}"
        if args.print:
            line += " " + " ".join(repr(float(v)) for v in array.flat)
        print(line)
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            safe = name.replace(":", "_").replace("/", "_")
            np.save(os.path.join(args.save, safe + ".npy"), array)
    for key in sorted(metadata):
        print(f"__metadata__ {key}={metadata[key]}")


if __name__ == "__main__":
    main()
