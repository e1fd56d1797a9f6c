"""Samples text from a character-level model trained by Loom: runs an
inference artifact of the model (compiled for a batch of one window) on
parameters exported from a checkpoint (loom-ckpt export), one character at
a time.

    python -m loom.generate ARTIFACT --params FILE.safetensors
        --vocab vocab.json [--prompt TEXT] [--length N] [--temperature T]
        [--seed S]
"""

import argparse
import json
import sys

import numpy as np

from loom.runtime import LoomError, Program


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact")
    parser.add_argument("--params", required=True)
    parser.add_argument("--vocab", required=True)
    parser.add_argument("--prompt", default="The ")
    parser.add_argument("--length", type=int, default=200)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    chars = json.load(open(args.vocab))["chars"]
    index = {c: i for i, c in enumerate(chars)}
    missing = sorted(set(args.prompt) - set(index))
    if missing:
        sys.exit(f"generate: the prompt has characters outside the "
                 f"vocabulary: {''.join(missing)!r}")
    try:
        program = Program(args.artifact)
        program.load_parameters(args.params)
    except LoomError as e:
        sys.exit(f"generate: {e}")
    name, dtype, shape = program.inputs[0]
    if len(shape) != 2 or shape[0] != 1:
        sys.exit(f"generate: {args.artifact} takes {name} of shape {shape}; "
                 "compile it with --input-shape NAME=1xSEQ")
    window = shape[1]
    rng = np.random.default_rng(args.seed)
    tokens = [index[c] for c in args.prompt]
    ids = np.zeros(shape, dtype)
    for _ in range(args.length):
        context = tokens[-window:]
        ids[0, :] = 0
        ids[0, :len(context)] = context
        # Causal attention: padding after the context does not change the
        # logits of its last position.
        logits = program.run({name: ids})["logits"][0, len(context) - 1]
        z = logits.astype(np.float64) / max(args.temperature, 1e-6)
        p = np.exp(z - z.max())
        tokens.append(int(rng.choice(len(p), p=p / p.sum())))
    print("".join(chars[t] for t in tokens))


if __name__ == "__main__":
    main()
