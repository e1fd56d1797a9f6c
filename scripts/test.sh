#!/usr/bin/env bash
# Builds Loom and runs every test tier: lit/FileCheck, the unit tests (gtest,
# run by lit) and the smoke test of the main job.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

log "running tests"
lit -sv "$LOOM_BUILD/test" "$@"
