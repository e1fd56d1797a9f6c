#!/usr/bin/env bash
# The main job on the built-in example: generate a small MLP as an ONNX model
# (PyTorch-style, seeded), import it with loomc, price it, compile it to a
# native artifact and run it with loomrun on a seeded batch; split it
# Megatron-style over a 2x2 mesh and run it on 4 ranks; then check the
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
echo "== compiled to $out/mlp.loom and run with loomrun =="
loomc "$out/mlp.onnx" --input-shape x=32x16 -o "$out/mlp.loom"
python -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(0).standard_normal((32, 16)).astype(np.float32))" "$out/x.npy"
loomrun "$out/mlp.loom" --info
loomrun "$out/mlp.loom" --input x="$out/x.npy" --output-dir "$out/mlp-out" --bench 100
python -c "import numpy as np, sys; y = np.load(sys.argv[1]); print('logits[0] =', np.array2string(y[0], precision=3))" "$out/mlp-out/logits.npy"
echo

echo "== the same MLP split Megatron-style over dp=2 x tp=2: the plan =="
dist=(--input-shape x=32x16 --mesh dp=2,tp=2 --strategy=megatron)
loomc "$out/mlp.onnx" "${dist[@]}" --emit=plan --elide-weights
echo "== what each of the 4 devices runs =="
loomc "$out/mlp.onnx" "${dist[@]}" --emit=spmd --elide-weights
echo "== compiled to $out/mlp-dp2tp2.loom and run on 4 ranks (loomrun -np 4) =="
loomc "$out/mlp.onnx" "${dist[@]}" -o "$out/mlp-dp2tp2.loom"
loomrun -np 4 "$out/mlp-dp2tp2.loom" --input x="$out/x.npy" \
  --output-dir "$out/mlp-dp2tp2-out" --threads 1 --comm-stats
python -c "
import numpy as np, sys
one, four = np.load(sys.argv[1]), np.load(sys.argv[2])
print('4 ranks vs 1 rank: max |difference| = %.3g' % np.max(np.abs(one - four)))
assert np.allclose(one, four, rtol=1e-5, atol=1e-6)" \
  "$out/mlp-out/logits.npy" "$out/mlp-dp2tp2-out/logits.npy"
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
