"""Compiles and runs every node test of the onnx package's backend test data
whose operators loomc supports, with loomc -o and loomrun, and compares the
outputs with the test's expected outputs (rtol 1e-3, atol 1e-5, NaNs in the
same places, same dtype and shape).

Loom compiles static programs, so graph inputs that a node reads as a shape,
axes, pads, split sizes, repeats, k or range bound (values ONNX lets be
computed at run time) are bound to the test's input values: the runner moves
them into initializers before compiling. Everything else is a runtime input.

Failures are compared with an expectations file (`test_name: reason` per
line). The run fails if a test fails without being listed, if a listed test
passes (move it out of the list), or if a listed test is not a covered node
test. It prints the pass counts.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "utils"))
from node_tests import (first_error_line, load_expectations,  # noqa: E402
                        split_node_tests)

RTOL, ATOL = 1e-3, 1e-5

# Operand positions that Loom needs as compile-time constants, by operator.
CONSTANT_OPERANDS = {
    "Reshape": {1}, "Expand": {1}, "Tile": {1}, "Slice": {1, 2, 3, 4},
    "Pad": {1, 2, 3}, "Split": {1}, "Squeeze": {1}, "Unsqueeze": {1},
    "ReduceSum": {1}, "ReduceMean": {1}, "ReduceMax": {1}, "ReduceMin": {1},
    "Trilu": {1}, "ConstantOfShape": {0}, "Range": {0, 1, 2},
    "Dropout": {1, 2},
}


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


# The 8-bit floats: numpy has no such types, so onnx decodes them to
# float32; Loom reads and writes their raw bits.
FLOAT8 = {"float8e4m3fn": (True, False), "float8e4m3fnuz": (True, True),
          "float8e5m2": (False, False), "float8e5m2fnuz": (False, True)}


def float8_bits(tensor):
    """The raw bytes of an 8-bit float TensorProto, in its shape."""
    if tensor.raw_data:
        bits = np.frombuffer(tensor.raw_data, dtype=np.uint8)
    else:
        bits = np.array(tensor.int32_data, dtype=np.uint8)
    return bits.reshape(tuple(tensor.dims))


def decode_float8(bits, dtype):
    e4m3, uz = FLOAT8[dtype]
    bits = bits.view(np.uint8)
    if e4m3:
        values = numpy_helper.float8e4m3_to_float32(bits, uz=uz)
    else:
        values = numpy_helper.float8e5m2_to_float32(bits, fn=uz, uz=uz)
    return values.astype(np.float32).reshape(bits.shape)


def read_pb(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor


def compare(name, got, want):
    """Returns None when `got` matches `want`, else why not."""
    if got.dtype != want.dtype:
        return f"output '{name}' has dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"output '{name}' has shape {got.shape}, expected {want.shape}"
    if want.dtype.kind in "fc":
        g, w = got.astype(np.float64), want.astype(np.float64)
        nan = np.isnan(w)
        if not np.array_equal(nan, np.isnan(g)):
            return f"output '{name}': NaNs differ"
        g, w = g[~nan], w[~nan]
        inf = np.isinf(w)
        if not np.array_equal(g[inf], w[inf]):
            return f"output '{name}': infinities differ"
        g, w = g[~inf], w[~inf]
        bad = np.abs(g - w) > ATOL + RTOL * np.abs(w)
        if bad.any():
            err = np.abs(g - w).max()
            return (f"output '{name}': {bad.sum()} of {w.size} elements "
                    f"differ, max abs error {err:.3g}")
        return None
    if not np.array_equal(got, want):
        return f"output '{name}': values differ"
    return None


def run_test(item, loomc, loomrun, keep, loomc_args=()):
    name, directory = item
    model = onnx.load(os.path.join(directory, "model.onnx"))
    data_dir = os.path.join(directory, "test_data_set_0")
    initializers = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in initializers]
    inputs, protos = {}, {}
    for i, info in enumerate(graph_inputs):
        path = os.path.join(data_dir, f"input_{i}.pb")
        if not os.path.exists(path):
            return name, "import", "no input data"
        try:
            protos[info.name] = read_pb(path)
            inputs[info.name] = numpy_helper.to_array(protos[info.name])
        except Exception as e:  # sequences, optionals, unknown types
            return name, "import", f"input '{info.name}' is not a tensor: {e}"
    expected = []
    for i, info in enumerate(model.graph.output):
        try:
            expected.append(numpy_helper.to_array(
                read_pb(os.path.join(data_dir, f"output_{i}.pb"))))
        except Exception as e:
            return name, "import", f"output '{info.name}' is not a tensor: {e}"

    bound = set()
    for node in model.graph.node:
        for position in CONSTANT_OPERANDS.get(node.op_type, ()):
            if position < len(node.input) and node.input[position] in inputs:
                bound.add(node.input[position])
    for input_name in bound:
        model.graph.initializer.append(
            numpy_helper.from_array(inputs.pop(input_name), input_name))

    with tempfile.TemporaryDirectory(prefix=name + "-") as tmp:
        model_path = os.path.join(tmp, "model.onnx")
        onnx.save(model, model_path)
        cmd = [loomc, model_path, "-o", os.path.join(tmp, "model.loom"),
               *loomc_args]
        for input_name, value in inputs.items():
            if value.ndim == 0:
                continue
            shape = "x".join(str(d) for d in value.shape)
            cmd += ["--input-shape", f"{input_name}={shape}"]
        result = subprocess.run(cmd, capture_output=True, text=True,
                                timeout=300)
        if result.returncode != 0:
            return name, "import", first_error_line(result)
        with open(os.path.join(tmp, "model.loom", "manifest.json")) as f:
            manifest = json.load(f)
        cmd = [loomrun, os.path.join(tmp, "model.loom"), "--output-dir",
               os.path.join(tmp, "out")]
        for spec in manifest["inputs"]:
            value = inputs[spec["name"]]
            if spec["dtype"] == "bfloat16":  # onnx gives the raw bits
                value = value.view(np.uint16).view("V2")
            elif spec["dtype"] in FLOAT8:
                value = float8_bits(protos[spec["name"]]).view("V1")
            elif spec["dtype"] in ("int4", "uint4"):  # onnx gives float32
                value = value.astype(np.int8 if spec["dtype"] == "int4"
                                     else np.uint8)
            path = os.path.join(tmp, "in-" + safe_name(spec["name"]) + ".npy")
            np.save(path, value)
            cmd += ["--input", f"{spec['name']}={path}"]
        result = subprocess.run(cmd, capture_output=True, text=True,
                                timeout=300)
        if result.returncode != 0:
            return name, "run", first_error_line(result)
        for spec, want in zip(manifest["outputs"], expected):
            got = np.load(os.path.join(tmp, "out",
                                       safe_name(spec["name"]) + ".npy"))
            if spec["dtype"] == "bfloat16":
                # Compare bfloat16 as float32 (its bits are the top half).
                got = (got.view(np.uint16).astype(np.uint32) << 16).view(
                    np.float32)
                want = (want.view(np.uint16).astype(np.uint32) << 16).view(
                    np.float32)
            elif spec["dtype"] in FLOAT8:
                got = decode_float8(got, spec["dtype"])
            elif spec["dtype"] in ("int4", "uint4"):
                got = got.astype(np.float32)
            problem = compare(spec["name"], got, want)
            if problem:
                return name, "mismatch", problem
    return name, "pass", ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loomc", required=True)
    parser.add_argument("--loomrun", required=True)
    parser.add_argument("--expectations", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--filter", default="",
                        help="only tests whose name contains this")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--loomc-arg", action="append", default=[],
                        help="an extra loomc flag (repeatable), e.g. "
                        "--loomc-arg=--emulate-cuda-kernels")
    parser.add_argument("--print-failures", action="store_true",
                        help="print every failure as an expectations line")
    args = parser.parse_args()

    covered, uncovered = split_node_tests(args.loomc, args.filter)

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda item: run_test(item, args.loomc, args.loomrun, args.keep,
                                  args.loomc_arg),
            covered))

    expected = load_expectations(args.expectations) if not args.filter else {}
    covered_names = {name for name, _ in covered}
    problems = []
    counts = {"pass": 0, "import": 0, "run": 0, "mismatch": 0}
    for name, status, message in results:
        counts[status] += 1
        if args.print_failures and status != "pass":
            print(f"{name}: {status}: {message}")
        if args.filter:
            continue
        if status == "pass":
            if name in expected:
                problems.append(f"{name}: now passes; remove it from the "
                                "expectations file")
        elif name not in expected:
            problems.append(f"{name}: {status}: {message}")
    if not args.filter:
        for name in sorted(set(expected) - covered_names):
            problems.append(f"{name}: listed in the expectations file but not "
                            "a covered node test")
    total = len(covered)
    compiled = total - counts["import"]
    print(f"node tests: {len(covered) + len(uncovered)} in the onnx package, "
          f"{total} use only supported operators; {compiled} compile, "
          f"{counts['pass']} pass ({100.0 * counts['pass'] / max(compiled, 1):.1f}% "
          f"of those that compile, {100.0 * counts['pass'] / max(total, 1):.1f}% "
          f"of all); failures: {counts['import']} do not import, "
          f"{counts['run']} fail to run, {counts['mismatch']} mismatch")
    for problem in problems:
        print("error: " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
