"""compare_outputs.py EXPECTED_DIR OUT_DIR: compares every EXPECTED_DIR/*.npy
with OUT_DIR's file of the same name (dtype, shape and bytes: the test
programs compute exactly) and prints one line per output, "NAME same" or
"NAME DIFFERENT ...". Exits 1 if any differs or is missing."""
import os
import sys

import numpy as np

expected_dir, out_dir = sys.argv[1], sys.argv[2]
ok = True
for file in sorted(os.listdir(expected_dir)):
    name = file[:-len(".npy")]
    want = np.load(os.path.join(expected_dir, file))
    path = os.path.join(out_dir, file)
    if not os.path.exists(path):
        print(name, "MISSING")
        ok = False
        continue
    got = np.load(path)
    if (got.dtype == want.dtype and got.shape == want.shape
            and got.tobytes() == want.tobytes()):
        print(name, "same")
    else:
        print(name, "DIFFERENT: expected", want.dtype, want.shape,
              want.tolist() if want.dtype.kind != "V" else want.tobytes(),
              "got", got.dtype, got.shape,
              got.tolist() if got.dtype.kind != "V" else got.tobytes())
        ok = False
sys.exit(0 if ok else 1)
