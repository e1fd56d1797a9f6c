#!/usr/bin/env python3
"""Plots the loss curve of a training run from loomrun's --metrics file.

    python scripts/plot_loss.py METRICS.jsonl [-o loss.png] [--title TEXT]
"""

import argparse
import json
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("metrics")
    parser.add_argument("-o", "--output", default="loss.png")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    # A restarted run (--max-restarts) repeats the steps after its last
    # checkpoint: the last record of a step is the one the run kept.
    by_step = {}
    with open(args.metrics) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                by_step[int(record["step"])] = float(record["loss"])
            except (ValueError, KeyError) as e:
                sys.exit(f"{args.metrics}:{number}: not a metrics record "
                         f"({e})")
    steps = sorted(by_step)
    losses = [by_step[step] for step in steps]
    if not steps:
        sys.exit(f"{args.metrics}: no steps recorded")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot(steps, losses, linewidth=1.2)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title(args.title or f"{args.metrics}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"loss plot ({len(steps)} steps, {losses[0]:.4f} -> "
          f"{losses[-1]:.4f}): {args.output}")


if __name__ == "__main__":
    main()
