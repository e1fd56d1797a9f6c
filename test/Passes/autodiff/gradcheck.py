"""Gradient check of every nn op with a gradient rule: for each case, the
gradients -nn-autodiff builds (compiled and run, f64) must equal central
finite differences of the compiled forward function.

    python gradcheck.py --loomc loomc --loom-opt loom-opt WORKDIR

Each case applies ops to its arguments; the loss is sum(result * c) with a
random c, so that every element of the result gets its own weight. c is an
argument too, and its gradient (the result) is checked as well. Arguments
are (name, shape) for f64 ones and (name, shape, values) for integer ones
(indices) of fixed values; `labels` are random class indices.
"""

import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "python"))
from loom.runtime import Program  # noqa: E402


def t(shape, dtype="f64"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


# name: (arguments, body producing %r, result shape). Arguments named p*
# are made positive (exp) before use where the op needs it.
S = t([3, 4])
CASES = {
    "neg": ([("x", [3, 4])], f"%r = nn.neg %x : {S}", [3, 4]),
    "abs": ([("x", [3, 4])], f"%r = nn.abs %x : {S}", [3, 4]),
    "exp": ([("x", [3, 4])], f"%r = nn.exp %x : {S}", [3, 4]),
    "log": ([("x", [3, 4])], f"%p = nn.exp %x : {S}\n%r = nn.log %p : {S}",
            [3, 4]),
    "sqrt": ([("x", [3, 4])], f"%p = nn.exp %x : {S}\n%r = nn.sqrt %p : {S}",
             [3, 4]),
    "rsqrt": ([("x", [3, 4])],
              f"%p = nn.exp %x : {S}\n%r = nn.rsqrt %p : {S}", [3, 4]),
    "reciprocal": ([("x", [3, 4])],
                   f"%p = nn.exp %x : {S}\n%r = nn.reciprocal %p : {S}",
                   [3, 4]),
    "tanh": ([("x", [3, 4])], f"%r = nn.tanh %x : {S}", [3, 4]),
    "sigmoid": ([("x", [3, 4])], f"%r = nn.sigmoid %x : {S}", [3, 4]),
    "erf": ([("x", [3, 4])], f"%r = nn.erf %x : {S}", [3, 4]),
    "cos": ([("x", [3, 4])], f"%r = nn.cos %x : {S}", [3, 4]),
    "sin": ([("x", [3, 4])], f"%r = nn.sin %x : {S}", [3, 4]),
    "relu": ([("x", [3, 4])], f"%r = nn.relu %x : {S}", [3, 4]),
    "add_broadcast": ([("x", [3, 4]), ("y", [4])],
                      f"%r = nn.add %x, %y : {S}, {t([4])}", [3, 4]),
    "sub_broadcast": ([("x", [3, 1]), ("y", [3, 4])],
                      f"%r = nn.sub %x, %y : {t([3, 1])}, {S}", [3, 4]),
    "mul_broadcast": ([("x", [3, 4]), ("y", [3, 1])],
                      f"%r = nn.mul %x, %y : {S}, {t([3, 1])}", [3, 4]),
    "div_broadcast": ([("x", [3, 4]), ("y", [4])],
                      f"%p = nn.exp %y : {t([4])}\n"
                      f"%r = nn.div %x, %p : {S}, {t([4])}", [3, 4]),
    "pow": ([("x", [3, 4]), ("y", [4])],
            f"%p = nn.exp %x : {S}\n%r = nn.pow %p, %y : {S}, {t([4])}",
            [3, 4]),
    "max": ([("x", [3, 4]), ("y", [4])],
            f"%r = nn.max %x, %y : {S}, {t([4])}", [3, 4]),
    "min": ([("x", [3, 4]), ("y", [3, 4])],
            f"%r = nn.min %x, %y : {S}, {S}", [3, 4]),
    "where": ([("x", [3, 4]), ("a", [3, 4]), ("b", [4])],
              f"%z = nn.constant dense<0.0> : {t([])}\n"
              f"%k = nn.compare gt, %x, %z : {S}, {t([])}\n"
              f"%r = nn.where %k, %a, %b : {t([3, 4], 'i1')}, {S}, {t([4])}",
              [3, 4]),
    "reduce_sum": ([("x", [3, 4])],
                   f"%r = nn.reduce_sum %x axes = [1] : {S} -> {t([3])}", [3]),
    "reduce_mean_keepdims": ([("x", [3, 4])],
                             f"%r = nn.reduce_mean %x axes = [0] "
                             f"{{keepdims = true}} : {S} -> {t([1, 4])}",
                             [1, 4]),
    "reduce_max": ([("x", [3, 4])],
                   f"%r = nn.reduce_max %x axes = [1] : {S} -> {t([3])}", [3]),
    "reduce_min": ([("x", [3, 4])],
                   f"%r = nn.reduce_min %x axes = [0, 1] : {S} -> {t([])}",
                   []),
    "matmul": ([("x", [3, 4]), ("w", [4, 5])],
               f"%r = nn.matmul %x, %w : {S}, {t([4, 5])} -> {t([3, 5])}",
               [3, 5]),
    "matmul_batch_broadcast": ([("x", [2, 3, 4]), ("w", [4, 5])],
                               f"%r = nn.matmul %x, %w : {t([2, 3, 4])}, "
                               f"{t([4, 5])} -> {t([2, 3, 5])}", [2, 3, 5]),
    "matmul_batched": ([("x", [2, 3, 4]), ("w", [2, 4, 5])],
                       f"%r = nn.matmul %x, %w : {t([2, 3, 4])}, "
                       f"{t([2, 4, 5])} -> {t([2, 3, 5])}", [2, 3, 5]),
    "transpose": ([("x", [2, 3, 4])],
                  f"%r = nn.transpose %x [2, 0, 1] : {t([2, 3, 4])} -> "
                  f"{t([4, 2, 3])}", [4, 2, 3]),
    "reshape": ([("x", [3, 4])],
                f"%r = nn.reshape %x [2, 6] : {S} -> {t([2, 6])}", [2, 6]),
    "broadcast_to": ([("x", [3, 1])],
                     f"%r = nn.broadcast_to %x [3, 4] : {t([3, 1])} -> {S}",
                     [3, 4]),
    "softmax": ([("x", [3, 4])], f"%r = nn.softmax %x axis = 1 : {S}",
                [3, 4]),
    "log_softmax": ([("x", [3, 4])], f"%r = nn.log_softmax %x axis = 0 : {S}",
                    [3, 4]),
    "layer_norm": ([("x", [3, 4]), ("s", [4]), ("b", [4])],
                   f"%r = nn.layer_norm %x scale(%s : {t([4])}) "
                   f"bias(%b : {t([4])}) axis = 1 : {S}", [3, 4]),
    "layer_norm_2d": ([("x", [2, 3, 4])],
                      f"%r = nn.layer_norm %x axis = 1 : {t([2, 3, 4])}",
                      [2, 3, 4]),
    "gelu": ([("x", [3, 4])], f"%r = nn.gelu %x : {S}", [3, 4]),
    "gelu_tanh": ([("x", [3, 4])],
                  f"%r = nn.gelu %x approximate = tanh : {S}", [3, 4]),
    "cross_entropy": ([("x", [3, 5]), ("labels", [3])],
                      f"%r = nn.cross_entropy %x, %labels class_axis = 1 : "
                      f"{t([3, 5])}, {t([3], 'i64')} -> {t([])}", []),
    "cross_entropy_ignore": ([("x", [2, 5, 3]), ("labels", [2, 3])],
                             f"%r = nn.cross_entropy %x, %labels class_axis = "
                             f"1 {{ignore_index = 4 : i64}} : {t([2, 5, 3])}, "
                             f"{t([2, 3], 'i64')} -> {t([])}", []),
    "squeeze": ([("x", [3, 1, 4])],
                f"%r = nn.squeeze %x axes = [1] : {t([3, 1, 4])} -> {S}", [3, 4]),
    "unsqueeze": ([("x", [3, 4])],
                  f"%r = nn.unsqueeze %x axes = [0] : {S} -> {t([1, 3, 4])}",
                  [1, 3, 4]),
    "concat": ([("x", [3, 4]), ("y", [3, 2])],
               f"%r = nn.concat %x, %y axis = 1 : {S}, {t([3, 2])} -> "
               f"{t([3, 6])}", [3, 6]),
    "slice": ([("x", [3, 4])],
              f"%r = nn.slice %x offsets = [1, 1] sizes = [2, 2] strides = "
              f"[1, 1] : {S} -> {t([2, 2])}", [2, 2]),
    "split": ([("x", [3, 4])],
              f"%a, %b = nn.split %x axis = 1 sizes = [1, 3] : {S} -> "
              f"{t([3, 1])}, {t([3, 3])}\n"
              f"%r = nn.mul %b, %b : {t([3, 3])}, {t([3, 3])}", [3, 3]),
    # Repeated indices accumulate; negative ones count from the end.
    "gather_embedding": ([("table", [5, 3]),
                          ("ids", [2, 3], [[0, 2, 2], [-1, 4, 0]])],
                         f"%r = nn.gather %table[%ids] axis = 0 : "
                         f"{t([5, 3])}, {t([2, 3], 'i64')} -> "
                         f"{t([2, 3, 3])}", [2, 3, 3]),
    "gather_inner_axis_i32": ([("x", [2, 4, 3]),
                               ("ids", [3], np.array([3, -4, 3], np.int32))],
                              f"%r = nn.gather %x[%ids] axis = 1 : "
                              f"{t([2, 4, 3])}, {t([3], 'i32')} -> "
                              f"{t([2, 3, 3])}", [2, 3, 3]),
    "gather_scalar_index": ([("x", [3, 4]), ("ids", [], -1)],
                            f"%r = nn.gather %x[%ids] axis = 1 : {S}, "
                            f"{t([], 'i64')} -> {t([3])}", [3]),
    # A table read by two lookups and directly: the gradients add up.
    "gather_twice": ([("table", [4, 2]), ("ids", [3], [1, 1, 2])],
                     f"%a = nn.gather %table[%ids] axis = 0 : {t([4, 2])}, "
                     f"{t([3], 'i64')} -> {t([3, 2])}\n"
                     f"%b = nn.gather %a[%ids] axis = 0 : {t([3, 2])}, "
                     f"{t([3], 'i64')} -> {t([3, 2])}\n"
                     f"%c2 = nn.mul %a, %b : {t([3, 2])}, {t([3, 2])}\n"
                     f"%s = nn.slice %table offsets = [0, 0] sizes = [3, 2] "
                     f"strides = [1, 1] : {t([4, 2])} -> {t([3, 2])}\n"
                     f"%r = nn.add %c2, %s : {t([3, 2])}, {t([3, 2])}",
                     [3, 2]),
    "scatter_add": ([("u", [2, 3, 2]), ("ids", [3], [2, -1, 2])],
                    f"%r = nn.scatter_add %u[%ids] axis = 1 size = 4 : "
                    f"{t([2, 3, 2])}, {t([3], 'i64')} -> {t([2, 4, 2])}",
                    [2, 4, 2]),
    "conv2d": ([("x", [2, 3, 5, 5]), ("w", [4, 3, 3, 3]), ("b", [4])],
               f"%r = nn.conv2d %x, %w, %b {{padding = array<i64: 1, 1, 1, "
               f"1>}} : {t([2, 3, 5, 5])}, {t([4, 3, 3, 3])}, {t([4])} -> "
               f"{t([2, 4, 5, 5])}", [2, 4, 5, 5]),
    "conv2d_strided_dilated_grouped": (
        [("x", [1, 4, 7, 6]), ("w", [6, 2, 2, 3])],
        f"%r = nn.conv2d %x, %w {{strides = array<i64: 2, 1>, padding = "
        f"array<i64: 1, 0, 2, 1>, dilations = array<i64: 1, 2>, groups = 2 "
        f": i64}} : {t([1, 4, 7, 6])}, {t([6, 2, 2, 3])} -> "
        f"{t([1, 6, 5, 3])}", [1, 6, 5, 3]),
    # Stride 3 leaves the last row and column unread.
    "conv2d_leftover": ([("x", [2, 1, 6, 6]), ("w", [2, 1, 2, 2])],
                        f"%r = nn.conv2d %x, %w {{strides = array<i64: 3, "
                        f"3>}} : {t([2, 1, 6, 6])}, {t([2, 1, 2, 2])} -> "
                        f"{t([2, 2, 2, 2])}", [2, 2, 2, 2]),
    # Padding wider than the kernel: whole windows in the padding.
    "conv2d_wide_padding": ([("x", [1, 2, 3, 3]), ("w", [1, 2, 2, 2])],
                            f"%r = nn.conv2d %x, %w {{padding = array<i64: "
                            f"2, 2, 2, 2>}} : {t([1, 2, 3, 3])}, "
                            f"{t([1, 2, 2, 2])} -> {t([1, 1, 6, 6])}",
                            [1, 1, 6, 6]),
    "max_pool": ([("x", [2, 2, 5, 5])],
                 f"%r = nn.max_pool %x {{kernel = array<i64: 2, 2>, strides = "
                 f"array<i64: 2, 2>, ceil_mode = true}} : {t([2, 2, 5, 5])} -> "
                 f"{t([2, 2, 3, 3])}", [2, 2, 3, 3]),
    "max_pool_padded_dilated": ([("x", [1, 2, 6, 6])],
                                f"%r = nn.max_pool %x {{kernel = array<i64: 3, "
                                f"3>, padding = array<i64: 1, 1, 1, 1>, "
                                f"dilations = array<i64: 2, 2>}} : "
                                f"{t([1, 2, 6, 6])} -> {t([1, 2, 4, 4])}",
                                [1, 2, 4, 4]),
    "max_pool_1d": ([("x", [2, 3, 7])],
                    f"%r = nn.max_pool %x {{kernel = array<i64: 3>, strides = "
                    f"array<i64: 2>}} : {t([2, 3, 7])} -> {t([2, 3, 3])}",
                    [2, 3, 3]),
    "max_pool_3d": ([("x", [1, 2, 4, 4, 3])],
                    f"%r = nn.max_pool %x {{kernel = array<i64: 2, 2, 2>, "
                    f"strides = array<i64: 2, 1, 1>}} : {t([1, 2, 4, 4, 3])} "
                    f"-> {t([1, 2, 2, 3, 2])}", [1, 2, 2, 3, 2]),
    "max_pool_with_indices": ([("x", [1, 2, 4, 5])],
                              f"%r, %i = nn.max_pool_with_indices %x order = "
                              f"column_major {{kernel = array<i64: 2, 2>}} : "
                              f"{t([1, 2, 4, 5])} -> {t([1, 2, 3, 4])}, "
                              f"{t([1, 2, 3, 4], 'i64')}", [1, 2, 3, 4]),
    "avg_pool": ([("x", [1, 2, 5, 5])],
                 f"%r = nn.avg_pool %x {{kernel = array<i64: 3, 3>, strides = "
                 f"array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, "
                 f"ceil_mode = true}} : {t([1, 2, 5, 5])} -> "
                 f"{t([1, 2, 3, 3])}", [1, 2, 3, 3]),
    "avg_pool_include_pad_dilated": ([("x", [2, 1, 5, 6])],
                                     f"%r = nn.avg_pool %x {{kernel = "
                                     f"array<i64: 2, 2>, dilations = "
                                     f"array<i64: 2, 3>, padding = array<i64: "
                                     f"1, 0, 0, 2>, count_include_pad = "
                                     f"true}} : {t([2, 1, 5, 6])} -> "
                                     f"{t([2, 1, 4, 5])}", [2, 1, 4, 5]),
    "avg_pool_1d": ([("x", [2, 3, 7])],
                    f"%r = nn.avg_pool %x {{kernel = array<i64: 3>, strides = "
                    f"array<i64: 2>, padding = array<i64: 1, 1>}} : "
                    f"{t([2, 3, 7])} -> {t([2, 3, 4])}", [2, 3, 4]),
    "avg_pool_3d": ([("x", [1, 1, 4, 4, 4])],
                    f"%r = nn.avg_pool %x {{kernel = array<i64: 2, 2, 2>, "
                    f"strides = array<i64: 1, 2, 2>}} : {t([1, 1, 4, 4, 4])} "
                    f"-> {t([1, 1, 3, 2, 2])}", [1, 1, 3, 2, 2]),
    "global_avg_pool2d": ([("x", [2, 3, 2, 3])],
                          f"%r = nn.global_avg_pool2d %x : {t([2, 3, 2, 3])} "
                          f"-> {t([2, 3, 1, 1])}", [2, 3, 1, 1]),
    "global_max_pool2d": ([("x", [2, 3, 2, 3])],
                          f"%r = nn.global_max_pool2d %x : {t([2, 3, 2, 3])} "
                          f"-> {t([2, 3, 1, 1])}", [2, 3, 1, 1]),
    "batch_norm": ([("x", [2, 3, 2, 2]), ("s", [3]), ("b", [3]),
                    ("mean", [3]), ("v", [3])],
                   f"%pv = nn.exp %v : {t([3])}\n"
                   f"%r = nn.batch_norm %x, %s, %b, %mean, %pv {{epsilon = 0.1 : "
                   f"f64}} : {t([2, 3, 2, 2])}, {t([3])}, {t([3])}, {t([3])}, "
                   f"{t([3])}", [2, 3, 2, 2]),
    "pad_constant": ([("x", [3, 4])],
                     f"%r = nn.pad %x low = [1, 0] high = [2, 3] value = 1.5 : "
                     f"f64 : {S} -> {t([6, 7])}", [6, 7]),
    "pad_reflect": ([("x", [3, 4])],
                    f"%r = nn.pad %x low = [2, 1] high = [1, 3] mode = reflect "
                    f": {S} -> {t([6, 8])}", [6, 8]),
    "pad_edge": ([("x", [3, 4])],
                 f"%r = nn.pad %x low = [0, 2] high = [3, 1] mode = edge : "
                 f"{S} -> {t([6, 7])}", [6, 7]),
    "pad_wrap": ([("x", [3, 4])],
                 f"%r = nn.pad %x low = [4, 1] high = [1, 6] mode = wrap : "
                 f"{S} -> {t([8, 11])}", [8, 11]),
    "slice_negative_stride": ([("x", [5, 6])],
                              f"%r = nn.slice %x offsets = [4, 1] sizes = [3, "
                              f"2] strides = [-2, 3] : {t([5, 6])} -> "
                              f"{t([3, 2])}", [3, 2]),
    "slice_stride_2": ([("x", [5, 6])],
                       f"%r = nn.slice %x offsets = [1, 1] sizes = [3, 2] "
                       f"strides = [1, 2] : {t([5, 6])} -> {t([3, 2])}",
                       [3, 2]),
    "trilu_upper": ([("x", [2, 3, 4])],
                    f"%r = nn.trilu %x upper k = 1 : {t([2, 3, 4])}",
                    [2, 3, 4]),
    "trilu_lower": ([("x", [3, 4])], f"%r = nn.trilu %x lower k = -1 : {S}",
                    [3, 4]),
    "chain": ([("x", [2, 3]), ("w", [3, 4]), ("b", [4])],
              f"%h = nn.matmul %x, %w : {t([2, 3])}, {t([3, 4])} -> "
              f"{t([2, 4])}\n%a = nn.add %h, %b : {t([2, 4])}, {t([4])}\n"
              f"%g = nn.tanh %a : {t([2, 4])}\n"
              f"%r = nn.log_softmax %g axis = 1 : {t([2, 4])}", [2, 4]),
}


def index_values(argument):
    """The fixed integer values of an index argument (name, shape, values),
    as an array of its shape; None for float arguments."""
    if len(argument) < 3:
        return None
    values = np.asarray(argument[2])
    if values.dtype != np.int32:
        values = values.astype(np.int64)
    return values.reshape(argument[1])


def arg_type(argument):
    name, shape = argument[0], argument[1]
    values = index_values(argument)
    if values is not None:
        return t(shape, f"i{values.dtype.itemsize * 8}")
    return t(shape, "i64" if name == "labels" else "f64")


def module(args, body, shape):
    params = ", ".join(
        f"%{a[0]}: {arg_type(a)} {{nn.name = \"{a[0]}\"}}" for a in args)
    axes = ", ".join(str(i) for i in range(len(shape)))
    reduce = (f"%l = nn.reduce_sum %m axes = [{axes}] : {t(shape)} -> "
              f"{t([])}" if shape else "%l = nn.add %m, %m0 : "
              f"{t([])}, {t([])}")
    zero = "" if shape else f"%m0 = nn.constant dense<0.0> : {t([])}\n"
    return (f"func.func @main({params}, %c: {t(shape)} {{nn.name = \"c\"}}) "
            f"-> {t([])} {{\n{body}\n%m = nn.mul %r, %c : {t(shape)}, "
            f"{t(shape)}\n{zero}{reduce}\nreturn %l : {t([])}\n}}\n")


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAILED: {' '.join(cmd)}\n{result.stdout}{result.stderr}")
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loomc", required=True)
    parser.add_argument("--loom-opt", required=True)
    parser.add_argument("workdir")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.RandomState(0)
    failures = 0
    for name, (arguments, body, shape) in CASES.items():
        base = os.path.join(args.workdir, name)
        with open(base + ".mlir", "w") as f:
            f.write(module(arguments, body, shape))
        run([args.loom_opt, base + ".mlir", "-nn-autodiff=wrt=arguments",
             "-o", base + ".grad.mlir"])
        run([args.loomc, base + ".mlir", "-o", base + ".loom"])
        run([args.loomc, base + ".grad.mlir", "-o", base + ".grad.loom"])
        feeds = {a[0]: rng.standard_normal(a[1]) for a in arguments
                 if index_values(a) is None}
        feeds.update({a[0]: index_values(a) for a in arguments
                      if index_values(a) is not None})
        if "labels" in feeds:
            classes = 5
            feeds["labels"] = rng.randint(0, classes, feeds["labels"].shape)
            if name.endswith("ignore"):
                feeds["labels"].flat[[0, 3]] = 4
        feeds["c"] = rng.standard_normal(shape)
        forward, backward = Program(base + ".loom"), Program(base + ".grad.loom")
        outputs = backward.run(feeds)
        worst = 0.0
        ok = True
        for n, value in feeds.items():
            if value.dtype != np.float64:
                continue
            got = np.array(outputs[f"grad:{n}"])
            want = np.zeros_like(value)
            h = 1e-6
            for i in np.ndindex(value.shape):
                for sign in (1, -1):
                    probe = dict(feeds)
                    moved = value.copy()
                    moved[i] += sign * h
                    probe[n] = moved
                    loss = float(np.array(forward.run(probe)["output0"]))
                    want[i] += sign * loss / (2 * h)
            error = np.max(np.abs(got - want)) if value.size else 0.0
            worst = max(worst, error)
            ok &= np.allclose(got, want, rtol=1e-5, atol=1e-7)
        print(f"{'PASS' if ok else 'FAIL'}: {name}: max |analytic - "
              f"numeric| {worst:.1e}")
        failures += not ok
    print(f"{len(CASES) - failures} of {len(CASES)} gradient checks pass")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
