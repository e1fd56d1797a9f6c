"""failing_run.py --within SECONDS --leftover PATTERN [--interrupt-after S]
[--signal NAME] [--grace G] -- COMMAND...: runs COMMAND (a multi-rank job
expected to fail), passes its output through, and succeeds only if it exits
non-zero within SECONDS and, once it has (or at most G seconds later), no
process whose command line contains PATTERN is left (other than this
script's own ancestry). With --interrupt-after, sends COMMAND a signal
(SIGINT, or --signal NAME: TERM, KILL, ...) after S seconds. Prints "exited
non-zero in time, nothing left" (and the exit status) on success."""
import argparse
import os
import signal
import subprocess
import sys
import time


def ancestry():
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    return pids


def leftovers(pattern):
    found, mine = [], ancestry()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in mine:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if pattern in cmdline:
            found.append(f"{entry}: {cmdline.strip()}")
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--within", type=float, required=True)
    parser.add_argument("--leftover", required=True)
    parser.add_argument("--interrupt-after", type=float)
    parser.add_argument("--signal", default="INT")
    parser.add_argument("--grace", type=float, default=0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    start = time.monotonic()
    process = subprocess.Popen(command)
    try:
        if args.interrupt_after is not None:
            try:
                process.wait(timeout=args.interrupt_after)
            except subprocess.TimeoutExpired:
                process.send_signal(getattr(signal, "SIG" + args.signal))
        code = process.wait(timeout=args.within)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        sys.exit(f"failing_run: still running after {args.within} s")
    elapsed = time.monotonic() - start
    if code == 0:
        sys.exit("failing_run: the command succeeded")
    left = leftovers(args.leftover)
    deadline = time.monotonic() + args.grace
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = leftovers(args.leftover)
    if left:
        sys.exit("failing_run: processes left behind:\n  " + "\n  ".join(left))
    sys.stdout.flush()
    print(f"exited non-zero in time, nothing left ({elapsed:.1f} s, exit "
          f"status {code})", file=sys.stderr)


if __name__ == "__main__":
    main()
