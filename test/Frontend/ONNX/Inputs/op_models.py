"""Single-operator models exercising opset-dependent semantics.

    python op_models.py OUTDIR   # writes OUTDIR/<case>.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper


def vi(name, shape, dtype=T.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def model(opset, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7 if opset < 15 else 8
    return m


N = helper.make_node
_W = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
CASES = {
    # Gemm: Y = alpha * A^T B + beta * C
    "gemm": model(13, [N("Gemm", ["a", "b", "c"], ["y"], alpha=2.0, beta=0.5,
                         transA=1)],
                  [vi("a", [3, 2]), vi("b", [3, 4]), vi("c", [4])],
                  [vi("y", [2, 4])]),
    # Split: sizes as an input (13), equal parts, uneven num_outputs (18).
    "split13": model(13, [N("Split", ["x", "s"], ["a", "b"], axis=1)],
                     [vi("x", [2, 5])], [vi("a", None), vi("b", None)],
                     [const("s", [2, 3])]),
    "split11": model(11, [N("Split", ["x"], ["a", "b"], axis=1, split=[1, 4])],
                     [vi("x", [2, 5])], [vi("a", None), vi("b", None)]),
    "split18": model(18, [N("Split", ["x"], ["a", "b", "c"], axis=1,
                            num_outputs=3)],
                     [vi("x", [2, 7])],
                     [vi("a", None), vi("b", None), vi("c", None)]),
    # Squeeze without axes removes every size-1 dimension.
    "squeeze": model(13, [N("Squeeze", ["x"], ["y"])], [vi("x", [1, 3, 1])],
                     [vi("y", None)]),
    # Unsqueeze axes: attribute (11), input with a negative axis (13).
    "unsqueeze11": model(11, [N("Unsqueeze", ["x"], ["y"], axes=[0, 3])],
                         [vi("x", [2, 3])], [vi("y", None)]),
    "unsqueeze13": model(13, [N("Unsqueeze", ["x", "a"], ["y"])],
                         [vi("x", [2, 3])], [vi("y", None)],
                         [const("a", [-1])]),
    # ReduceSum axes: attribute (11), input (13), keepdims=0.
    "reducesum11": model(11, [N("ReduceSum", ["x"], ["y"], axes=[-1],
                                keepdims=0)],
                         [vi("x", [2, 3])], [vi("y", None)]),
    "reducesum13": model(13, [N("ReduceSum", ["x", "a"], ["y"], keepdims=1)],
                         [vi("x", [2, 3])], [vi("y", None)],
                         [const("a", [0])]),
    "reducemean18_empty": model(18, [N("ReduceMean", ["x"], ["y"],
                                       keepdims=0)],
                                [vi("x", [2, 3])], [vi("y", None)]),
    # Slice with negative indices, a negative step and out-of-range ends.
    "slice": model(13, [N("Slice", ["x", "s", "e", "a", "st"], ["y"])],
                   [vi("x", [4, 10])], [vi("y", None)],
                   [const("s", [-1, 100]), const("e", [-1000, 1]),
                    const("a", [1, 0]), const("st", [-3, -1])]),
    # Pad: negative pads crop; reflect mode; constant value input.
    "pad": model(13, [N("Pad", ["x", "p", "v"], ["y"])],
                 [vi("x", [4, 4])], [vi("y", None)],
                 [const("p", [1, -1, 0, 2]), const("v", 1.5, np.float32)]),
    "pad_reflect": model(13, [N("Pad", ["x", "p"], ["y"], mode="reflect")],
                         [vi("x", [4, 4])], [vi("y", None)],
                         [const("p", [0, 2, 0, 1])]),
    "pad_wrap": model(19, [N("Pad", ["x", "p"], ["y"], mode="wrap")],
                      [vi("x", [4, 4])], [vi("y", None)],
                      [const("p", [0, 5, 0, 1])]),
    # Clip: attributes before 11, optional inputs after.
    "clip6": model(6, [N("Clip", ["x"], ["y"], min=-1.0, max=1.0)],
                   [vi("x", [3])], [vi("y", None)]),
    "clip13": model(13, [N("Clip", ["x", "", "hi"], ["y"])],
                    [vi("x", [3])], [vi("y", None)],
                    [const("hi", 6.0, np.float32)]),
    # Softmax before 13 flattens at axis (default 1).
    "softmax11": model(11, [N("Softmax", ["x"], ["y"])], [vi("x", [2, 3, 4])],
                       [vi("y", None)]),
    "softmax13": model(13, [N("LogSoftmax", ["x"], ["y"])],
                       [vi("x", [2, 3, 4])], [vi("y", None)]),
    # MatMul with rank-1 operands.
    "matmul_vec": model(13, [N("MatMul", ["v", "m"], ["y"])],
                        [vi("v", [3]), vi("m", [2, 3, 4])], [vi("y", None)]),
    # 1-D convolution is lifted to 2-D; pools take 1 to 3 spatial dimensions.
    "conv1d": model(13, [N("Conv", ["x", "w"], ["y"], pads=[1, 1])],
                    [vi("x", [1, 2, 8]), vi("w", [4, 2, 3])], [vi("y", None)]),
    "avgpool": model(13, [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                            strides=[2, 2], pads=[1, 1, 1, 1],
                            count_include_pad=1, ceil_mode=1)],
                     [vi("x", [1, 1, 6, 6])], [vi("y", None)]),
    "avgpool_dilated": model(19, [N("AveragePool", ["x"], ["y"],
                                    kernel_shape=[2, 2], dilations=[2, 1])],
                             [vi("x", [1, 1, 4, 4])], [vi("y", None)]),
    "maxpool1d": model(13, [N("MaxPool", ["x"], ["y"], kernel_shape=[3],
                              pads=[1, 0])],
                       [vi("x", [2, 3, 8])], [vi("y", None)]),
    "maxpool3d": model(13, [N("MaxPool", ["x"], ["y"], kernel_shape=[2, 2, 2],
                              strides=[2, 1, 1], pads=[0, 0, 1, 0, 0, 1],
                              dilations=[1, 2, 1])],
                       [vi("x", [1, 2, 4, 5, 6])], [vi("y", None)]),
    # Expand broadcasts both ways.
    "expand": model(13, [N("Expand", ["x", "s"], ["y"])],
                    [vi("x", [3, 1])], [vi("y", None)],
                    [const("s", [2, 1, 4])]),
    "tile": model(13, [N("Tile", ["x", "r"], ["y"])], [vi("x", [2, 3])],
                  [vi("y", None)], [const("r", [2, 1])]),
    "flatten": model(13, [N("Flatten", ["x"], ["y"], axis=-1)],
                     [vi("x", [2, 3, 4])], [vi("y", None)]),
    "leakyrelu": model(13, [N("LeakyRelu", ["x"], ["y"], alpha=0.2)],
                       [vi("x", [3])], [vi("y", None)]),
    "range": model(13, [N("Range", ["s", "l", "d"], ["y"])], [],
                   [vi("y", None)],
                   [const("s", 1.0, np.float32), const("l", 2.0, np.float32),
                    const("d", 0.25, np.float32)]),
    "constantofshape": model(13, [N("ConstantOfShape", ["s"], ["y"],
                                    value=numpy_helper.from_array(
                                        np.array([7], np.int32)))],
                             [], [vi("y", None)], [const("s", [2, 2])]),
    "trilu": model(14, [N("Trilu", ["x", "k"], ["y"], upper=1)],
                   [vi("x", [3, 3])], [vi("y", None)], [const("k", 1)]),
    # Shape's start/end (15) and Size fold to constants.
    "shape15": model(15, [N("Shape", ["x"], ["y"], start=1, end=-1)],
                     [vi("x", [2, 3, 4, 5])], [vi("y", None)]),
    "size": model(13, [N("Size", ["x"], ["y"])], [vi("x", [2, 3])],
                  [vi("y", None)]),
    "equal_bool": model(13, [N("Equal", ["a", "b"], ["y"])],
                        [vi("a", [3], T.BOOL), vi("b", [3], T.BOOL)],
                        [vi("y", None)]),
    "max3": model(13, [N("Max", ["a", "b", "c"], ["y"])],
                  [vi("a", [3]), vi("b", [1]), vi("c", [3])], [vi("y", None)]),
    "dropout_mask": model(13, [N("Dropout", ["x"], ["y", "m"])],
                          [vi("x", [3])], [vi("y", None), vi("m", None)]),
    "pow_int_exponent": model(13, [N("Pow", ["x", "e"], ["y"])],
                              [vi("x", [3])], [vi("y", None)],
                              [const("e", 2, np.int64)]),
    # Integer bases: an exponent of another integer type is cast to the wider
    # of the two; a floating-point one makes the power an f64 one.
    "pow_int_int": model(15, [N("Pow", ["x", "e"], ["y"])],
                         [vi("x", [3], T.INT64), vi("e", [3], T.INT32)],
                         [vi("y", None)]),
    "pow_int_wide": model(15, [N("Pow", ["x", "e"], ["y"])],
                          [vi("x", [3], T.INT32), vi("e", [3], T.INT64)],
                          [vi("y", None)]),
    "pow_int_float": model(15, [N("Pow", ["x", "e"], ["y"])],
                           [vi("x", [3], T.INT32), vi("e", [3])],
                           [vi("y", None)]),
    # Boolean ReduceMax and ReduceMin reduce 0s and 1s.
    "reducemax_bool": model(20, [N("ReduceMax", ["x", "a"], ["y"],
                                   keepdims=0)],
                            [vi("x", [4, 2], T.BOOL)], [vi("y", None)],
                            [const("a", [1])]),
    "cast": model(13, [N("Cast", ["x"], ["y"], to=T.BFLOAT16)],
                  [vi("x", [3])], [vi("y", None)]),
    "reshape_allowzero": model(14, [N("Reshape", ["x", "s"], ["y"])],
                               [vi("x", [2, 3, 4])], [vi("y", None)],
                               [const("s", [0, -1])]),
    "gather_negative": model(13, [N("Gather", ["x", "i"], ["y"], axis=-1)],
                             [vi("x", [2, 5])], [vi("y", None)],
                             [const("i", [[-1, 0]])]),
    "global_max_pool_1d": model(13, [N("GlobalMaxPool", ["x"], ["y"])],
                                [vi("x", [2, 3, 7])], [vi("y", None)]),
    "maxpool_same": model(13, [N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3],
                                 strides=[2, 2], auto_pad="SAME_LOWER")],
                          [vi("x", [1, 1, 5, 5])], [vi("y", None)]),
    # beta = 0 leaves C out (its NaNs included).
    "gemm_beta0": model(13, [N("Gemm", ["a", "b", "c"], ["y"], beta=0.0)],
                        [vi("a", [2, 2]), vi("b", [2, 2]), vi("c", [2])],
                        [vi("y", None)]),
    # Before opset 10 Dropout's mask has the data's type.
    "dropout9_mask": model(9, [N("Dropout", ["x"], ["y", "m"]),
                               N("Mul", ["y", "m"], ["z"])],
                           [vi("x", [3])], [vi("z", None)]),
    # LayerNormalization's Mean and InvStdDev are computed in stash_type.
    "layernorm_stats": model(17, [N("LayerNormalization", ["x", "g"],
                                    ["y", "mean", "inv"], axis=-1)],
                             [vi("x", [2, 4], T.FLOAT16), vi("g", [4], T.FLOAT16)],
                             [vi("y", None), vi("mean", None), vi("inv", None)]),
    # An int64 padding value keeps all its 64 bits.
    "pad_int64": model(13, [N("Pad", ["x", "p", "v"], ["y"])],
                       [vi("x", [2], T.INT64)], [vi("y", None)],
                       [const("p", [1, 0]), const("v", 2 ** 53 + 1)]),
    # Storage types: uint8 data (raw), int4 packed two per byte (an odd
    # count, typed field), float8 bits, and Cast without saturation.
    "storage_types": model(
        21, [N("Add", ["x", "u"], ["y"]),
             N("Cast", ["i4"], ["z"], to=T.INT8),
             N("Cast", ["f8"], ["w"], to=T.FLOAT),
             N("Cast", ["w"], ["q"], to=T.FLOAT8E5M2, saturate=0)],
        [vi("x", [3], T.UINT8)],
        [vi("y", None), vi("z", None), vi("w", None), vi("q", None)],
        [numpy_helper.from_array(np.array([1, 200, 255], np.uint8), "u"),
         helper.make_tensor("i4", T.INT4, [3], [-8, 7, -1]),
         helper.make_tensor("f8", T.FLOAT8E4M3FN, [2], [448.0, -0.5])]),
    # MaxPool's Indices: flat over the whole input, row- or column-major.
    "maxpool_indices": model(12, [N("MaxPool", ["x"], ["y", "i"],
                                    kernel_shape=[2, 2], strides=[2, 2])],
                             [vi("x", [2, 3, 4, 4])],
                             [vi("y", None), vi("i", None)]),
    "maxpool_indices_colmajor": model(12, [N("MaxPool", ["x"], ["y", "i"],
                                             kernel_shape=[3, 3],
                                             pads=[1, 1, 1, 1],
                                             storage_order=1)],
                                      [vi("x", [1, 1, 5, 5])],
                                      [vi("y", None), vi("i", None)]),
    # Training with a constant ratio of 0 drops nothing.
    "dropout_training_zero": model(13, [N("Dropout", ["x", "r", "t"],
                                          ["y", "m"])],
                                   [vi("x", [3])],
                                   [vi("y", None), vi("m", None)],
                                   [const("r", 0.0, np.float32),
                                    const("t", True, np.bool_)]),
    # BatchNormalization in training mode normalises with the batch's
    # statistics and updates the running ones.
    "batchnorm_training": model(15, [N("BatchNormalization",
                                       ["x", "s", "b", "m", "v"],
                                       ["y", "rm", "rv"], training_mode=1,
                                       momentum=0.75)],
                                [vi("x", [2, 3, 4]), vi("s", [3]),
                                 vi("b", [3]), vi("m", [3]), vi("v", [3])],
                                [vi("y", None), vi("rm", None),
                                 vi("rv", None)]),
    # Cos and Sin of an input, and of a constant (folded at import).
    "trig": model(17, [N("Cos", ["x"], ["c"]), N("Sin", ["x"], ["s"]),
                       N("Constant", [], ["k"],
                         value=numpy_helper.from_array(
                             np.array([0.0, np.pi], np.float32), "k")),
                       N("Cos", ["k"], ["ck"]), N("Add", ["c", "ck"], ["y"]),
                       N("Add", ["y", "s"], ["z"])],
                  [vi("x", [2])], [vi("z", None)]),
    # Training-mode BatchNorm whose running statistics are initializers:
    # with --train they are state, returned as `state:` results.
    "batchnorm_state": model(17, [N("BatchNormalization",
                                    ["x", "s", "b", "m", "v"], ["y"],
                                    training_mode=1, momentum=0.75),
                                  N("ReduceMean", ["y"], ["l"], keepdims=0)],
                             [vi("x", [2, 3, 4])], [vi("l", None)],
                             [numpy_helper.from_array(np.array(
                                 [1.0, 2.0, 3.0], np.float32), "s"),
                              numpy_helper.from_array(np.array(
                                  [0.5, 0.25, 0.125], np.float32), "b"),
                              numpy_helper.from_array(np.array(
                                  [0.0, 0.1, 0.2], np.float32), "m"),
                              numpy_helper.from_array(np.array(
                                  [1.0, 1.5, 2.0], np.float32), "v")]),
    # An exporter's copies of one weight: "wt" is the transpose of "w" and
    # "w2" a copy of it (tied back); "one_a" and "one_b" are equal but
    # constant (all ones), which is no evidence of a copy (kept apart).
    "tied": model(17, [N("MatMul", ["x", "w"], ["h"]),
                       N("MatMul", ["h", "wt"], ["g"]),
                       N("Add", ["g", "one_a"], ["p"]),
                       N("Add", ["p", "one_b"], ["q"]),
                       N("MatMul", ["q", "w2"], ["y"])],
                  [vi("x", [2, 4])], [vi("y", None)],
                  [numpy_helper.from_array(_W, "w"),
                   numpy_helper.from_array(_W.T.copy(), "wt"),
                   numpy_helper.from_array(_W.copy(), "w2"),
                   numpy_helper.from_array(np.ones(4, np.float32), "one_a"),
                   numpy_helper.from_array(np.ones(4, np.float32), "one_b")]),
    # torch.onnx.export merges initializers of equal value and names the
    # others by Identity nodes: "b.weight" is a parameter of its own again.
    # An Identity of a tensor that is not uniform is left as it is.
    "merged": model(17, [N("Identity", ["a.weight"], ["b.weight"]),
                         N("Identity", ["w"], ["w_alias"]),
                         N("Mul", ["x", "a.weight"], ["p"]),
                         N("Mul", ["p", "b.weight"], ["q"]),
                         N("MatMul", ["q", "w_alias"], ["y"])],
                    [vi("x", [2, 4])], [vi("y", None)],
                    [numpy_helper.from_array(np.ones(4, np.float32),
                                             "a.weight"),
                     numpy_helper.from_array(_W, "w")]),
    # A folded export's nn.Linear weight: stored transposed as
    # "onnx::MatMul_7", read by the MatMul of module /m/proj: it becomes
    # "m.proj.weight" in PyTorch's layout. "onnx::MatMul_8" is read by two
    # modules' MatMuls and keeps its name.
    "folded_linear": model(17, [N("MatMul", ["x", "onnx::MatMul_7"], ["h"],
                                  name="/m/proj/MatMul"),
                                N("MatMul", ["h", "onnx::MatMul_8"], ["g"],
                                  name="/m/a/MatMul"),
                                N("MatMul", ["g", "onnx::MatMul_8"], ["y"],
                                  name="/m/b/MatMul")],
                           [vi("x", [2, 4])], [vi("y", None)],
                           [numpy_helper.from_array(_W, "onnx::MatMul_7"),
                            numpy_helper.from_array(
                                (np.arange(9, dtype=np.float32) / 5 - 1)
                                .reshape(3, 3), "onnx::MatMul_8")]),
    # Variants that are valid ONNX but not supported: exit code 3.
    "conv3d": model(13, [N("Conv", ["x", "w"], ["y"])],
                    [vi("x", [1, 1, 4, 4, 4]), vi("w", [1, 1, 2, 2, 2])],
                    [vi("y", None)]),
    "batchnorm9_training": model(9, [N("BatchNormalization",
                                       ["x", "s", "b", "m", "v"],
                                       ["y", "rm", "rv", "sm", "sv"])],
                                 [vi("x", [2, 3]), vi("s", [3]), vi("b", [3]),
                                  vi("m", [3]), vi("v", [3])],
                                 [vi("y", None)]),
    "reshape_runtime_shape": model(13, [N("Reshape", ["x", "s"], ["y"])],
                                   [vi("x", [2, 3]), vi("s", [2], T.INT64)],
                                   [vi("y", None)]),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in CASES.items():
        onnx.save_model(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
