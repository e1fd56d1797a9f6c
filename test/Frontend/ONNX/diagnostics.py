"""Every diagnostic of the ONNX importer, one small model each: runs loomc
and checks the exit code (1: bad model, 3: unsupported) and the message.

    python diagnostics.py LOOMC WORKDIR
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

N = helper.make_node


def vi(name, shape, dtype=T.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def model(nodes, inputs, outputs=None, inits=(), opset=17, ir=8):
    g = helper.make_graph(nodes, "g", inputs,
                          outputs if outputs is not None else [vi("y", None)],
                          list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def op(op_type, inputs, inits=(), opset=17, outputs=("y",), **attrs):
    """One node named 'n' over graph inputs/initializers."""
    names = [i.name for i in inputs] + [t.name for t in inits]
    return model([N(op_type, names, list(outputs), name="n", **attrs)],
                 list(inputs), [vi(o, None) for o in outputs if o], inits,
                 opset)


def op_on(op_type, node_inputs, graph_inputs, inits=(), opset=17,
          outputs=("y",), **attrs):
    return model([N(op_type, node_inputs, list(outputs), name="n", **attrs)],
                 graph_inputs, [vi(o, None) for o in outputs if o], inits,
                 opset)


X = vi("x", [2, 3])
X4 = vi("x", [1, 1, 4, 4])


def tensor(name, dtype, dims, **fields):
    t = onnx.TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    for key, value in fields.items():
        getattr(t, key).extend(value) if isinstance(value, list) else \
            setattr(t, key, value)
    return t


def with_attrs(m, *attrs):
    """`m` with raw attributes appended to its first node."""
    m.graph.node[0].attribute.extend(attrs)
    return m


def raw_attr(name, attr_type, **fields):
    """An attribute whose declared type and value fields are set apart."""
    a = onnx.AttributeProto()
    a.name, a.type = name, attr_type
    for key, value in fields.items():
        getattr(a, key).extend(value) if isinstance(value, list) else \
            setattr(a, key, value)
    return a


A = onnx.AttributeProto
GATHER_IN = [vi("x", [5, 3]), vi("i", [2], T.INT64)]


def no_graph():
    m = onnx.ModelProto()
    m.ir_version = 8
    m.opset_import.append(helper.make_opsetid("", 17))
    return m


def no_version():
    m = onnx.ModelProto()
    m.producer_name = "nothing"
    return m


def set_opset(m, version):
    m.opset_import[0].version = version
    return m


def segmented():
    t = const("w", [1.0, 2.0], np.float32)
    t.segment.begin, t.segment.end = 0, 1
    return op("Add", [vi("x", [2])], [t])


def unnamed_init():
    t = const("", [1.0, 2.0], np.float32)
    return model([N("Relu", ["x"], ["y"], name="n")], [vi("x", [2])],
                 inits=[t])


def unnamed_input():
    return model([N("Relu", [""], ["y"], name="n")], [vi("", [2])])


def sequence_input():
    seq = helper.make_tensor_sequence_value_info("x", T.FLOAT, [2])
    return model([N("Identity", ["x"], ["y"], name="n")], [seq])


def unknown_rank():
    x = helper.make_tensor_value_info("x", T.FLOAT, None)
    return model([N("Relu", ["x"], ["y"], name="n")], [x])


def negative_dim():
    x = vi("x", [2])
    x.type.tensor_type.shape.dim[0].dim_value = -3
    return model([N("Relu", ["x"], ["y"], name="n")], [x])


CASES = [
    # (name, model, exit code, message)
    ("no_version", no_version(), 1, "not an ONNX model (no IR version and no graph)"),
    ("no_graph", no_graph(), 1, "the model has no graph"),
    ("opset_zero", set_opset(op("Relu", [X]), 0), 1, "invalid opset version 0"),
    ("opset_new", set_opset(op("Relu", [X]), 99), 3,
     "opset 99 is newer than Loom supports (up to 21)"),
    ("old_opset_op", op("Gelu", [X], opset=17), 3,
     "Gelu (domain ai.onnx, opset 17): supported from opset 20"),
    ("sequence_input", sequence_input(), 3,
     "graph input 'x' is not a tensor (sequences, maps and optionals are not supported)"),
    ("unknown_rank", unknown_rank(), 3, "graph input 'x' has no shape (unknown rank)"),
    ("negative_input_dim", negative_dim(), 1, "graph input 'x' has negative dimension -3"),
    ("huge_input", op("Relu", [vi("x", [2 ** 30, 2 ** 30])]), 1,
     "graph input 'x' has more than 2^48 elements"),
    ("unnamed_initializer", unnamed_init(), 1, "an initializer has no name"),
    ("segmented_initializer", segmented(), 3, "initializer 'w' is segmented"),
    ("unnamed_input", unnamed_input(), 1, "a graph input has no name"),
    ("unused_output", model([N("Relu", ["x"], ["y", "z"], name="n")], [X],
                            [vi("y", None), vi("z", None)]), 3,
     "output #1 ('z') is not supported"),
    ("output_undefined", model([N("Relu", ["x"], ["y"], name="n")], [X],
                               [vi("nowhere", None)]), 1,
     "graph output 'nowhere' is never defined"),
    ("no_outputs", model([N("Relu", ["x"], ["y"], name="n")], [X], []), 1,
     "the graph has no outputs"),
    # Tensors.
    ("unsupported_dtype", op("Relu", [vi("x", [2], T.STRING)]), 3,
     "graph input 'x' has data type STRING, which Loom does not support"),
    ("newer_dtype", op("Relu", [vi("x", [2], 23)]), 3,
     "graph input 'x' has data type FLOAT4E2M1, which Loom does not support"),
    ("storage_only_dtype", op("Relu", [vi("x", [2], 17)]), 3,
     "(Relu): input #0 ('x') has data type FLOAT8E4M3FN, which Loom only "
     "converts (Cast) and moves; cast it to a computable type first"),
    ("int4_compute", op("Add", [vi("x", [2], 22), vi("y", [2], 22)]), 3,
     "(Add): input #0 ('x') has data type INT4, which Loom only converts"),
    ("invalid_dtype", op("Relu", [vi("x", [2], 99)]), 1,
     "graph input 'x' has invalid data type 99"),
    ("negative_tensor_dim", op("Add", [vi("x", [2])],
                               [tensor("w", T.FLOAT, [-2])]), 1,
     "tensor 'w' has negative dimension -2"),
    ("huge_tensor", op("Add", [vi("x", [2])],
                       [tensor("w", T.FLOAT, [2 ** 30, 2 ** 30])]), 1,
     "tensor 'w' has more than 2^48 elements"),
    ("typed_field_count", op("Add", [vi("x", [3])],
                             [tensor("w", T.FLOAT, [3], float_data=[1.0])]), 1,
     "tensor 'w' declares 3 elements but its float_data holds 1"),
    ("int64_field_count", op("Add", [vi("x", [2], T.INT64)],
                             [tensor("w", T.INT64, [2], int64_data=[1, 2, 3])]),
     1, "tensor 'w' declares 2 elements but its int64_data holds 3"),
    # Attributes: the type the operator expects, the value in its field.
    ("attr_float_axis", op("Gather", GATHER_IN, axis=1.5), 1,
     "node 'n' (Gather): attribute 'axis' must be INT, but it is FLOAT"),
    ("attr_int_in_f", with_attrs(op("Gather", GATHER_IN),
                                 raw_attr("axis", A.INT, f=1.0)), 1,
     "node 'n' (Gather): attribute 'axis' is INT, whose value belongs in "
     "field 'i', but the fields set are 'f'"),
    ("attr_int_in_ints", with_attrs(op("Gather", GATHER_IN),
                                    raw_attr("axis", A.INT, ints=[1])), 1,
     "attribute 'axis' is INT, whose value belongs in field 'i', but the "
     "fields set are 'ints'"),
    ("attr_int_two_fields", with_attrs(op("Gather", GATHER_IN),
                                       raw_attr("axis", A.INT, i=0, f=1.0)), 1,
     "but the fields set are 'f', 'i'"),
    ("attr_int_no_value", with_attrs(op("Gather", GATHER_IN),
                                     raw_attr("axis", A.INT)), 1,
     "attribute 'axis' is INT, whose value belongs in field 'i', but no "
     "field is set"),
    ("attr_undefined_type", with_attrs(op("Gather", GATHER_IN),
                                       raw_attr("axis", A.UNDEFINED, i=1)), 1,
     "attribute 'axis' must be INT, but it is UNDEFINED"),
    ("attr_twice", with_attrs(op("Gather", GATHER_IN, axis=0),
                              raw_attr("axis", A.INT, i=1)), 1,
     "attribute 'axis' is given more than once"),
    ("attr_ints_as_floats", op("Transpose", [X], perm=[1.0, 0.0]), 1,
     "node 'n' (Transpose): attribute 'perm' must be INTS, but it is FLOATS"),
    ("attr_string_as_int", op("Gelu", [X], opset=20, approximate=1), 1,
     "attribute 'approximate' must be STRING, but it is INT"),
    ("attr_float_as_int", op("LeakyRelu", [X], alpha=1), 1,
     "attribute 'alpha' must be FLOAT, but it is INT"),
    ("attr_cast_to_float", op("Cast", [X], to=1.0), 1,
     "node 'n' (Cast): attribute 'to' must be INT, but it is FLOAT"),
    ("attr_clip_min_int", op("Clip", [X], opset=6, min=0), 1,
     "attribute 'min' must be FLOAT, but it is INT"),
    ("attr_constant_value_int", model([N("Constant", [], ["y"], name="n",
                                         value_int=1.5)], []), 1,
     "attribute 'value_int' must be INT, but it is FLOAT"),
    ("attr_cos_value", op("ConstantOfShape", [], [const("s", [2])], value=0), 1,
     "attribute 'value' must be TENSOR, but it is INT"),
    # Tensors keep their data in one place: their type's field or raw_data.
    ("tensor_two_sources", op("Add", [vi("x", [2])],
                              [tensor("w", T.FLOAT, [2], raw_data=bytes(8),
                                      float_data=[1.0, 2.0])]), 1,
     "tensor 'w' has data in more than one place (raw_data, float_data); it "
     "must have exactly one"),
    ("tensor_int_two_sources", op("Add", [vi("x", [2], T.INT64)],
                                  [tensor("w", T.INT64, [2], raw_data=bytes(16),
                                          int64_data=[1, 2])]), 1,
     "tensor 'w' has data in more than one place (raw_data, int64_data)"),
    ("tensor_wrong_field", op("Add", [vi("x", [2])],
                              [tensor("w", T.FLOAT, [2], int64_data=[1, 2])]), 1,
     "tensor 'w' holds its values in int64_data, but values of its data type "
     "belong in float_data"),
    ("tensor_external_not_located", op("Add", [vi("x", [2])],
                                       [tensor("w", T.FLOAT, [2],
                                               float_data=[1.0, 2.0],
                                               external_data=[
                                                   onnx.StringStringEntryProto(
                                                       key="location",
                                                       value="w.bin")])]), 1,
     "tensor 'w' lists external_data but its data_location is not EXTERNAL"),
    # Constant gather indices must lie in [-d, d-1].
    ("gather_constant_index", op("Gather", [vi("x", [5, 3])],
                                 [const("i", [0, 7])]), 1,
     "node 'n' (Gather): 'nn.gather' op index 7 (element 1 of the constant "
     "indices) is out of range [-5, 4] for axis 0 of size 5"),
    ("gather_constant_negative", op("Gather", [vi("x", [5, 3])],
                                    [const("i", [[-6]])], axis=0), 1,
     "'nn.gather' op index -6 (element 0 of the constant indices) is out of "
     "range [-5, 4]"),
    ("gather_constant_axis1", op("Gather", [vi("x", [5, 3])],
                                 [const("i", 3)], axis=1), 1,
     "index 3 (element 0 of the constant indices) is out of range [-3, 2] "
     "for axis 1 of size 3"),
    # Node inputs and attributes.
    ("missing_input", op_on("Add", ["x"], [X]), 1,
     "node 'n' (Add): missing required input 'B' (#1)"),
    ("runtime_constant", op("Reshape", [X, vi("s", [2], T.INT64)]), 3,
     "input 'shape' must be a constant (or fold to one), but it is computed at run time"),
    ("float_ints", op("Reshape", [X], [const("s", [3.0, 2.0], np.float32)]), 1,
     "input 'shape' must hold integers"),
    ("not_scalar", op("Pad", [X], [const("p", [0, 0, 0, 0]),
                                   const("v", [1.0, 2.0], np.float32)]), 1,
     "input 'constant_value' must hold one value, it holds 2"),
    ("axis_range", op("Softmax", [X], axis=5), 1, "axis 5 is out of range for rank 2"),
    ("axis_repeated", op("ReduceSum", [X], [const("a", [1, -1])]), 1,
     "axis -1 is repeated"),
    ("needs_static", op("Flatten", [vi("x", ["n", 3])]), 3,
     "Flatten needs the static shape of input #0 ('tensor<?x3xf32>'); graph inputs "
     "with unknown dimensions: 'x' dimension 0 ('n')"),
    ("result_too_large", op("Expand", [vi("x", [1])],
                            [const("s", [2 ** 30, 2 ** 30])]), 1,
     "the result would have more than 2^48 elements"),
    # Elementwise.
    ("binary_types", op("Add", [vi("a", [2]), vi("b", [2], T.DOUBLE)]), 1,
     "operands have different element types ('tensor<2xf32>' and 'tensor<2xf64>')"),
    ("pow_bool", op("Pow", [vi("a", [2], T.BOOL), vi("b", [2], T.INT32)]), 1,
     "the base must be a number, not a boolean"),
    ("max_types", op("Max", [vi("a", [2]), vi("b", [2], T.DOUBLE)]), 1,
     "operands have different element types"),
    ("max_empty", model([N("Max", [], ["y"], name="n")], []), 1,
     "needs at least one input"),
    ("gelu_mode", op("Gelu", [X], opset=20, approximate="fast"), 1,
     "approximate must be 'none' or 'tanh', got 'fast'"),
    ("cast_to", op("Cast", [X]), 1, "missing attribute 'to'"),
    ("cast_to_wide", op("Cast", [X], to=2 ** 32 + 1), 1,
     "node 'n' (Cast): Cast target has invalid data type 4294967297"),
    ("compare_types", op("Less", [vi("a", [2]), vi("b", [2], T.INT64)]), 1,
     "operands have different element types"),
    ("dropout_runtime_mode", op("Dropout", [X, vi("r", [], T.FLOAT),
                                            vi("t", [], T.BOOL)], opset=13), 3,
     "training_mode must be a constant"),
    ("dropout_training", op("Dropout", [X], [const("r", 0.5, np.float32),
                                             const("t", True, np.bool_)],
                            opset=13), 3,
     "training mode is not supported at import"),
    ("dropout_training_runtime_ratio", op("Dropout", [X, vi("r", [], T.FLOAT)],
                                          [const("t", True, np.bool_)],
                                          opset=13), 3,
     "training mode is not supported at import"),
    ("dropout_is_test", op("Dropout", [X], opset=6, is_test=0), 3,
     "training mode (is_test = 0) is not supported"),
    # Contractions and windows.
    ("matmul_scalar", op("MatMul", [vi("a", []), vi("b", [2])]), 1,
     "operands must have rank 1 or more"),
    ("gemm_int_alpha", op("Gemm", [vi("a", [2, 2], T.INT32),
                                   vi("b", [2, 2], T.INT32)], alpha=0.5), 3,
     "fractional alpha or beta on integer tensors is not supported"),
    ("gemm_rank", op("Gemm", [vi("a", [2, 2, 2]), vi("b", [2, 2])]), 1,
     "A and B must be matrices"),
    ("conv_pads_count", op("Conv", [X4, vi("w", [1, 1, 2, 2])], pads=[1, 1]), 1,
     "pads must have 4 entries"),
    ("conv_pads_range", op("Conv", [X4, vi("w", [1, 1, 2, 2])],
                           pads=[0, 0, 0, 2 ** 40]), 1,
     "pads must lie in [0, 2^31], got 1099511627776"),
    ("conv_auto_pad", op("Conv", [X4, vi("w", [1, 1, 2, 2])], auto_pad="BOTH"), 1,
     "unknown auto_pad 'BOTH'"),
    ("conv_same_dynamic", op("Conv", [vi("x", [1, 1, "h", 4]),
                                      vi("w", [1, 1, 2, 2])],
                             auto_pad="SAME_UPPER"), 3,
     "auto_pad SAME_UPPER needs static spatial dimensions"),
    ("conv_3d", op("Conv", [vi("x", [1, 1, 2, 2, 2]), vi("w", [1, 1, 1, 1, 1])]), 3,
     "3-D convolutions are not supported (1-D and 2-D are)"),
    ("conv_kernel_count", op("Conv", [X4, vi("w", [1, 1, 2, 2])],
                             kernel_shape=[2]), 1, "kernel_shape must have 2 entries"),
    ("conv_strides_count", op("Conv", [X4, vi("w", [1, 1, 2, 2])], strides=[1]), 1,
     "strides and dilations must have 2 entries"),
    ("conv_stride_range", op("Conv", [X4, vi("w", [1, 1, 2, 2])],
                             strides=[0, 1]), 1,
     "kernel_shape, strides and dilations must lie in [1, 2^31], got 0"),
    ("conv_ranks", op("Conv", [X4, vi("w", [1, 1, 2])]), 1,
     "X and W must have the same rank"),
    ("maxpool_storage", op("MaxPool", [X4], outputs=("y", "i"),
                           kernel_shape=[2, 2], storage_order=2), 1,
     "storage_order must be 0 (row-major) or 1 (column-major), got 2"),
    ("maxpool_indices_dynamic", op("MaxPool", [vi("x", ["n", 1, 4, 4])],
                                   outputs=("y", "i"), kernel_shape=[2, 2]), 3,
     "MaxPool's Indices output needs the static shape of input #0"),
    ("pool_rank", op("MaxPool", [vi("x", [1, 1, 2, 2, 2, 2])],
                     kernel_shape=[1, 1, 1, 1]), 3,
     "inputs of rank 6 are not supported (rank 3 to 5 are: N, C and 1 to 3 "
     "spatial dimensions)"),
    ("global_pool_rank", op("GlobalAveragePool", [X]), 1,
     "input must have rank 3 or more (N, C, spatial...)"),
    # Normalisations.
    ("softmax_scalar", op("Softmax", [vi("x", [])]), 1, "input must have rank 1 or more"),
    ("layernorm_stash", op("LayerNormalization", [X, vi("g", [3])],
                           outputs=("y", "m", "i"), stash_type=T.INT32), 1,
     "stash_type must be a floating-point type"),
    ("pad_value_type", op("Pad", [X], [const("p", [0, 0, 0, 0]),
                                       const("v", 1, np.int64)]), 1,
     "constant_value has type 'i64', the data 'f32'"),
    ("batchnorm_training9", op("BatchNormalization",
                               [X, vi("s", [3]), vi("b", [3]), vi("m", [3]),
                                vi("v", [3])], opset=9,
                               outputs=("y", "rm", "rv", "sm", "sv")), 3,
     "training mode is not supported before opset 14"),
    ("batchnorm_stats_inference", op("BatchNormalization",
                                     [X, vi("s", [3]), vi("b", [3]),
                                      vi("m", [3]), vi("v", [3])], opset=15,
                                     outputs=("y", "rm", "rv")), 1,
     "running_mean and running_var are outputs of training mode only"),
    ("batchnorm_training_rank", op("BatchNormalization",
                                   [vi("x", [3]), vi("s", [3]), vi("b", [3]),
                                    vi("m", [3]), vi("v", [3])], opset=15,
                                   training_mode=1), 1,
     "X must have rank 2 or more (N, C, ...)"),
    # Constants and shapes.
    ("constant_attrs", model([N("Constant", [], ["y"], name="n")], []), 1,
     "needs exactly one value attribute"),
    ("constant_string", model([N("Constant", [], ["y"], name="n",
                                 value_string="a")], []), 3,
     "constant attribute 'value_string' is not supported"),
    ("cos_negative", op("ConstantOfShape", [], [const("s", [2, -1])]), 1,
     "shape has negative dimension -1"),
    ("cos_huge", op("ConstantOfShape", [], [const("s", [2 ** 30, 2 ** 30])]), 1,
     "the result would have more than 2^48 elements"),
    ("cos_value", op("ConstantOfShape", [], [const("s", [2])],
                     value=numpy_helper.from_array(np.array([1, 2], np.int64))), 1,
     "value must hold one element"),
    ("flatten_axis", op("Flatten", [X], axis=3), 1, "axis 3 is out of range for rank 2"),
    ("reshape_zero", op("Reshape", [X], [const("s", [1, 1, 0])]), 1,
     "shape entry 2 copies a dimension the input does not have"),
    ("reshape_two_inferred", op("Reshape", [X], [const("s", [-1, -1])]), 1,
     "shape has more than one -1"),
    ("reshape_negative", op("Reshape", [X], [const("s", [-2, 3])]), 1,
     "shape has invalid dimension -2"),
    ("reshape_overflow", op("Reshape", [X], [const("s", [2 ** 62, 4, -1])]), 1,
     "shape has more than 2^63 elements"),
    ("reshape_indivisible", op("Reshape", [X], [const("s", [5, -1])]), 1,
     "cannot infer the -1 dimension: 6 elements do not divide by 5"),
    ("concat_empty", model([N("Concat", [], ["y"], name="n", axis=0)], []), 1,
     "needs at least one input"),
    ("concat_axis", op("Concat", [X]), 1, "missing attribute 'axis'"),
    ("split_no_outputs", model([N("Split", ["x"], [], name="n")], [X], [X]), 1,
     "needs at least one output"),
    ("split_num_outputs", op("Split", [X], opset=18, outputs=("a", "b"), axis=1,
                             num_outputs=3), 1,
     "num_outputs is 3 but the node has 2 outputs"),
    ("split_uneven", op("Split", [X], opset=13, outputs=("a", "b"), axis=1), 1,
     "dimension 3 does not split into 2 equal parts"),
    ("split_count", op("Split", [X], [const("s", [1, 1, 1])], opset=13,
                       outputs=("a", "b"), axis=1), 1,
     "split gives 3 sizes for 2 outputs"),
    ("slice_lengths", op("Slice", [X], [const("s", [0]), const("e", [1, 2])]), 1,
     "starts and ends differ in length"),
    ("slice_steps", op("Slice", [X], [const("s", [0]), const("e", [1]),
                                      const("a", [0]), const("st", [1, 1])]), 1,
     "starts, ends, axes and steps differ in length"),
    ("slice_axis_repeated", op("Slice", [X], [const("s", [0, 0]), const("e", [1, 1]),
                                              const("a", [1, -1])]), 1,
     "axis -1 is repeated"),
    ("slice_zero_step", op("Slice", [X], [const("s", [0]), const("e", [1]),
                                          const("a", [0]), const("st", [0])]), 1,
     "step of axis 0 is zero"),
    ("slice_min_step", op("Slice", [X], [const("s", [0]), const("e", [1]),
                                         const("a", [0]),
                                         const("st", [-2 ** 63])]), 1,
     "step of axis 0 is out of range"),
    ("expand_mismatch", op("Expand", [X], [const("s", [4, 4])]), 1,
     "cannot expand dimension 0 of size 2 to 4"),
    ("tile_count", op("Tile", [X], [const("r", [2])]), 1,
     "repeats has 1 entries for rank 2"),
    ("tile_negative", op("Tile", [X], [const("r", [2, -1])]), 1,
     "repeats must be non-negative and small enough"),
    ("pad_count", op("Pad", [X], [const("p", [1, 1])]), 1,
     "pads has 2 entries for 2 axes"),
    ("pad_range", op("Pad", [X], [const("p", [0, 0, 0, 2 ** 50])]), 1,
     "pad 1125899906842624 is out of range"),
    ("pad_crop", op("Pad", [X], [const("p", [-2, 0, -1, 0])]), 1,
     "pads crop dimension 0 below zero"),
    ("pad_mode", op("Pad", [X], [const("p", [0, 1, 0, 1])], opset=19,
                    mode="circular"), 3,
     "pad mode 'circular' is not supported"),
    ("range_vector", op("Range", [], [const("s", [0, 1]), const("l", 4),
                                      const("d", 1)]), 1,
     "start must be a scalar"),
    ("range_types", op("Range", [], [const("s", 0), const("l", 4.0, np.float32),
                                     const("d", 1)]), 1,
     "start, limit and delta must have the same type"),
    ("range_bool", op("Range", [], [const("s", False, np.bool_),
                                    const("l", True, np.bool_),
                                    const("d", True, np.bool_)]), 1,
     "bounds must be numbers"),
]


def main():
    loomc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    failures = 0
    for name, m, code, message in CASES:
        path = os.path.join(work, name + ".onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        r = subprocess.run([loomc, path, "-o", os.devnull], capture_output=True,
                           text=True)
        if r.returncode != code or message not in r.stderr:
            failures += 1
            print(f"FAIL {name}: expected exit {code} and {message!r}; got exit "
                  f"{r.returncode}:\n{r.stderr}")
    print(f"{len(CASES) - failures} of {len(CASES)} diagnostics as expected")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
