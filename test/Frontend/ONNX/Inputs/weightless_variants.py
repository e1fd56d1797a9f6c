"""Variants of a weightless model for the --parameter-inputs tests.

    python weightless_variants.py MODEL.onnx OUTDIR

writes OUTDIR/nometa.onnx (no loom.parameter_inputs metadata),
meta-empty.onnx (an empty regex), meta-bad.onnx (an invalid regex) and
meta-none.onnx (a regex that matches no input).
"""
import os
import sys

import onnx


def main():
    source, outdir = sys.argv[1], sys.argv[2]
    for name, value in [("nometa", None), ("meta-empty", ""),
                        ("meta-bad", "h.(0"), ("meta-none", "nothing")]:
        model = onnx.load(source)
        del model.metadata_props[:]
        if value is not None:
            onnx.helper.set_model_props(
                model, {"loom.parameter_inputs": value})
        onnx.save(model, os.path.join(outdir, name + ".onnx"))


if __name__ == "__main__":
    main()
