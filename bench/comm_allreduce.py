"""The runtime's all_reduce (a bound program calling loom_coll_all_reduce,
through the MPI backend) against a raw MPI_Allreduce of the same buffers, on
2 ranks, for 1 MiB and 16 MiB of float32. Rounds alternate between the two;
prints the medians and the overhead. Needs a build with the runtime's tests
(the benchmark's program is test/Unit/Runtime's test_collectives.so).

    .venv/bin/python bench/comm_allreduce.py [--build build] [--rounds 31]
        [--iters 20] [--sizes-mib 1,16]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.environ.get(
        "LOOM_BUILD", os.path.join(ROOT, "build")))
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--sizes-mib", default="1,16")
    args = parser.parse_args()

    tool = os.path.join(args.build, "bin", "loom-bench-comm")
    program = os.path.join(args.build, "test", "Unit", "Runtime",
                           "test_collectives.so")
    for path in (tool, program):
        if not os.path.exists(path):
            sys.exit(f"comm_allreduce.py: {path} is missing: build the "
                     "runtime with its tests first")
    mpirun = shutil.which("mpirun")
    if not mpirun:
        sys.exit("comm_allreduce.py: mpirun is not on PATH")

    workdir = tempfile.mkdtemp(prefix="loom-bench-comm-")
    try:
        artifacts = []
        for mib in args.sizes_mib.split(","):
            count = int(float(mib) * (1 << 20)) // 4
            artifact = os.path.join(workdir, f"allreduce_{mib}MiB.loom")
            subprocess.run([sys.executable, os.path.join(
                ROOT, "test", "runtime", "Inputs", "make_dist_artifact.py"),
                "--program", program, artifact, "--kind", "allreduce",
                "--mesh", "dp=1,tp=2", "--count", str(count)], check=True)
            artifacts.append(artifact)
        command = [mpirun, "-np", "2"]
        if os.geteuid() == 0:
            command.append("--allow-run-as-root")
        if (os.cpu_count() or 1) < 2:
            command.append("--oversubscribe")
        command += [tool, "--rounds", str(args.rounds), "--iters",
                    str(args.iters)] + artifacts
        print("$", " ".join(command), flush=True)
        sys.exit(subprocess.run(command).returncode)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
