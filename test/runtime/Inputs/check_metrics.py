"""check_metrics.py A.jsonl [B.jsonl] [options]: checks loomrun --train
metrics. Every line must be a JSON object with the documented keys. With
B, the two runs must have the same steps with bit-identical losses and
gradient norms (B may start later: a resumed run's metrics).
  --steps N        A has exactly the steps 1..N
  --decreasing     the last loss is below a quarter of the first
  --skipped S,...  exactly these steps were skipped
  --tokens         the lines have tokens_per_s
  --norm-ulps K    gradient norms may differ by up to K units in the last
                   place (float32) instead of none
Prints "ok" and a summary."""
import argparse
import json
import math
import sys

KEYS = {"step", "loss", "grad_norm", "lr", "step_time_s", "samples_per_s",
        "skipped"}


def load(path, tokens):
    lines = []
    with open(path) as f:
        for number, text in enumerate(f, 1):
            line = json.loads(text)
            missing = KEYS - set(line)
            if tokens:
                missing |= {"tokens_per_s"} - set(line)
            if missing:
                sys.exit(f"{path}:{number}: missing {sorted(missing)}")
            lines.append(line)
    return lines


def bits(value):
    return "null" if value is None else float(value).hex()


def ulps(a, b):
    """The float32 units in the last place between a and b."""
    import struct
    ia, ib = (struct.unpack("<i", struct.pack("<f", v))[0] for v in (a, b))
    return abs(ia - ib)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b", nargs="?")
    parser.add_argument("--steps", type=int)
    parser.add_argument("--decreasing", action="store_true")
    parser.add_argument("--skipped", default=None)
    parser.add_argument("--tokens", action="store_true")
    parser.add_argument("--norm-ulps", type=int, default=0)
    args = parser.parse_args()
    a = load(args.a, args.tokens)
    steps = [line["step"] for line in a]
    if args.steps is not None and steps != list(range(1, args.steps + 1)):
        sys.exit(f"{args.a}: steps {steps}, expected 1..{args.steps}")
    if args.decreasing and not a[-1]["loss"] < a[0]["loss"] / 4:
        sys.exit(f"the loss went from {a[0]['loss']} to {a[-1]['loss']}")
    if args.skipped is not None:
        expected = [int(s) for s in args.skipped.split(",") if s]
        got = [line["step"] for line in a if line["skipped"]]
        if got != expected:
            sys.exit(f"skipped steps {got}, expected {expected}")
    summary = f"{len(a)} steps"
    if args.b:
        b = load(args.b, args.tokens)
        by_step = {line["step"]: line for line in a}
        for line in b:
            other = by_step.get(line["step"])
            if other is None:
                sys.exit(f"step {line['step']} of {args.b} is not in {args.a}")
            for key in ("loss", "grad_norm", "lr", "skipped"):
                if key == "grad_norm" and args.norm_ulps and \
                        line[key] is not None and other[key] is not None:
                    if ulps(line[key], other[key]) <= args.norm_ulps:
                        continue
                if bits(line[key]) != bits(other[key]) if key != "skipped" \
                        else line[key] != other[key]:
                    sys.exit(f"step {line['step']}: {key} {line[key]} in "
                             f"{args.b}, {other[key]} in {args.a}")
        summary += f", {len(b)} identical"
    print(f"ok: {summary}")


if __name__ == "__main__":
    main()
