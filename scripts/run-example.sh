#!/usr/bin/env bash
# The main job on the built-in example: generate a small MLP as an ONNX model
# (PyTorch-style, seeded), import it with loomc, price it, compile it to a
# native artifact and run it with loomrun on a seeded batch; split it
# Megatron-style over a 2x2 mesh and run it on 4 ranks; then check the
# hand-written Megatron-style plan for a two-layer MLP on a 2x4 mesh
# (examples/mlp_plan.mlir) and show how each of its ops may be split; last,
# train a character-level GPT data parallel on 2 ranks on the licence texts
# every Debian machine has, plot its loss and sample from it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

out=$LOOM_BUILD/examples
mkdir -p "$out"
PYTHONPATH=$LOOM_ROOT/python python -m loom.testing.onnx_models "$out" mlp
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
echo

echo "== training: a character-level GPT, data parallel on 2 ranks =="
gpt=$out/chargpt
mkdir -p "$gpt"
PYTHONPATH=$LOOM_ROOT/python python -m loom.testing.chardata "$gpt"
vocab=$(python -c "import json, sys; print(json.load(open(sys.argv[1]))['size'])" "$gpt/vocab.json")
PYTHONPATH=$LOOM_ROOT/python python -m loom.testing.onnx_models "$gpt" gpt \
  --config layers=2,hidden=64,heads=4,vocab=$vocab,seq=64,seed=0,train_init=1
train=(--input-shape input_ids=32x64 --train --loss=cross_entropy --logits=logits
       --optimizer=adamw --lr 3e-3 --weight-decay 0.01 --clip-grad-norm 1.0
       --lr-schedule=cosine --warmup 20 --decay-steps 580 --min-lr 3e-4
       --mesh dp=2)
echo "-- the plan: what each of the 2 devices runs, its collectives --"
loomc "$gpt/gpt.onnx" "${train[@]}" --emit=spmd --elide-weights |
  grep -E "func.func|dist\." | cut -c1-220
loomc "$gpt/gpt.onnx" "${train[@]}" -o "$gpt/train.loom"
loomrun "$gpt/train.loom" --info | sed -n '/^mesh/p;/^collectives/,$p'
echo "-- 600 steps of 32 x 64 characters on 2 ranks --"
rm -rf "$gpt/ckpt"
loomrun -np 2 "$gpt/train.loom" --train --data input_ids="$gpt/tokens.bin" \
  --steps 600 --seed 0 --threads 1 --log-every 50 \
  --metrics "$gpt/metrics.jsonl" --ckpt "$gpt/ckpt" --ckpt-every 200
python "$LOOM_ROOT/scripts/plot_loss.py" "$gpt/metrics.jsonl" -o "$gpt/loss.png" \
  --title "character-level GPT, data parallel on 2 ranks"
loom-ckpt export "$gpt/ckpt" -o "$gpt/gpt.safetensors"
echo "-- a sample (inference artifact on the exported weights) --"
loomc "$gpt/gpt.onnx" --input-shape input_ids=1x64 -o "$gpt/infer.loom"
PYTHONPATH=$LOOM_ROOT/python python -m loom.generate "$gpt/infer.loom" \
  --params "$gpt/gpt.safetensors" --vocab "$gpt/vocab.json" \
  --prompt "This License " --length 300 --seed 0
