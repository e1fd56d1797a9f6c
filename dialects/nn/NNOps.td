//===- NNOps.td - nn dialect operations --------------------*- tablegen -*-===//

#ifndef LOOM_NN_OPS
#define LOOM_NN_OPS

include "nn/NNBase.td"

//===----------------------------------------------------------------------===//
// Constants and sources
//===----------------------------------------------------------------------===//

def NN_ConstantOp : NN_Op<"constant", [ConstantLike]> {
  let summary = "a tensor literal";
  let description = [{
    Produces a tensor from its `value` attribute (dense or resource elements).

    ```mlir
    %c = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def NN_ParameterOp : NN_Op<"parameter"> {
  let summary = "a named model parameter with its initial value";
  let description = [{
    A trainable tensor (an ONNX initializer holding weights) under the name
    training, checkpoints and plans refer to it by. Unlike `nn.constant` it
    is not folded into its users, so the parameter stays one value that a
    plan can shard and training can update; inference backends treat it as
    a constant.

    ```mlir
    %w = nn.parameter "fc1.weight" = dense<0.5> : tensor<16x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, ElementsAttr:$value);
  let results = (outs RankedTensorOf<[NN_Float]>:$result);
  let assemblyFormat = "$name attr-dict `=` $value";
  let hasVerifier = 1;
}

def NN_RangeOp : NN_Op<"range"> {
  let summary = "an arithmetic sequence";
  let description = [{
    `start, start + delta, ...` up to but excluding `limit`, as ONNX `Range`:
    the length is `max(ceil((limit - start) / delta), 0)`. The three
    attributes share one integer or float type, the result's element type.

    ```mlir
    %r = nn.range 0 to 10 step 3 -> tensor<4xi64>
    %f = nn.range 0.0 to 1.0 step 2.5e-01 -> tensor<4xf32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$start, TypedAttrInterface:$limit,
                       TypedAttrInterface:$delta);
  let results = (outs RankedTensorOf<[NN_Float, NN_SignlessInt]>:$result);
  let assemblyFormat = [{
    custom<Range>($start, $limit, $delta, type($result)) attr-dict
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

def NN_NegOp : NN_UnaryOp<"neg", NN_NumericTensor, "1", "0"> {
  let summary = "elementwise negation";
  let description = "`-x`.\n\n```mlir\n%y = nn.neg %x : tensor<4xf32>\n```";
}
def NN_AbsOp : NN_UnaryOp<"abs", NN_NumericTensor, "1", "0"> {
  let summary = "elementwise absolute value";
  let description = "`|x|`.\n\n```mlir\n%y = nn.abs %x : tensor<4xi64>\n```";
}
def NN_ExpOp : NN_UnaryOp<"exp", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise natural exponential";
  let description = "`e^x`.\n\n```mlir\n%y = nn.exp %x : tensor<4xf32>\n```";
}
def NN_LogOp : NN_UnaryOp<"log", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise natural logarithm";
  let description = "`ln x`.\n\n```mlir\n%y = nn.log %x : tensor<4xf32>\n```";
}
def NN_SqrtOp : NN_UnaryOp<"sqrt", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise square root";
  let description = "`sqrt(x)`.\n\n```mlir\n%y = nn.sqrt %x : tensor<4xf32>\n```";
}
def NN_RsqrtOp : NN_UnaryOp<"rsqrt", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise reciprocal square root";
  let description = "`1 / sqrt(x)`.\n\n```mlir\n%y = nn.rsqrt %x : tensor<4xf32>\n```";
}
def NN_ReciprocalOp : NN_UnaryOp<"reciprocal", NN_FloatTensor, "1", "0"> {
  let summary = "elementwise reciprocal";
  let description = "`1 / x`.\n\n```mlir\n%y = nn.reciprocal %x : tensor<4xf32>\n```";
}
def NN_TanhOp : NN_UnaryOp<"tanh", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise hyperbolic tangent";
  let description = "`tanh(x)`.\n\n```mlir\n%y = nn.tanh %x : tensor<4xf32>\n```";
}
def NN_CosOp : NN_UnaryOp<"cos", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise cosine";
  let description = "`cos(x)` (radians).\n\n```mlir\n%y = nn.cos %x : tensor<4xf32>\n```";
}
def NN_SinOp : NN_UnaryOp<"sin", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise sine";
  let description = "`sin(x)` (radians).\n\n```mlir\n%y = nn.sin %x : tensor<4xf32>\n```";
}
def NN_SigmoidOp : NN_UnaryOp<"sigmoid", NN_FloatTensor, "2", "1"> {
  let summary = "elementwise logistic function";
  let description = "`1 / (1 + e^-x)`.\n\n```mlir\n%y = nn.sigmoid %x : tensor<4xf32>\n```";
}
def NN_ErfOp : NN_UnaryOp<"erf", NN_FloatTensor, "0", "1"> {
  let summary = "elementwise Gauss error function";
  let description = "`erf(x)`.\n\n```mlir\n%y = nn.erf %x : tensor<4xf32>\n```";
}
def NN_ReluOp : NN_UnaryOp<"relu", NN_NumericTensor, "1", "0"> {
  let summary = "elementwise rectified linear unit";
  let description = "`max(x, 0)`.\n\n```mlir\n%y = nn.relu %x : tensor<4xf32>\n```";
}

def NN_GeluOp : NN_SameTypeOp<"gelu",
    [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    `x * Phi(x)` with the exact Gaussian CDF `Phi(x) = (1 + erf(x / sqrt 2)) / 2`,
    or with `approximate = tanh`
    `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))` as in PyTorch.

    ```mlir
    %y = nn.gelu %x : tensor<4xf32>
    %z = nn.gelu %x approximate = tanh : tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedAttr<NN_GeluApproximation,
                         "::loom::nn::GeluApproximation::None">:$approximate);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary (broadcasting)
//===----------------------------------------------------------------------===//

def NN_AddOp : NN_BinaryOp<"add", NN_NumericTensor, "1", "0", [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    ```mlir
    %y = nn.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
    ```
  }];
}
def NN_SubOp : NN_BinaryOp<"sub", NN_NumericTensor, "1", "0"> {
  let summary = "elementwise subtraction with broadcasting";
  let description = [{
    ```mlir
    %y = nn.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32>
    ```
  }];
}
def NN_MulOp : NN_BinaryOp<"mul", NN_NumericTensor, "1", "0", [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
  let description = [{
    ```mlir
    %y = nn.mul %x, %s : tensor<4x8xf32>, tensor<f32>
    ```
  }];
}
def NN_DivOp : NN_BinaryOp<"div", NN_NumericTensor, "1", "0"> {
  let summary = "elementwise division with broadcasting";
  let description = [{
    Integer division truncates toward zero, as ONNX `Div`; dividing an
    integer by zero is undefined and is never folded.

    ```mlir
    %y = nn.div %x, %n : tensor<4x8xf32>, tensor<4x1xf32>
    ```
  }];
}
def NN_PowOp : NN_BinaryOp<"pow", NN_NumericTensor, "1", "1"> {
  let summary = "elementwise power with broadcasting";
  let description = [{
    `lhs ^ rhs`. Integer powers wrap on overflow; a negative integer
    exponent gives the truncated quotient `1 / lhs^-rhs`: 0 unless `lhs` is
    1 or -1, and 0 for `lhs = 0` (where the division is undefined).

    ```mlir
    %y = nn.pow %x, %two : tensor<4x8xf32>, tensor<f32>
    %n = nn.pow %k, %e : tensor<3xi64>, tensor<3xi64>
    ```
  }];
}
def NN_MaxOp : NN_BinaryOp<"max", NN_NumericTensor, "1", "0", [Commutative]> {
  let summary = "elementwise maximum with broadcasting";
  let description = [{
    NaN wins over any number, as in ONNX `Max`.

    ```mlir
    %y = nn.max %x, %zero : tensor<4x8xf32>, tensor<f32>
    ```
  }];
}
def NN_MinOp : NN_BinaryOp<"min", NN_NumericTensor, "1", "0", [Commutative]> {
  let summary = "elementwise minimum with broadcasting";
  let description = [{
    NaN wins over any number, as in ONNX `Min`.

    ```mlir
    %y = nn.min %x, %six : tensor<4x8xf32>, tensor<f32>
    ```
  }];
}

def NN_CompareOp : NN_Op<"compare", [SameOperandsElementType]> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares two tensors of the same element type and yields `i1`. Floating
    point comparisons are ordered: any comparison with NaN is false except
    `ne`.

    ```mlir
    %m = nn.compare lt, %x, %y : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins NN_CompareDirection:$direction,
                       NN_NumericTensor:$lhs, NN_NumericTensor:$rhs);
  let results = (outs NN_BoolTensor:$result);
  let assemblyFormat = [{
    $direction `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasFolder = 1;
}

def NN_WhereOp : NN_Op<"where", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "elementwise selection with broadcasting";
  let description = [{
    `condition ? on_true : on_false`, all three broadcast together.

    ```mlir
    %y = nn.where %mask, %x, %neg_inf : tensor<1x8x8xi1>, tensor<4x8x8xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins NN_BoolTensor:$condition, NN_AnyTensor:$on_true,
                       NN_AnyTensor:$on_false);
  let results = (outs NN_AnyTensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
      type($condition) `,` type($on_true) `,` type($on_false)
  }];
  let hasFolder = 1;
}

def NN_CastOp : NN_Op<"cast", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "elementwise conversion of the element type";
  let description = [{
    Converts each element to the element type `to`. Float to integer rounds
    toward zero; conversions to `i1` test against zero; integers convert by
    their signedness (`i1` as 0 and 1); narrowing integers wrap.

    The 4-bit integers (`i4`, `ui4`) and the 8-bit floats (`f8E4M3FN`,
    `f8E4M3FNUZ`, `f8E5M2`, `f8E5M2FNUZ`) are storage types that only this
    op converts, as ONNX's Cast does: to a 4-bit integer, values round to
    nearest even and clamp to its range; to an 8-bit float they round to
    nearest even, and values beyond the largest finite one become it
    (`saturate`, the default) or, with `saturate = false`, infinity where the
    type has one and NaN where it has not. NaN stays NaN.

    ```mlir
    %h = nn.cast %x : tensor<4xf32> to bf16
    %q = nn.cast %x {saturate = false} : tensor<4xf32> to f8E4M3FN
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, TypeAttr:$to,
                       DefaultValuedAttr<BoolAttr, "true">:$saturate);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` $to";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//

def NN_MatmulOp : NN_Op<"matmul", [SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "batched matrix product with batch broadcasting";
  let description = [{
    `[..., m, k] x [..., k, n] -> [..., m, n]`. Both operands have rank 2 or
    more; the leading (batch) dimensions broadcast by the numpy rules (the
    ONNX importer turns rank-1 operands into rank-2 ones).

    ```mlir
    %y = nn.matmul %x, %w : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$lhs, NN_NumericTensor:$rhs);
  let results = (outs NN_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def NN_Conv2dOp : NN_Op<"conv2d", [SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "2-D convolution (NCHW input, OIHW filter)";
  let description = [{
    Input `[N, C, H, W]`, filter `[O, C / groups, KH, KW]`, optional bias
    `[O]`; result `[N, O, OH, OW]` with
    `OH = (H + pad_top + pad_bottom - dilation_h * (KH - 1) - 1) / stride_h + 1`.
    `padding` is `[top, left, bottom, right]` (ONNX order).

    ```mlir
    %y = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>}
        : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32> -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$filter,
                       Optional<NN_FloatTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` type($input) `,` type($filter)
      (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def NN_MaxPoolOp : NN_PoolOp<"max_pool", NN_NumericTensor> {
  let summary = "max pooling over 1 to 3 spatial dimensions";
  let description = [{
    Maximum over each `kernel` window of an `[N, C, spatial...]` input with
    1 to 3 spatial dimensions. `padding` holds the padding before each
    spatial dimension, then after each (ONNX order); absent `strides`,
    `padding` and `dilations` are ones, zeros and ones. Padded positions
    never win. With `ceil_mode` the output size rounds up (a window must
    still start inside the input or its leading padding) and the overhang
    past the trailing padding never wins either.

    ```mlir
    %y = nn.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
    %z = nn.max_pool %v {kernel = array<i64: 2, 2, 2>, dilations = array<i64: 2, 2, 2>}
        : tensor<1x1x4x4x4xf32> -> tensor<1x1x2x2x2xf32>
    ```
  }];
}

def NN_AvgPoolOp : NN_PoolOp<"avg_pool", NN_FloatTensor,
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)> {
  let summary = "average pooling over 1 to 3 spatial dimensions";
  let description = [{
    Mean over each `kernel` window of an `[N, C, spatial...]` input, as
    ONNX `AveragePool`: without `count_include_pad` the divisor is the
    number of window positions inside the input; with it, every position
    counts (padding, and the overhang of `ceil_mode`, as zeros), so the
    divisor is the kernel's size. Attributes and output size as
    `nn.max_pool`.

    ```mlir
    %y = nn.avg_pool %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>}
        : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
    ```
  }];
}

def NN_MaxPoolWithIndicesOp : NN_Op<"max_pool_with_indices",
    [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "max pooling that also says where each maximum is";
  let description = [{
    `nn.max_pool` (same attributes, same `result`) that also gives, for each
    output, the position of its maximum within the input's `[spatial...]`
    plane of the same `(n, c)`, as PyTorch's `return_indices`: row-major
    (`h * W + w` for two spatial dimensions), or with
    `order = column_major` column-major (`h + w * H`), as ONNX `MaxPool`'s
    `storage_order`. (ONNX's `Indices` index the whole input: they add
    `(n * C + c) * H * W`.) Padded positions never win and NaN beats any
    number, as in `nn.max_pool`; among equal maxima the first in row-major
    order wins, as in onnxruntime. A window that covers no input position
    (possible only with dilation) gives the lowest value and the index -1.

    ```mlir
    %y, %i = nn.max_pool_with_indices %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>, tensor<1x16x4x4xi64>
    %z, %j = nn.max_pool_with_indices %x order = column_major {kernel = array<i64: 3>}
        : tensor<2x4x8xi32> -> tensor<2x4x6xi32>, tensor<2x4x6xi64>
    ```
  }];
  let arguments = !con((ins NN_NumericTensor:$input), NN_PoolWindowArguments,
      (ins DefaultValuedAttr<NN_IndexOrder,
             "::loom::nn::IndexOrder::RowMajor">:$order));
  let results = (outs NN_NumericTensor:$result,
                      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = [{
    $input (`order` `=` $order^)? attr-dict `:` type($input) `->`
      type($result) `,` type($indices)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The window attributes, absent ones filled in.
    ::loom::nn::PoolWindow getWindow() {
      return ::loom::nn::PoolWindow(getKernel(), getStrides(), getPadding(),
                                    getDilations());
    }
  }];
}

def NN_GlobalAvgPool2dOp : NN_Op<"global_avg_pool2d",
    [SameOperandsAndResultElementType, DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "mean over the spatial dimensions (NCHW)";
  let description = [{
    `[N, C, H, W] -> [N, C, 1, 1]`.

    ```mlir
    %y = nn.global_avg_pool2d %x : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def NN_GlobalMaxPool2dOp : NN_Op<"global_max_pool2d",
    [SameOperandsAndResultElementType, DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "maximum over the spatial dimensions (NCHW)";
  let description = [{
    `[N, C, H, W] -> [N, C, 1, 1]`.

    ```mlir
    %y = nn.global_max_pool2d %x : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
    ```
  }];
  let arguments = (ins NN_NumericTensor:$input);
  let results = (outs NN_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

def NN_ReduceSumOp : NN_ReduceOp<"reduce_sum", "Sum", NN_NumericTensor> {
  let summary = "sum over axes";
  let description = [{
    `axes` are sorted, unique and non-negative; an empty list reduces
    nothing.

    ```mlir
    %s = nn.reduce_sum %x axes = [1] {keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
}
def NN_ReduceMeanOp : NN_ReduceOp<"reduce_mean", "Mean", NN_FloatTensor> {
  let summary = "arithmetic mean over axes";
  let description = [{
    ```mlir
    %m = nn.reduce_mean %x axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    ```
  }];
}
def NN_ReduceMaxOp : NN_ReduceOp<"reduce_max", "Max", NN_NumericTensor> {
  let summary = "maximum over axes";
  let description = [{
    ```mlir
    %m = nn.reduce_max %x axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }];
}
def NN_ReduceMinOp : NN_ReduceOp<"reduce_min", "Min", NN_NumericTensor> {
  let summary = "minimum over axes";
  let description = [{
    ```mlir
    %m = nn.reduce_min %x axes = [1] : tensor<4x8xi64> -> tensor<4xi64>
    ```
  }];
}

def NN_SoftmaxOp : NN_SameTypeOp<"softmax", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "softmax along one axis";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis` (non-negative).

    ```mlir
    %p = nn.softmax %x axis = 1 : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$axis);
  let results = (outs NN_FloatTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
}

def NN_LogSoftmaxOp : NN_SameTypeOp<"log_softmax", [
    DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "logarithm of softmax along one axis";
  let description = [{
    `x - max - log(sum(exp(x - max)))` along `axis` (non-negative).

    ```mlir
    %l = nn.log_softmax %x axis = 1 : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$axis);
  let results = (outs NN_FloatTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
}

def NN_LayerNormOp : NN_Op<"layer_norm",
    [AttrSizedOperandSegments, SameOperandsAndResultElementType,
     DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "layer normalisation over the trailing dimensions";
  let description = [{
    Normalises over dimensions `axis ..< rank` (biased variance, `epsilon`
    added before the square root), then multiplies by `scale` and adds
    `bias` when present; both have the shape of the normalised dimensions.

    ```mlir
    %y = nn.layer_norm %x scale(%g : tensor<64xf32>) bias(%b : tensor<64xf32>)
        axis = 2 {epsilon = 1.0e-05 : f64} : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, Optional<NN_FloatTensor>:$scale,
                       Optional<NN_FloatTensor>:$bias, I64Attr:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` `(` $scale^ `:` type($scale) `)`)?
      (`bias` `(` $bias^ `:` type($bias) `)`)? `axis` `=` $axis attr-dict `:`
      type($input)
  }];
  let hasVerifier = 1;
}

def NN_BatchNormOp : NN_Op<"batch_norm", [SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "batch normalisation with running statistics (inference)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (dimension
    1); `scale`, `bias`, `mean` and `var` have shape `[C]`.

    ```mlir
    %y = nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-05 : f64}
        : tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$scale,
                       NN_FloatTensor:$bias, NN_FloatTensor:$mean,
                       NN_FloatTensor:$variance,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
      type($input) `,` type($scale) `,` type($bias) `,` type($mean) `,` type($variance)
  }];
  let hasVerifier = 1;
}

def NN_CrossEntropyOp : NN_Op<"cross_entropy",
    [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "mean softmax cross-entropy of logits against integer labels";
  let description = [{
    `logits` has the classes along `class_axis`; `labels` has the logits'
    shape without that axis and holds class indices. The result is the scalar
    mean of `-log_softmax(logits)[label]` over all label positions, skipping
    positions whose label equals `ignore_index` when it is set (the mean is
    then over the remaining positions, as in PyTorch).

    ```mlir
    %l = nn.cross_entropy %logits, %labels class_axis = 2
        : tensor<4x16x100xf32>, tensor<4x16xi64> -> tensor<f32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$logits, NN_IndexTensor:$labels,
                       I64Attr:$class_axis, OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs 0DTensorOf<[NN_Float]>:$result);
  let assemblyFormat = [{
    $logits `,` $labels `class_axis` `=` $class_axis attr-dict `:`
      type($logits) `,` type($labels) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Indexing and data movement
//===----------------------------------------------------------------------===//

def NN_GatherOp : NN_Op<"gather", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "take slices along an axis at given indices (embedding lookup)";
  let description = [{
    As ONNX `Gather`: the result is `data` with dimension `axis` replaced by
    the dimensions of `indices`. Negative indices count from the end.
    Constant indices must lie in `[-d, d-1]` for the axis' static size `d`
    (the verifier checks them); others are clamped into it at run time. An
    embedding lookup is a gather along axis 0 of a `[vocab, hidden]` table.

    ```mlir
    %e = nn.gather %table[%tokens] axis = 0
        : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$data, NN_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` `axis` `=` $axis attr-dict `:`
      type($data) `,` type($indices) `->` type($result)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

def NN_ScatterAddOp : NN_Op<"scatter_add",
    [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "add slices into zeros at given indices (the transpose of gather)";
  let description = [{
    The transpose of `nn.gather`: starting from zeros of the result type,
    adds each slice of `updates` at the position along `axis` that
    `indices` gives, so slices at repeated indices accumulate. The result
    has `updates`' shape with the dimensions of `indices` (which start at
    `axis`) replaced by one dimension of extent `size`:
    `result[a..., indices[i...], b...] += updates[a..., i..., b...]`.
    Negative indices count from the end, as in `nn.gather`; constant ones
    out of range are rejected and others clamped into it, as `nn.gather`
    treats them. This is
    the gradient of `nn.gather` with respect to its data (the gradient of an
    embedding table).

    ```mlir
    %d = nn.scatter_add %g[%tokens] axis = 0 size = 1000
        : tensor<4x16x64xf32>, tensor<4x16xi64> -> tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$updates, NN_IndexTensor:$indices,
                       I64Attr:$axis, I64Attr:$size);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $updates `[` $indices `]` `axis` `=` $axis `size` `=` $size attr-dict `:`
      type($updates) `,` type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NN_ReshapeOp : NN_Op<"reshape", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "reinterpret the elements in row-major order with a new shape";
  let description = [{
    The result has `shape` (static sizes; the importer resolves ONNX's `0`
    and `-1`) and the same number of elements as the input.

    ```mlir
    %y = nn.reshape %x [4, 4, 16] : tensor<4x64xf32> -> tensor<4x4x16xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $input $shape attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NN_TransposeOp : NN_Op<"transpose", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %y = nn.transpose %x [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def NN_ConcatOp : NN_Op<"concat", [DeclareOpInterfaceMethods<GradientOpInterface>,
    SameOperandsElementType,
                                   SameOperandsAndResultElementType]> {
  let summary = "join tensors along an axis";
  let description = [{
    All inputs have the same rank and agree on every dimension but `axis`.

    ```mlir
    %y = nn.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<NN_StorageTensor>:$inputs, I64Attr:$axis);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasFolder = 1;
}

def NN_SliceOp : NN_Op<"slice", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "strided slice (negative strides walk backwards)";
  let description = [{
    Result dimension `d` has `sizes[d]` elements, element `i` reading input
    index `offsets[d] + i * strides[d]`; every index read lies inside the
    input. The importer turns ONNX `Slice` (with clamping, negative indices
    and steps) into this exact form.

    ```mlir
    %y = nn.slice %x offsets = [0, 7] sizes = [4, 4] strides = [1, -2]
        : tensor<4x8xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets `sizes` `=` $sizes `strides` `=` $strides
      attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def NN_SplitOp : NN_Op<"split", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "cut a tensor into consecutive pieces along an axis";
  let description = [{
    Result `i` has `sizes[i]` elements along `axis`; the sizes add up to the
    input's extent.

    ```mlir
    %q, %k, %v = nn.split %qkv axis = 2 sizes = [64, 64, 64]
        : tensor<4x16x192xf32> -> tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<NN_StorageTensor>:$results);
  let assemblyFormat = [{
    $input `axis` `=` $axis `sizes` `=` $sizes attr-dict `:` type($input) `->`
      type($results)
  }];
}

def NN_BroadcastToOp : NN_Op<"broadcast_to", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "broadcast to a shape by the numpy rules";
  let description = [{
    The input's dimensions align with the trailing dimensions of `shape`;
    each is 1 or equal to its target.

    ```mlir
    %y = nn.broadcast_to %b [4, 8] : tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $input $shape attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def NN_SqueezeOp : NN_Op<"squeeze", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "remove size-1 dimensions";
  let description = [{
    Removes dimensions `axes` (sorted, unique), each of size 1.

    ```mlir
    %y = nn.squeeze %x axes = [0, 2] : tensor<1x8x1xf32> -> tensor<8xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NN_UnsqueezeOp : NN_Op<"unsqueeze", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "insert size-1 dimensions";
  let description = [{
    `axes` (sorted, unique) are positions in the result.

    ```mlir
    %y = nn.unsqueeze %x axes = [0, 2] : tensor<8xf32> -> tensor<1x8x1xf32>
    ```
  }];
  let arguments = (ins NN_StorageTensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs NN_StorageTensor:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NN_PadOp : NN_Op<"pad", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "pad each dimension at both ends";
  let description = [{
    Adds `low[d]` elements before and `high[d]` after dimension `d`. With
    `mode = constant` new elements are `value` (of the element type); with
    `reflect` they mirror the input without repeating the edge (a pad must be
    smaller than the dimension); with `edge` they repeat the edge element;
    with `wrap` they continue the input periodically, as if it repeated
    end to end (`numpy.pad` mode `wrap`).

    ```mlir
    %y = nn.pad %x low = [0, 1] high = [0, 2] value = 0.0 : f32
        : tensor<4x8xf32> -> tensor<4x11xf32>
    %z = nn.pad %x low = [0, 1] high = [0, 1] mode = reflect
        : tensor<4x8xf32> -> tensor<4x10xf32>
    %w = nn.pad %x low = [0, 9] high = [0, 2] mode = wrap
        : tensor<4x8xf32> -> tensor<4x19xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high,
                       DefaultValuedAttr<NN_PadMode,
                         "::loom::nn::PadMode::Constant">:$mode,
                       OptionalAttr<TypedAttrInterface>:$value);
  let results = (outs NN_AnyTensor:$result);
  let assemblyFormat = [{
    $input `low` `=` $low `high` `=` $high (`mode` `=` $mode^)?
      (`value` `=` $value^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def NN_TriluOp : NN_SameTypeOp<"trilu", [DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let summary = "keep the upper or lower triangle of the last two dimensions";
  let description = [{
    Zeroes the elements below (`upper`) or above (lower) the `k`-th diagonal
    of every matrix in the last two dimensions, as ONNX `Trilu`.

    ```mlir
    %causal = nn.trilu %ones lower k = 0 : tensor<16x16xf32>
    ```
  }];
  let arguments = (ins NN_AnyTensor:$input, UnitAttr:$upper,
                       DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs NN_AnyTensor:$result);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $input custom<TriangleKind>($upper) `k` `=` $k attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

include "nn/NNOptimizerOps.td"

#endif // LOOM_NN_OPS
