"""check_restarts.py METRICS.jsonl --steps N --ckpt-every K: checks the
metrics of a `loomrun --train --max-restarts` run. The file holds every
attempt's lines, appended: each restart goes back to the step after a
checkpoint (a multiple of K, or 0), and the last line of every step makes
up steps 1..N. Prints "ok", the number of restarts and the steps each
resumed from."""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("metrics")
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--ckpt-every", type=int, required=True)
    args = parser.parse_args()
    with open(args.metrics) as f:
        steps = [json.loads(line)["step"] for line in f]
    resumed, last = [], 0
    for step in steps:
        if step != last + 1:
            if step > last or (step - 1) % args.ckpt_every:
                sys.exit(f"step {step} follows step {last}: not a restart "
                         f"from a checkpoint")
            resumed.append(step - 1)
        last = step
    if sorted(set(steps)) != list(range(1, args.steps + 1)) or \
            last != args.steps:
        sys.exit(f"the steps do not end at 1..{args.steps}: {steps}")
    print(f"ok: {args.steps} steps, {len(resumed)} restarts, resumed from "
          f"steps {', '.join(map(str, resumed)) or '(none)'}")


if __name__ == "__main__":
    main()
