"""Imports every node test of the onnx package's backend test data whose
operators loomc supports, and compares the failures with an expectations
file (one `test_name: reason` per line).

The run fails if a covered test fails without being listed, if a listed test
passes (move it out of the list), or if a listed test is not a covered node
test. It prints imported / unsupported counts.
"""
import argparse
import concurrent.futures
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loomc", required=True)
    parser.add_argument("--expectations", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    supported = set(subprocess.run(
        [args.loomc, "--list-onnx-operators"], check=True, capture_output=True,
        text=True).stdout.split())
    root = node_test_dir()
    covered, uncovered = [], []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name, "model.onnx")
        if not os.path.exists(path):
            continue
        model = onnx.load(path, load_external_data=False)
        ops = {n.op_type for n in model.graph.node
               if n.domain in ("", "ai.onnx")}
        others = [n for n in model.graph.node if n.domain not in ("", "ai.onnx")]
        if ops and ops <= supported and not others:
            covered.append((name, path))
        else:
            uncovered.append(name)

    def run(item):
        name, path = item
        result = subprocess.run([args.loomc, path, "-o", os.devnull],
                                capture_output=True, text=True, timeout=60)
        first = result.stderr.strip().splitlines()[:1]
        return name, result.returncode, first[0] if first else ""

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run, covered))

    expected = load_expectations(args.expectations)
    covered_names = {name for name, _ in covered}
    problems = []
    passed = 0
    for name, code, message in results:
        if code == 0:
            passed += 1
            if name in expected:
                problems.append(f"{name}: now imports; remove it from the "
                                "expectations file")
        elif name not in expected:
            problems.append(f"{name}: exit {code}: {message}")
    for name in sorted(set(expected) - covered_names):
        problems.append(f"{name}: listed in the expectations file but not a "
                        "covered node test")
    print(f"node tests: {len(covered) + len(uncovered)} in the onnx package, "
          f"{len(covered)} use only supported operators: {passed} import, "
          f"{len(covered) - passed} expected failures; {len(uncovered)} use "
          "operators loomc does not support")
    for problem in problems:
        print("error: " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
