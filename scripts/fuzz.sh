#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-19 (ASan + UBSan) in build-fuzz/:
# the ONNX importer's, which replays a corpus seeded with the generated test
# models and fuzzes for LOOM_FUZZ_SECONDS (default 60), and the runtime
# parsers' (manifest JSON, .npy) and the artifact loader's checks (manifest
# against the program's signature), for LOOM_RUNTIME_FUZZ_SECONDS (default
# 20) each; MLIR text as loom-opt and loomc read it (nesting check, parser,
# verifier, printer) for LOOM_MLIR_FUZZ_SECONDS (default 20), seeded with
# test/'s .mlir files; the cluster-description reader for
# LOOM_CLUSTER_FUZZ_SECONDS (default 10), seeded with clusters/.
# Run by test.sh; fails on any crash, sanitizer report, leak or
# out-of-memory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

FUZZ_BUILD=$LOOM_ROOT/build-fuzz
SECONDS_TO_FUZZ=${LOOM_FUZZ_SECONDS:-60}
if [ ! -f "$FUZZ_BUILD/build.ninja" ]; then
  log "configuring $FUZZ_BUILD (clang-19, ASan+UBSan, libFuzzer)"
  cmake -G Ninja -S "$LOOM_ROOT" -B "$FUZZ_BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DLOOM_ENABLE_FUZZER=ON >/dev/null
fi
log "building the fuzzer"
cmake --build "$FUZZ_BUILD" --target loom-onnx-fuzz loom-runtime-fuzz \
  loom-artifact-fuzz loom-mlir-fuzz loom-cluster-fuzz -- -j"$(nproc)"

# The seed corpus: every generated model, the op-semantics models and the
# hostile ones (regenerated each run; they are small and seeded).
corpus=$FUZZ_BUILD/corpus
seeds=$FUZZ_BUILD/seeds
rm -rf "$seeds" && mkdir -p "$corpus" "$seeds"
PYTHONPATH=$LOOM_ROOT/python python -m loom.testing.onnx_models "$seeds/models"
python "$LOOM_ROOT/test/Frontend/ONNX/Inputs/op_models.py" "$seeds/ops"
for kind in empty truncated garbage ir_version no_opset dims_overflow raw_short \
            unsorted undefined duplicate unsupported bad_dtype ext_good; do
  PYTHONPATH=$LOOM_ROOT/python python -m loom.testing.bad_onnx "$kind" "$seeds/bad/$kind"
done
cp "$LOOM_ROOT"/test/Frontend/ONNX/fuzz-regressions/*.onnx "$seeds/"
find "$seeds" -name '*.onnx' -size -1024k | while read -r f; do
  cp "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"
done

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log "replaying $(ls "$corpus" | wc -l) corpus inputs"
"$FUZZ_BUILD/bin/loom-onnx-fuzz" -runs=0 -artifact_prefix="$FUZZ_BUILD/" "$corpus"
log "fuzzing for ${SECONDS_TO_FUZZ}s"
status=0
"$FUZZ_BUILD/bin/loom-onnx-fuzz" -max_total_time="$SECONDS_TO_FUZZ" \
  -rss_limit_mb=4096 -max_len=262144 -print_final_stats=1 \
  -artifact_prefix="$FUZZ_BUILD/" "$corpus" >"$FUZZ_BUILD/fuzz.log" 2>&1 ||
  status=$?
grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|NEW_FUNC|# Uses: ' "$FUZZ_BUILD/fuzz.log" | tail -n 40
if [ "$status" != 0 ]; then
  log "the fuzzer found a crash (exit $status); the input is in $FUZZ_BUILD/crash-*"
  exit 1
fi
log "fuzzing: no crashes in ${SECONDS_TO_FUZZ}s"

# run_fuzzer BINARY PREFIX SECONDS CORPUS WHAT: fuzzes for SECONDS, prints
# the end of the log, and fails on any crash, sanitizer report, leak or
# out-of-memory (the input is kept as $FUZZ_BUILD/PREFIX-crash-*).
run_fuzzer() {
  local binary=$1 prefix=$2 seconds=$3 corpus=$4 what=$5 status=0
  log "$what for ${seconds}s"
  "$FUZZ_BUILD/bin/$binary" -max_total_time="$seconds" \
    -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$FUZZ_BUILD/$prefix-" "$corpus" \
    >"$FUZZ_BUILD/$prefix-fuzz.log" 2>&1 || status=$?
  grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|NEW_FUNC|# Uses: ' \
    "$FUZZ_BUILD/$prefix-fuzz.log" | tail -n 12
  if [ "$status" != 0 ]; then
    log "$binary found a crash (exit $status); the input is in $FUZZ_BUILD/$prefix-crash-*"
    exit 1
  fi
  log "$binary: no crashes in ${seconds}s"
}

# The runtime's parsers (manifest JSON, .npy): seeded with .npy files of
# every dtype and a manifest like the ones loomc writes.
RUNTIME_SECONDS=${LOOM_RUNTIME_FUZZ_SECONDS:-20}
rcorpus=$FUZZ_BUILD/runtime-corpus
mkdir -p "$rcorpus"
python - "$rcorpus" <<'PY'
import json, os, sys
import numpy as np
out = sys.argv[1]
rng = np.random.default_rng(0)
for dtype in ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "?"]:
    for shape in [(), (3,), (2, 3), (0, 4)]:
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        np.save(os.path.join(out, f"seed-{dtype.replace('?', 'b')}-{len(shape)}-{a.size}.npy"), a)
tensor = lambda name, dtype, shape: {"name": name, "dtype": dtype, "shape": shape}
manifest = {"format": "loom-artifact", "format_version": 1, "runtime_abi": 1,
            "producer": "loomc 0.1.0", "model": "m.onnx",
            "target": {"triple": "x86_64-pc-linux-gnu", "cpu": "x86-64-v3",
                       "features": ["avx", "avx2", "fma"]},
            "library": "program.so", "entry": "loom_entry",
            "parameter_file": "parameters.bin",
            "parameters": [dict(tensor("w", "float32", [4, 2]), offset=0, nbytes=32)],
            "inputs": [tensor("x", "float32", [3, 4]), tensor("ids", "int64", [])],
            "outputs": [tensor("y", "bfloat16", [3, 2])]}
with open(os.path.join(out, "seed-manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
PY
run_fuzzer loom-runtime-fuzz runtime "$RUNTIME_SECONDS" "$rcorpus" "fuzzing the runtime's parsers"

# The artifact loader's checks: a manifest, a NUL, the signature its
# program exports (seeded with a matching pair).
acorpus=$FUZZ_BUILD/artifact-corpus
mkdir -p "$acorpus"
python - "$acorpus" <<'PY'
import json, os, sys
tensor = lambda name, dtype, shape, n: {"name": name, "dtype": dtype, "shape": shape, "nbytes": n}
signature = {"version": 1,
             "parameters": [tensor("w", "float32", [4, 2], 32)],
             "inputs": [tensor("x", "float32", [3, 4], 48)],
             "outputs": [tensor("y", "float32", [3, 2], 24)]}
manifest = {"format": "loom-artifact", "format_version": 5, "runtime_abi": 1,
            "library": "program.so", "entry": "loom_entry",
            "parameter_file": "parameters.bin",
            "parameters": [{"name": "w", "dtype": "float32", "shape": [4, 2],
                            "offset": 0, "nbytes": 32}],
            "inputs": [{"name": "x", "dtype": "float32", "shape": [3, 4]}],
            "outputs": [{"name": "y", "dtype": "float32", "shape": [3, 2]}],
            "files": {"program.so": {"bytes": 1000, "crc32": 12345},
                      "parameters.bin": {"bytes": 32, "crc32": 678}}}
with open(os.path.join(sys.argv[1], "seed-artifact"), "wb") as f:
    f.write(json.dumps(manifest).encode() + b"\0" + json.dumps(signature).encode())
PY
run_fuzzer loom-artifact-fuzz artifact "$RUNTIME_SECONDS" "$acorpus" "fuzzing the artifact loader's checks"

# MLIR text: each split (`// -----`) of test/'s .mlir files up to 64 KiB.
MLIR_SECONDS=${LOOM_MLIR_FUZZ_SECONDS:-20}
mcorpus=$FUZZ_BUILD/mlir-corpus
mkdir -p "$mcorpus"
python - "$LOOM_ROOT" "$mcorpus" <<'PY'
import hashlib, os, pathlib, re, sys
root, out = pathlib.Path(sys.argv[1]), sys.argv[2]
for path in sorted((root / "test").rglob("*.mlir")):
    if not path.is_file() or path.stat().st_size > 65536:
        continue
    for part in re.split(rb"\n// -----[^\n]*\n", path.read_bytes()):
        name = "seed-" + hashlib.sha1(part).hexdigest()[:16]
        with open(os.path.join(out, name), "wb") as f:
            f.write(part)
PY
run_fuzzer loom-mlir-fuzz mlir "$MLIR_SECONDS" "$mcorpus" "fuzzing MLIR input"

# Cluster descriptions: the examples under clusters/.
CLUSTER_SECONDS=${LOOM_CLUSTER_FUZZ_SECONDS:-10}
ccorpus=$FUZZ_BUILD/cluster-corpus
mkdir -p "$ccorpus"
cp "$LOOM_ROOT"/clusters/*.json "$ccorpus/"
run_fuzzer loom-cluster-fuzz cluster "$CLUSTER_SECONDS" "$ccorpus" "fuzzing the cluster reader"
