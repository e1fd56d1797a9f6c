"""dtype_inputs.py DIR: writes the inputs of the "dtypes" test artifact to
DIR/<name>.npy. With --compare OUT NAME...: loads OUT/<NAME>.npy for each
input in order and prints whether it equals the input (dtype and bytes)."""
import os
import sys

import numpy as np

INPUTS = [
    ("b", np.array([True, False, True, True])),
    ("i8", np.array([-128, -1, 0, 127], np.int8)),
    ("u8", np.array([0, 1, 128, 255], np.uint8)),
    ("i16", np.array([-32768, 32767], np.int16)),
    ("i32", np.array([-2**31, 2**31 - 1], np.int32)),
    ("f16", np.array([1.5, -np.inf], np.float16)),
    # numpy has no bfloat16: it is stored as 2-byte void values (raw bits).
    ("bf16", np.array([0x3fc0, 0xff80], np.uint16).view("V2")),
]

if len(sys.argv) > 2 and sys.argv[2] == "--compare":
    out, names = sys.argv[3], sys.argv[4:]
    for (name, expected), file in zip(INPUTS, names):
        got = np.load(os.path.join(out, file + ".npy"))
        same = (got.dtype == expected.dtype and got.shape == expected.shape
                and got.tobytes() == expected.tobytes())
        print(name, got.dtype.str if got.dtype.kind == "V" else got.dtype,
              "same" if same else "DIFFERENT")
else:
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, array in INPUTS:
        np.save(os.path.join(sys.argv[1], name + ".npy"), array)
