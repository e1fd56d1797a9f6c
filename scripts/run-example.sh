#!/usr/bin/env bash
# The main job on the built-in example: check a sharding plan for a 2-layer
# MLP on a 2x4 mesh (examples/mlp_plan.mlir), show how each op may be split,
# and what it costs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

plan=$LOOM_ROOT/examples/mlp_plan.mlir
echo "== plan (verified) =="
loom-opt "$plan"
echo
echo "== sharding rules =="
loom-opt "$plan" -nn-print-sharding-rules -o /dev/null 2>&1 |
  sed -n 's/^.*:\([0-9]*\):[0-9]*: remark: /line \1  /p'
echo
echo "== cost =="
loomc "$plan" --emit=cost
