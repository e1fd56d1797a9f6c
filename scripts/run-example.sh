#!/usr/bin/env bash
# The main job on the built-in example: generate a small MLP as an ONNX model
# (PyTorch-style, seeded), import it with loomc, and price it; then check the
# hand-written Megatron-style plan for a two-layer MLP on a 2x4 mesh
# (examples/mlp_plan.mlir) and show how each of its ops may be split.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

out=$LOOM_BUILD/examples
mkdir -p "$out"
PYTHONPATH=$LOOM_ROOT/python python -m loom.onnx_models "$out" mlp
echo "== $out/mlp.onnx imported (batch fixed to 32) =="
loomc "$out/mlp.onnx" --input-shape x=32x16 --elide-weights
echo "== cost of the imported model =="
loomc "$out/mlp.onnx" --input-shape x=32x16 --emit=cost
echo

plan=$LOOM_ROOT/examples/mlp_plan.mlir
echo "== plan (verified): $plan =="
loom-opt "$plan"
echo
echo "== sharding rules of the plan's ops =="
loom-opt "$plan" -nn-print-sharding-rules -o /dev/null 2>&1 |
  sed -n 's/^.*:\([0-9]*\):[0-9]*: remark: /line \1  /p'
echo
echo "== cost of the plan (global shapes) =="
loomc "$plan" --emit=cost
