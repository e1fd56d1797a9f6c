#!/usr/bin/env bash
# The device check of the CUDA backend (issue 16), run on the GPU machine in
# one call, over the bundle scripts/gpu-bundle.sh made here:
#
#   device run: command "bash scripts/gpu-check.sh", carry [".gpu"]
#   here, the dry run: scripts/gpu-bundle.sh --target=cpu --quick &&
#                      scripts/gpu-check.sh
#
# Unpacks .gpu/bundle.tar.xz, prints the GPU and the driver, then runs
# scripts/gpu/check.py: the node tests, the generated models against
# onnxruntime, 20 fp32 training steps of the GPT against the CPU losses,
# the character GPT, and bench/gpu_train_step.py against PyTorch. The log
# and a JSON summary go to $OUT (the device tool's folder) or .gpu/out.
# Exit status 0 when every judged part passed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle=${LOOM_GPU_BUNDLE:-$root/.gpu/bundle.tar.xz}
out=${OUT:-$root/.gpu/out}
mkdir -p "$out"
if [ ! -f "$bundle" ]; then
  echo "gpu-check: no $bundle: run scripts/gpu-bundle.sh first" >&2
  exit 2
fi
work=$(mktemp -d /tmp/loom-gpu.XXXXXX)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
xz -dc "$bundle" | tar -C "$work" -xf - || exit 2
export LD_LIBRARY_PATH=$work/runtime/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
# Here the repo's virtual environment has numpy; the GPU machine's python3 does.
python=${PYTHON:-python3}
[ -z "${PYTHON:-}" ] && [ -x "$root/.venv/bin/python" ] && python=$root/.venv/bin/python
# The CUDA device opens libcublasLt.so.13 (or .12) by name: on the GPU
# machine it comes with PyTorch's nvidia wheels, outside the search path.
cublaslt=
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcublasLt\.so\.1[23]'; then
  cublaslt=$("$python" "$root/scripts/gpu/find_cublaslt.py")
  [ -n "$cublaslt" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$cublaslt
fi
{
  echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "unpacked in $(($(date +%s) - start)) s; cuBLASLt from ${cublaslt:-the library search path}"
  "$python" "$root/scripts/gpu/check.py" "$work/stage" \
    --loomrun "$work/runtime/bin/loomrun" --json "$out/gpu-check.json" \
    --jobs "${LOOM_GPU_JOBS:-8}"
} 2>&1 | tee "$out/gpu-check.log"
rc=${PIPESTATUS[0]}
echo "gpu-check: exit $rc after $(($(date +%s) - start)) s" | tee -a "$out/gpu-check.log"
exit "$rc"
