"""Runs edge_numerics.loom through the Python binding and prints what the
lit test checks: f64 -> bf16 rounded once to nearest even, log of f32
subnormals, rank-0 inputs, bfloat16 inputs given as bits (and refused as
floats)."""
import sys

import numpy as np

from loom.runtime import LoomError, Program

program = Program(sys.argv[1])
names = [name for name, _, _ in program.inputs]
x = np.array([1.0, 1.00390625 + 1e-12, 1.00390625, 3.0e38, -2.5, np.nan])
y = np.array([1e-40, 1.0, 1e-30, 3.0e-39], np.float32)
s = np.array(1.0, np.float32)
h = np.array([0x3F80, 0xC020, 0x7F80], np.uint16)  # 1, -2.5, inf
out = program.run({names[0]: x, names[1]: y, names[2]: s, names[3]: h})
bf16, log, exp, widened = out.values()
print("bf16", " ".join(hex(v) for v in bf16.view(np.uint16)))
ref = np.log(y.astype(np.float64))
print("log", "ok" if np.allclose(log, ref, rtol=1e-6) else f"bad {log} {ref}")
print("exp", "ok" if exp.shape == () and abs(exp - np.e) < 1e-6 else exp)
print("widened", widened.tolist())
try:
    program.run({names[0]: x, names[1]: y, names[2]: s,
                 names[3]: np.ones(3, np.float32)})
except LoomError as e:
    print("error:", e)
