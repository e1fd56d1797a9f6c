"""check_op_coverage.py DOC TEST...: every op with a reference entry in DOC
(generated from ODS) appears in one of the round-trip TEST files."""
import re
import sys

doc, tests = sys.argv[1], sys.argv[2:]
ops = re.findall(r"^### `([a-z_]+\.[a-z_0-9]+)`", open(doc).read(), re.M)
text = "".join(open(t).read() for t in tests)
missing = [op for op in ops if re.search(re.escape(op) + r"\b", text) is None]
print(f"{len(ops) - len(missing)} of {len(ops)} ops have a round-trip test")
for op in missing:
    print(f"missing: {op}")
sys.exit(1 if missing or not ops else 0)
