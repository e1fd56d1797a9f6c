"""ckpt_lock.py WORKDIR CKPT -- LOOMRUN_TRAIN_COMMAND...: two training jobs
on one checkpoint directory. The first job (the command with --ckpt CKPT
--metrics WORKDIR/metrics.fifo) holds the lock and then blocks opening its
metrics file, a FIFO nobody reads yet, so it is certainly running while the
second job (the same command with --ckpt CKPT) starts. Prints the second
job's exit status and error, whether the pid it names is the first job's,
then reads the FIFO so that the first job completes, and prints its exit
status. Then the same with a first job killed with SIGKILL instead: a lock
left by a dead process does not block the next job."""
import json
import os
import signal
import subprocess
import sys
import threading
import time


def wait_for_holder(lock, job):
    """Waits until `job` has written its pid into CKPT/.lock (it writes
    just after locking; an earlier job's pid may be there before)."""
    deadline = time.time() + 60
    while time.time() < deadline:
        if job.poll() is not None:
            sys.exit(f"the first job ended early (exit {job.returncode})")
        try:
            with open(lock) as f:
                if json.load(f)["pid"] == job.pid:
                    return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    sys.exit("the first job did not lock the checkpoint directory in 60 s")


def main():
    split = sys.argv.index("--")
    work, ckpt = sys.argv[1:split]
    command = sys.argv[split + 1:]
    fifo = os.path.join(work, "metrics.fifo")
    lock = os.path.join(ckpt, ".lock")
    for case in ("live", "killed"):
        if os.path.exists(fifo):
            os.unlink(fifo)
        os.mkfifo(fifo)
        first = subprocess.Popen(command + ["--ckpt", ckpt, "--metrics", fifo]
                                 + (["--resume"] if case == "killed" else []),
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        wait_for_holder(lock, first)
        if case == "killed":
            first.kill()  # dies holding the lock, blocked on the FIFO
            first.wait()
            print(f"first job killed: {-first.returncode == signal.SIGKILL}")
            second = subprocess.run(command + ["--ckpt", ckpt, "--resume"],
                                    capture_output=True, text=True)
            print(f"after the holder died: exit {second.returncode}")
            return
        second = subprocess.run(command + ["--ckpt", ckpt],
                                capture_output=True, text=True)
        errors = [line for line in second.stderr.splitlines()
                  if "error" in line]
        print(f"second job: exit {second.returncode}")
        for line in errors:
            print(line)
        print("names the first job's pid: "
              f"{f'pid {first.pid} on host' in second.stderr}")
        # Reading the FIFO lets the first job go on.
        metrics = []
        reader = threading.Thread(
            target=lambda: metrics.extend(open(fifo).read().splitlines()))
        reader.start()
        out, _ = first.communicate(timeout=300)
        reader.join()
        print(f"first job: exit {first.returncode}, "
              f"{len(metrics)} metrics lines, "
              f"last line: {out.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
