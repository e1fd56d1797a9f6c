"""Malformed, hostile and unsupported ONNX models for the importer's tests.

    python -m loom.testing.bad_onnx KIND OUTDIR

writes OUTDIR/model.onnx (plus any files it refers to). Each kind breaks one
rule the importer must enforce; see KINDS.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from loom.testing.onnx_models import mlp


def tiny(initializer=None, nodes=None, inputs=None, opset=17):
    """y = x + w with w a [4] float initializer (replaceable)."""
    w = initializer or numpy_helper.from_array(
        np.arange(4, dtype=np.float32), "w")
    graph = helper.make_graph(
        nodes or [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        "tiny",
        inputs or [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def write(model, out):
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString() if not isinstance(model, bytes)
                else model)


def external(out, location, offset=None, length=None, extra=None,
             data=np.arange(4, dtype=np.float32).tobytes()):
    """tiny() with w stored externally at `location` (data written to
    OUTDIR/data.bin unless the kind arranges its own files)."""
    w = onnx.TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.append(4)
    w.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    entries += extra or []
    for key, value in entries:
        e = w.external_data.add()
        e.key, e.value = key, value
    if data is not None:
        with open(os.path.join(out, "data.bin"), "wb") as f:
            f.write(data)
    write(tiny(initializer=w), out)


def kind_empty(out):
    write(b"", out)


def kind_truncated(out):
    data = mlp().SerializeToString()
    write(data[: len(data) // 2], out)


def kind_garbage(out):
    write(np.random.RandomState(7).bytes(4096), out)


def kind_ir_version(out):
    model = tiny()
    model.ir_version = 99
    write(model, out)


def kind_no_opset(out):
    model = tiny()
    del model.opset_import[:]
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    write(model, out)


def kind_dims_overflow(out):
    w = onnx.TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([2 ** 40, 2 ** 40])
    write(tiny(initializer=w), out)


def kind_raw_short(out):
    w = numpy_helper.from_array(np.arange(4, dtype=np.float32), "w")
    w.raw_data = w.raw_data[:10]
    write(tiny(initializer=w), out)


def kind_unsorted(out):
    nodes = [helper.make_node("Relu", ["t"], ["y"], name="second"),
             helper.make_node("Add", ["x", "w"], ["t"], name="first")]
    write(tiny(nodes=nodes), out)


def kind_undefined(out):
    write(tiny(nodes=[helper.make_node("Add", ["x", "nowhere"], ["y"],
                                       name="add")]), out)


def kind_duplicate(out):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="a"),
             helper.make_node("Neg", ["x"], ["y"], name="b")]
    write(tiny(nodes=nodes), out)


def kind_unsupported(out):
    nodes = [helper.make_node("Add", ["x", "w"], ["a"], name="ok"),
             helper.make_node("Hardmax", ["a"], ["b"], name="hm"),
             helper.make_node("Foo", ["b"], ["c"], name="custom",
                              domain="com.example"),
             helper.make_node("Celu", ["c"], ["y"], name="celu")]
    model = tiny(nodes=nodes)
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    write(model, out)


def kind_bad_dtype(out):
    inputs = [helper.make_tensor_value_info("x", TensorProto.STRING, [4])]
    write(tiny(inputs=inputs), out)


def kind_huge(out):
    """A file over protobuf's 2 GiB limit (sparse: no disk is used)."""
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.truncate(2 ** 31 + 16)


def kind_ext_good(out):
    data = b"\0" * 8 + np.arange(4, dtype=np.float32).tobytes()
    external(out, "data.bin", offset=8, length=16, data=data)


def kind_ext_absolute(out):
    external(out, "/etc/passwd")


def kind_ext_dotdot(out):
    external(out, "sub/../../data.bin")


def kind_ext_symlink(out):
    outside = os.path.join(out, "outside")
    inside = os.path.join(out, "model")
    os.makedirs(outside)
    os.makedirs(inside)
    with open(os.path.join(outside, "secret.bin"), "wb") as f:
        f.write(np.arange(4, dtype=np.float32).tobytes())
    os.symlink("../outside", os.path.join(inside, "weights"))
    external(inside, "weights/secret.bin", data=None)


def kind_ext_hardlink(out):
    external(out, "data.bin")
    os.link(os.path.join(out, "data.bin"), os.path.join(out, "alias.bin"))


def kind_ext_unknown_key(out):
    external(out, "data.bin", extra=[("compression", "zstd")])


def kind_ext_negative_offset(out):
    external(out, "data.bin", offset=-4)


def kind_ext_overflow_offset(out):
    external(out, "data.bin", offset=99999999999999999999999)


def kind_ext_beyond_end(out):
    external(out, "data.bin", offset=8, length=16)


def kind_ext_wrong_length(out):
    external(out, "data.bin", offset=0, length=12)


def kind_ext_fifo(out):
    os.mkfifo(os.path.join(out, "pipe.bin"))
    external(out, "pipe.bin", data=None)


def kind_ext_missing(out):
    external(out, "nothere.bin", data=None)


KINDS = {name[len("kind_"):]: fn for name, fn in globals().items()
         if name.startswith("kind_")}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in KINDS:
        sys.exit("usage: python -m loom.testing.bad_onnx KIND OUTDIR\n"
                 "kinds: " + " ".join(sorted(KINDS)))
    os.makedirs(argv[1], exist_ok=True)
    KINDS[argv[0]](argv[1])


if __name__ == "__main__":
    main()
