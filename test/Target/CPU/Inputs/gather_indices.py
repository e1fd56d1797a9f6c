"""A Gather whose indices are a graph input, with in-range and out-of-range
index files, for check-indices.test.

    python gather_indices.py OUTDIR
"""
import os
import sys

import numpy as np
from onnx import TensorProto as T, helper, numpy_helper

out = sys.argv[1]
table = numpy_helper.from_array(
    np.arange(15, dtype=np.float32).reshape(5, 3), "table")
graph = helper.make_graph(
    [helper.make_node("Gather", ["table", "i"], ["y"], name="lookup", axis=0)],
    "g", [helper.make_tensor_value_info("i", T.INT64, [2])],
    [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])], [table])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
with open(os.path.join(out, "gather.onnx"), "wb") as f:
    f.write(model.SerializeToString())
np.save(os.path.join(out, "good.npy"), np.array([4, -5], np.int64))
np.save(os.path.join(out, "bad.npy"), np.array([1, 7], np.int64))
