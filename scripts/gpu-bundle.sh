#!/usr/bin/env bash
# Prepares the GPU check on this machine (which has the compiler but no GPU):
# builds Loom, compiles every case of the check for the GPU
# (scripts/gpu/stage.py), and packs the cases with loomrun, the runtime, the
# CUDA device plugin and the shared libraries they need (the GPU machine has
# CUDA, PyTorch and onnxruntime, but no MLIR or MPI) into
# .gpu/bundle.tar.xz, which the device tool carries:
#
#   scripts/gpu-bundle.sh [--target cuda|cpu] [--quick]
#   device run: command "bash scripts/gpu-check.sh", carry [".gpu"]
#
# `--target cpu` packs the same cases compiled for the CPU, for the dry run
# of scripts/gpu-check.sh here. `--quick`: every tenth node test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

target=cuda
stage_args=()
for arg in "$@"; do
  case $arg in
    --target=*) target=${arg#--target=} ;;
    --quick) stage_args+=(--quick) ;;
    *) echo "usage: $0 [--target=cuda|cpu] [--quick]" >&2; exit 2 ;;
  esac
done

gpu=$LOOM_ROOT/.gpu
work=$gpu/work
rm -rf "$work" && mkdir -p "$work/runtime/bin" "$work/runtime/lib"
log "staging the cases for --target=$target"
python "$LOOM_ROOT/scripts/gpu/stage.py" "$work/stage" --target "$target" \
  --loomc "$LOOM_BUILD/bin/loomc" --loomrun "$LOOM_BUILD/bin/loomrun" \
  "${stage_args[@]}"

log "packing the runtime"
cp "$LOOM_BUILD/bin/loomrun" "$work/runtime/bin/"
libs=("$LOOM_BUILD/lib/libloom_runtime.so")
if [ -f "$LOOM_BUILD/lib/libloom_device_cuda.so" ]; then
  libs+=("$LOOM_BUILD/lib/libloom_device_cuda.so")
elif [ "$target" = cuda ]; then
  log "no $LOOM_BUILD/lib/libloom_device_cuda.so: was the CUDA toolkit found?"
  exit 1
fi
cp "${libs[@]}" "$work/runtime/lib/"
# What they link beyond the C library (whose loader must be the machine's).
ldd "$LOOM_BUILD/bin/loomrun" "${libs[@]}" | awk '/=> \//{print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libcuda)\.so' |
  grep -v "$LOOM_BUILD" | xargs -r cp -L -t "$work/runtime/lib/"

rm -f "$gpu/bundle.tar.xz"
tar -C "$work" -cf - stage runtime | xz -T2 -6 >"$gpu/bundle.tar.xz"
rm -rf "$work"
size=$(du -m "$gpu/bundle.tar.xz" | cut -f1)
log "wrote $gpu/bundle.tar.xz (${size} MiB; the device tool carries 64 MiB)"
if ((size > 60)); then
  log "the bundle is too large to carry"
  exit 1
fi
