"""What the ONNX node-test runners share: where the onnx package keeps its
backend node tests, which of them use only operators loomc supports, and
the expectations files (`test_name: reason` per line)."""
import os
import subprocess
import sys

import onnx


def node_test_dir():
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test",
                        "data", "node")


def load_expectations(path):
    expected = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, sep, reason = line.partition(":")
            if not sep or not reason.strip():
                sys.exit(f"{path}:{number}: expected 'test_name: reason'")
            expected[name.strip()] = reason.strip()
    return expected


def split_node_tests(loomc, name_filter=""):
    """Returns ([(name, test directory)] of the tests whose operators loomc
    supports, [names of the others]), restricted to names containing
    `name_filter`."""
    supported = set(subprocess.run(
        [loomc, "--list-onnx-operators"], check=True, capture_output=True,
        text=True).stdout.split())
    root = node_test_dir()
    covered, uncovered = [], []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name, "model.onnx")
        if not os.path.exists(path) or name_filter not in name:
            continue
        model = onnx.load(path, load_external_data=False)
        ops = {n.op_type for n in model.graph.node
               if n.domain in ("", "ai.onnx")}
        others = [n for n in model.graph.node
                  if n.domain not in ("", "ai.onnx")]
        if ops and ops <= supported and not others:
            covered.append((name, os.path.join(root, name)))
        else:
            uncovered.append(name)
    return covered, uncovered


def first_error_line(result):
    """The first line a failed command wrote to stderr, or its exit code."""
    lines = result.stderr.strip().splitlines()
    return lines[0] if lines else f"exit {result.returncode}"
