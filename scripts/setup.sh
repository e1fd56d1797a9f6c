#!/usr/bin/env bash
# Installs what Loom needs on Debian 12 and builds it. Safe to re-run: each
# step is skipped when already done. Sourced by run-example.sh and test.sh.
set -euo pipefail

LOOM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOOM_BUILD=${LOOM_BUILD:-$LOOM_ROOT/build}
LOOM_VENV=$LOOM_ROOT/.venv

log() { printf '==> %s\n' "$*" >&2; }

# 1. Debian packages.
APT_PACKAGES=(
  build-essential cmake ninja-build ccache git python3 python3-venv
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  libgtest-dev libonnx-dev libprotobuf-dev libopenblas-dev libdnnl2
  clang-19 libclang-rt-19-dev clang-format-19 libopenmpi-dev openmpi-bin
  python3-torch python3-torchvision
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. Python packages in a repo-local virtual environment. It sees Debian's
# PyTorch and torchvision (python3-torch: CPU-only, no multi-GB wheel), so it
# is made from Debian's Python; an older venv without them is made again.
if [ ! -x "$LOOM_VENV/bin/python" ] ||
   ! grep -qs '^include-system-site-packages = true' "$LOOM_VENV/pyvenv.cfg" ||
   ! grep -qs '^home = /usr/bin$' "$LOOM_VENV/pyvenv.cfg"; then
  log "creating $LOOM_VENV"
  rm -rf "$LOOM_VENV"
  /usr/bin/python3 -m venv --system-site-packages "$LOOM_VENV"
fi
stamp=$LOOM_VENV/.requirements
if ! cmp -s "$LOOM_ROOT/python/requirements.txt" "$stamp"; then
  log "installing Python packages"
  "$LOOM_VENV/bin/pip" install -q --disable-pip-version-check -r "$LOOM_ROOT/python/requirements.txt"
  cp "$LOOM_ROOT/python/requirements.txt" "$stamp"
fi
export PATH=$LOOM_VENV/bin:$PATH

# 3. Configure and build (Ninja, ccache, shared libMLIR).
if [ ! -f "$LOOM_BUILD/build.ninja" ]; then
  log "configuring $LOOM_BUILD"
  cmake -G Ninja -S "$LOOM_ROOT" -B "$LOOM_BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# The test suite runs this script too (the main-job smoke test), on a build
# that is already complete and that lit is reading from: it sets
# LOOM_BUILD_IS_CURRENT to skip the build step.
if [ -z "${LOOM_BUILD_IS_CURRENT:-}" ]; then
  log "building"
  if ! cmake --build "$LOOM_BUILD" -- -j"$(nproc)"; then
    log "build failed"
    exit 1
  fi
fi
export PATH=$LOOM_BUILD/bin:$PATH
