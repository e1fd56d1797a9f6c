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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "utils"))
from node_tests import (first_error_line, load_expectations,  # noqa: E402
                        split_node_tests)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loomc", required=True)
    parser.add_argument("--expectations", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    covered, uncovered = split_node_tests(args.loomc)

    def run(item):
        name, directory = item
        result = subprocess.run(
            [args.loomc, os.path.join(directory, "model.onnx"), "-o",
             os.devnull], capture_output=True, text=True, timeout=60)
        return name, result.returncode, first_error_line(result)

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
