"""gemm_model.py DIR: writes DIR/gemm.onnx, whose every op the CUDA target
runs as a cuBLASLt GEMM (MatMul, Gemm with transB, a batched MatMul), its
inputs DIR/{x,a,b}.npy and the outputs numpy computes, DIR/expected/*.npy;
and DIR/linear2.onnx, two linear layers without bias (h = x w1, q = h w2),
which tensor parallelism splits into GEMMs and an all_reduce, with
DIR/expected2/q.npy.
Under the host stand-in for cuBLASLt (runtime/devices/cuda/test) the
artifact's outputs are exact, so a run checks the GEMMs' layouts."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "expected"), exist_ok=True)
    rng = np.random.RandomState(7)
    w = rng.randn(16, 8).astype(np.float32)
    v = rng.randn(12, 16).astype(np.float32)
    x = rng.randn(4, 16).astype(np.float32)
    a = rng.randn(3, 4, 16).astype(np.float32)
    b = rng.randn(3, 16, 5).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["y"]),
        helper.make_node("Gemm", ["x", "v"], ["z"], transB=1),
        helper.make_node("MatMul", ["a", "b"], ["p"]),
    ]
    graph = helper.make_graph(
        nodes, "gemms",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16]),
         helper.make_tensor_value_info("a", TensorProto.FLOAT, [3, 4, 16]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [3, 16, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 12]),
         helper.make_tensor_value_info("p", TensorProto.FLOAT, [3, 4, 5])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(v, "v")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "gemm.onnx"))
    for name, value in [("x", x), ("a", a), ("b", b)]:
        np.save(os.path.join(out, name + ".npy"), value)
    for name, value in [("y", x @ w), ("z", x @ v.T), ("p", a @ b)]:
        np.save(os.path.join(out, "expected", name + ".npy"), value)

    w1 = rng.randn(16, 32).astype(np.float32)
    w2 = rng.randn(32, 8).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"]),
         helper.make_node("MatMul", ["h", "w2"], ["q"])], "linear2",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("q", TensorProto.FLOAT, [4, 8])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "linear2.onnx"))
    os.makedirs(os.path.join(out, "expected2"), exist_ok=True)
    np.save(os.path.join(out, "expected2", "q.npy"), (x @ w1) @ w2)


if __name__ == "__main__":
    main()
