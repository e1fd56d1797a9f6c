#!/usr/bin/env bash
# Regenerates docs/reference/ from ODS (the test suite checks they match).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cmake --build "$LOOM_BUILD" --target loom-doc
rm -rf "$LOOM_ROOT/docs/reference"
mkdir -p "$LOOM_ROOT/docs/reference"
cp "$LOOM_BUILD"/docs/reference/*.md "$LOOM_ROOT/docs/reference/"
log "docs/reference updated"
