"""check_tokens.py TOKENS.bin METRICS.jsonl --seed S --batch B --seq T:
recomputes the batches of loomrun's token loader (example i of step s
starts at hash(seed, s, i) mod (tokens - T), with hash = three rounds of
splitmix64) and checks each step's loss, the mean token id of the batch
(TrainProgram.c's "tokens"). Prints "N steps match"."""
import argparse
import json
import sys

import numpy as np

MASK = (1 << 64) - 1


def mix(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tokens")
    parser.add_argument("metrics")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--seq", type=int, required=True)
    args = parser.parse_args()
    tokens = np.fromfile(args.tokens, "<u2").astype(np.int64)
    windows = len(tokens) - args.seq - 1
    lines = [json.loads(line) for line in open(args.metrics)]
    for line in lines:
        s = line["step"] - 1
        total = 0
        for i in range(args.batch):
            start = mix(mix(mix(args.seed) ^ s) ^ i) % (windows + 1)
            total += int(tokens[start:start + args.seq].sum())
        expected = np.float32(total / (args.batch * args.seq))
        if np.float32(line["loss"]) != expected:
            sys.exit(f"step {line['step']}: loss {line['loss']}, expected "
                     f"{expected}")
    print(f"{len(lines)} steps match")


if __name__ == "__main__":
    main()
