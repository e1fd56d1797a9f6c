"""A character-level corpus for training examples: the licence texts every
Debian machine has (/usr/share/common-licenses), as a flat uint16 token file
(nanoGPT style) plus the vocabulary.

    python -m loom.testing.chardata OUTDIR [--source DIR]

writes OUTDIR/tokens.bin (little-endian uint16, one token per character) and
OUTDIR/vocab.json ({"chars": "...", "size": N}); prints the sizes.
"""

import argparse
import json
import os
import sys

import numpy as np


def read_corpus(source):
    """The text of every regular file under `source` (symlinks to files
    already read are skipped), in sorted order."""
    seen, parts = set(), []
    for name in sorted(os.listdir(source)):
        path = os.path.realpath(os.path.join(source, name))
        if path in seen or not os.path.isfile(path):
            continue
        seen.add(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            parts.append(f.read())
    return "\n".join(parts)


def encode(text, chars):
    index = {c: i for i, c in enumerate(chars)}
    return np.array([index[c] for c in text], dtype="<u2")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--source", default="/usr/share/common-licenses")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.source):
        sys.exit(f"chardata: no corpus directory {args.source!r}")
    text = read_corpus(args.source)
    chars = "".join(sorted(set(text)))
    os.makedirs(args.outdir, exist_ok=True)
    encode(text, chars).tofile(os.path.join(args.outdir, "tokens.bin"))
    with open(os.path.join(args.outdir, "vocab.json"), "w") as f:
        json.dump({"chars": chars, "size": len(chars)}, f)
    print(f"corpus: {len(text)} characters from {args.source}, "
          f"vocabulary of {len(chars)}")


if __name__ == "__main__":
    main()
