"""Checks a description written by `loomc calibrate`: the keys of
docs/Cluster.md, positive figures, N devices on one node, the GEMM curve at
sizes 32..1024, and a `source` that says how it was measured."""
import json
import sys

path, ranks = sys.argv[1], int(sys.argv[2])
with open(path) as f:
    c = json.load(f)


def positive(value, what):
    assert isinstance(value, (int, float)) and value > 0, f"{what}: {value!r}"


assert c["nodes"] == 1, c["nodes"]
assert c["devices_per_node"] == ranks, c["devices_per_node"]
assert c["source"].startswith("calibrated by loomc calibrate on "), c["source"]
d = c["device"]
assert d["kind"] == "cpu" and d["name"], d
positive(d["memory_gb"], "memory_gb")
positive(d["memory_bandwidth_gb_per_s"], "memory_bandwidth_gb_per_s")
assert set(d["peak_tflops"]) == {"float32", "float64"}, d["peak_tflops"]
for dtype, rate in d["peak_tflops"].items():
    positive(rate, dtype)
curve = d["matmul_tflops_by_size"]
assert [size for size, _ in curve] == [32, 64, 128, 256, 512, 1024], curve
for size, rate in curve:
    positive(rate, f"matmul_tflops_by_size at {size}")
# The float32 peak is the best point of the curve.
assert d["peak_tflops"]["float32"] == max(rate for _, rate in curve), d
links = c["links"]
for link in ("intra_node", "inter_node"):
    positive(links[link]["bandwidth_gb_per_s"], link + " bandwidth")
    positive(links[link]["latency_us"], link + " latency")
assert links["inter_node"] == links["intra_node"], links
print("calibration ok:", ranks, "ranks;",
      "link measured" if "ping-pong" in c["source"] else "link not measured")
