"""replay.py LOOMC DIR: every input the fuzzer once crashed on now ends in a
diagnostic (exit 1 or 3), never a crash."""
import os
import subprocess
import sys

loomc, directory = sys.argv[1], sys.argv[2]
bad = 0
inputs = sorted(f for f in os.listdir(directory) if f.endswith(".onnx"))
for name in inputs:
    r = subprocess.run([loomc, os.path.join(directory, name), "-o", os.devnull],
                       capture_output=True, text=True, timeout=60)
    if r.returncode not in (1, 3) or "error:" not in r.stderr:
        bad += 1
        print(f"FAIL {name}: exit {r.returncode}\n{r.stderr[-2000:]}")
print(f"{len(inputs) - bad} of {len(inputs)} fuzzer regressions end in a diagnostic")
sys.exit(1 if bad or not inputs else 0)
