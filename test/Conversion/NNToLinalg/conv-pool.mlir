// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Convolutions and pools become linalg's named NCHW (and NCW) ops on an input
// padded with tensor.pad (ONNX padding order: all begins, then all ends);
// 3-D pools, for which linalg has channels-last ops only, become the same
// loops as a linalg.generic.

// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x3x8x8xf32>, %[[W:[^:]+]]: tensor<16x3x3x3xf32>, %[[B:[^:]+]]: tensor<16xf32>)
// CHECK:         %[[PADV:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 2, 1]
// CHECK:           tensor.yield %[[PADV]] : f32
// CHECK:         } : tensor<1x3x8x8xf32> to tensor<1x3x11x10xf32>
// CHECK:         %[[ACC:.+]] = linalg.fill
// CHECK-SAME:      -> tensor<1x16x5x8xf32>
// CHECK:         %[[C:.+]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:      dilations = dense<1> : tensor<2xi64>
// CHECK-SAME:      strides = dense<[2, 1]> : tensor<2xi64>
// CHECK-SAME:      ins(%[[P]], %[[W]] : tensor<1x3x11x10xf32>, tensor<16x3x3x3xf32>) outs(%[[ACC]] : tensor<1x16x5x8xf32>)
// The bias is added per output channel (dimension 1).
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[C]], %[[B]] : tensor<1x16x5x8xf32>, tensor<16xf32>)
// CHECK-NEXT:    ^bb0(%[[V:.+]]: f32, %[[BV:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[V]], %[[BV]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[R]]
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x5x8xf32> {
  %y = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1, 2, 1>, strides = array<i64: 2, 1>} : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32> -> tensor<1x16x5x8xf32>
  return %y : tensor<1x16x5x8xf32>
}

// -----

// No padding: no tensor.pad; no bias: the conv is the result. The padded
// input may be longer than the last window needs (stride 2 here).
// CHECK-LABEL: func.func @conv_no_bias(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x3x9x9xf32>, %[[W:[^:]+]]: tensor<4x3x3x3xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[C:.+]] = linalg.conv_2d_nchw_fchw
// CHECK-SAME:      strides = dense<2> : tensor<2xi64>
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>)
// CHECK-NEXT:    return %[[C]]
func.func @conv_no_bias(%x: tensor<1x3x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %y = nn.conv2d %x, %w {strides = array<i64: 2, 2>} : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Grouped convolution: channels split as [groups, C / groups], filters as
// [groups, O / groups, ...], linalg's NGCHW/GFCHW conv, then the [G, O / G]
// output channels collapse back to O (channel o = g * (O / G) + f).
// CHECK-LABEL: func.func @conv_groups(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4x8x8xf32>, %[[W:[^:]+]]: tensor<6x2x3x3xf32>)
// CHECK-DAG:     %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 8, 8] : tensor<2x4x8x8xf32> into tensor<2x2x2x8x8xf32>
// CHECK-DAG:     %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK:         %[[ACC:.+]] = linalg.fill
// CHECK-SAME:      -> tensor<2x2x3x4x4xf32>
// CHECK:         %[[C:.+]] = linalg.conv_2d_ngchw_gfchw
// CHECK-SAME:      dilations = dense<2> : tensor<2xi64>
// CHECK-SAME:      strides = dense<1> : tensor<2xi64>
// CHECK-SAME:      ins(%[[XG]], %[[WG]] : tensor<2x2x2x8x8xf32>, tensor<2x3x2x3x3xf32>) outs(%[[ACC]] : tensor<2x2x3x4x4xf32>)
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x4x4xf32> into tensor<2x6x4x4xf32>
// CHECK:         return %[[R]]
func.func @conv_groups(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32> {
  %y = nn.conv2d %x, %w {groups = 2 : i64, dilations = array<i64: 2, 2>} : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x4x4xf32>
  return %y : tensor<2x6x4x4xf32>
}

// -----

// Max pooling over a -inf-initialised accumulator; the window is a shape-only
// tensor.empty of the kernel size.
// CHECK-LABEL: func.func @max_pool(
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x8x8xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK-SAME:      -> tensor<1x16x4x4xf32>
// CHECK:         %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK:         %[[R:.+]] = linalg.pooling_nchw_max
// CHECK-SAME:      dilations = dense<1> : tensor<2xi64>
// CHECK-SAME:      strides = dense<2> : tensor<2xi64>
// CHECK-SAME:      ins(%[[X]], %[[WIN]] : tensor<1x16x8x8xf32>, tensor<2x2xf32>) outs(%[[ACC]] : tensor<1x16x4x4xf32>)
// CHECK:         return %[[R]]
func.func @max_pool(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %y = nn.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

// -----

// Padded positions never win: the padding value is -inf (the lowest value for
// integers). Dilations pass through.
// CHECK-LABEL: func.func @max_pool_padded(
// CHECK-SAME:    %[[X:.+]]: tensor<1x2x7x7xf32>)
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 0, 1]
// CHECK:           tensor.yield %[[NEGINF]] : f32
// CHECK:         } : tensor<1x2x7x7xf32> to tensor<1x2x8x8xf32>
// CHECK:         linalg.pooling_nchw_max
// CHECK-SAME:      dilations = dense<[2, 1]> : tensor<2xi64>
// CHECK-SAME:      ins(%[[P]], %{{.+}} : tensor<1x2x8x8xf32>, tensor<3x3xf32>)
func.func @max_pool_padded(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x2x3xf32> {
  %y = nn.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, dilations = array<i64: 2, 1>} : tensor<1x2x7x7xf32> -> tensor<1x2x2x3xf32>
  return %y : tensor<1x2x2x3xf32>
}

// -----

// ceil_mode: the last window overhangs the input; the overhang is padded with
// the lowest value so that every window lies inside the padded input.
// CHECK-LABEL: func.func @max_pool_ceil_i32(
// CHECK-SAME:    %[[X:.+]]: tensor<1x2x5x5xi32>)
// CHECK:         %[[MIN:.+]] = arith.constant -2147483648 : i32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[MIN]] : i32
// CHECK:         } : tensor<1x2x5x5xi32> to tensor<1x2x6x6xi32>
// CHECK:         %[[MIN2:.+]] = arith.constant -2147483648 : i32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[MIN2]] : i32)
// CHECK:         linalg.pooling_nchw_max
// CHECK-SAME:      ins(%[[P]], %{{.+}} : tensor<1x2x6x6xi32>, tensor<2x2xi32>) outs(%[[ACC]] : tensor<1x2x3x3xi32>)
func.func @max_pool_ceil_i32(%x: tensor<1x2x5x5xi32>) -> tensor<1x2x3x3xi32> {
  %y = nn.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : tensor<1x2x5x5xi32> -> tensor<1x2x3x3xi32>
  return %y : tensor<1x2x3x3xi32>
}

// -----

// 1-D windows use the NCW op.
// CHECK-LABEL: func.func @max_pool_1d(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x8xi32>)
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1] high[0, 0, 0]
// CHECK:         } : tensor<2x3x8xi32> to tensor<2x3x9xi32>
// CHECK:         %[[R:.+]] = linalg.pooling_ncw_max
// CHECK-SAME:      dilations = dense<1> : tensor<1xi64>
// CHECK-SAME:      strides = dense<3> : tensor<1xi64>
// CHECK-SAME:      ins(%[[P]], %{{.+}} : tensor<2x3x9xi32>, tensor<3xi32>) outs(%{{.+}} : tensor<2x3x3xi32>)
// CHECK:         return %[[R]]
func.func @max_pool_1d(%x: tensor<2x3x8xi32>) -> tensor<2x3x3xi32> {
  %y = nn.max_pool %x {kernel = array<i64: 3>, strides = array<i64: 3>, padding = array<i64: 1, 0>} : tensor<2x3x8xi32> -> tensor<2x3x3xi32>
  return %y : tensor<2x3x3xi32>
}

// -----

// 3-D windows: a generic over (n, c, od, oh, ow, kd, kh, kw) reading the
// input at output * stride + window * dilation, reducing over the window.
// CHECK-LABEL: func.func @max_pool_3d(
// CHECK-SAME:    %[[X:.+]]: tensor<1x2x4x4x4xf32>)
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK:         %[[WIN:.+]] = tensor.empty() : tensor<2x2x2xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 + d5 * 2, d3 * 2 + d6, d4 + d7)>,
// CHECK-SAME:                       affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>,
// CHECK-SAME:                       affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[WIN]] : tensor<1x2x4x4x4xf32>, tensor<2x2x2xf32>) outs(%[[ACC]] : tensor<1x2x2x2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32, %[[OUT:.+]]: f32):
// CHECK-NEXT:      %[[M:.+]] = arith.maximumf %[[IN]], %[[OUT]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         return %[[R]]
func.func @max_pool_3d(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x3xf32> {
  %y = nn.max_pool %x {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 2, 1>, dilations = array<i64: 2, 1, 1>} : tensor<1x2x4x4x4xf32> -> tensor<1x2x2x2x3xf32>
  return %y : tensor<1x2x2x2x3xf32>
}

// -----

// Average pooling: a sum pool over the zero-padded input, then a division by
// the number of window positions inside the input. Per spatial dimension the
// counts are constants: without count_include_pad the windows [o - 1, o + 2)
// along H keep 2, 3, ..., 3, 2 positions of [0, 8); W likewise. Dimensions
// whose windows all count the same multiply a constant instead.
// CHECK-LABEL: func.func @avg_pool(
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x8x8xf32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK-SAME:      strides = dense<1> : tensor<2xi64>
// CHECK-SAME:      ins(%[[P]], %[[WIN]] : tensor<1x16x10x10xf32>, tensor<3x3xf32>)
// CHECK:         %[[NH:.+]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<8xf32>
// CHECK:         %[[NW:.+]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<8xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[SUM]], %[[NH]], %[[NW]] : tensor<1x16x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.+]]: f32, %[[CH:.+]]: f32, %[[CW:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[N:.+]] = arith.mulf %[[CH]], %[[CW]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @avg_pool(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = nn.avg_pool %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// -----

// With count_include_pad every window position counts, the padding too: the
// divisor is the kernel size.
// CHECK-LABEL: func.func @avg_pool_include_pad(
// CHECK:         %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SUM]] : tensor<1x16x8x8xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[N:.+]] = arith.constant 9.000000e+00 : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[S]], %[[N]] : f32
func.func @avg_pool_include_pad(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = nn.avg_pool %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// -----

// ceil_mode with count_include_pad: the overhang past the padded input is
// padded for the sum and, as in ONNX, counted like padding.
// CHECK-LABEL: func.func @avg_pool_ceil(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x5x5xf32>)
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:         } : tensor<1x1x5x5xf32> to tensor<1x1x6x6xf32>
// CHECK:         linalg.pooling_nchw_sum
// CHECK-SAME:      strides = dense<2> : tensor<2xi64>
// CHECK-SAME:      ins(%[[P]], %{{.+}} : tensor<1x1x6x6xf32>, tensor<2x2xf32>)
// CHECK:         linalg.generic
// CHECK:           %[[N:.+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      arith.divf %{{.+}}, %[[N]] : f32
func.func @avg_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %y = nn.avg_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true, count_include_pad = true} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

// -----

// Without count_include_pad the overhang does not count: the last window of
// each row and column holds 1 input position.
// CHECK-LABEL: func.func @avg_pool_ceil_exclude_pad(
// CHECK:         linalg.pooling_nchw_sum
// CHECK:         %[[NH:.+]] = arith.constant dense<[2.000000e+00, 2.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK:         %[[NW:.+]] = arith.constant dense<[2.000000e+00, 2.000000e+00, 1.000000e+00]> : tensor<3xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.+}}, %[[NH]], %[[NW]] :
func.func @avg_pool_ceil_exclude_pad(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %y = nn.avg_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
}

// -----

// Dilated windows count the positions they read: along H (padding 1,
// dilation 2) the window at o reads o - 1 and o + 1, so the first and last
// keep one position of [0, 5); along W (dilation 3) every window keeps 2,
// a constant factor.
// CHECK-LABEL: func.func @avg_pool_dilated(
// CHECK:         linalg.pooling_nchw_sum
// CHECK-SAME:      dilations = dense<[2, 3]> : tensor<2xi64>
// CHECK:         %[[NH:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 2.000000e+00, 2.000000e+00, 1.000000e+00]> : tensor<5xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SUM:.+]], %[[NH]] : tensor<1x1x5x2xf32>, tensor<5xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.+]]: f32, %[[CH:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[NW:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[N:.+]] = arith.mulf %[[NW]], %[[CH]] : f32
// CHECK-NEXT:      arith.divf %[[S]], %[[N]] : f32
func.func @avg_pool_dilated(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x5x2xf32> {
  %y = nn.avg_pool %x {kernel = array<i64: 2, 2>, dilations = array<i64: 2, 3>, padding = array<i64: 1, 0, 1, 0>} : tensor<1x1x5x5xf32> -> tensor<1x1x5x2xf32>
  return %y : tensor<1x1x5x2xf32>
}

// -----

// 3-D average pooling sums in a generic, extending halves to f32.
// CHECK-LABEL: func.func @avg_pool_3d_bf16(
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:      outs(%{{.+}} : tensor<1x1x2x2x2xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: bf16, %{{.+}}: bf16, %[[OUT:.+]]: f32):
// CHECK-NEXT:      %[[E:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT:      %[[A:.+]] = arith.addf %[[E]], %[[OUT]] : f32
// CHECK-NEXT:      linalg.yield %[[A]] : f32
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[SUM]] : tensor<1x1x2x2x2xf32>)
// CHECK:           %[[N:.+]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %{{.+}}, %[[N]] : f32
// CHECK-NEXT:      arith.truncf %[[V]] : f32 to bf16
func.func @avg_pool_3d_bf16(%x: tensor<1x1x4x4x4xbf16>) -> tensor<1x1x2x2x2xbf16> {
  %y = nn.avg_pool %x {kernel = array<i64: 2, 2, 2>, dilations = array<i64: 2, 2, 2>, ceil_mode = true} : tensor<1x1x4x4x4xbf16> -> tensor<1x1x2x2x2xbf16>
  return %y : tensor<1x1x2x2x2xbf16>
}

// -----

// Global average pooling: a reassociable sum over H and W, a division by
// H * W, and the [N, C] result expanded to [N, C, 1, 1].
// CHECK-LABEL: func.func @global_avg_pool(
// CHECK-SAME:    %[[X:.+]]: tensor<2x16x8x8xf32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK-SAME:      -> tensor<2x16xf32>
// CHECK:         %[[SUM:.+]] = linalg.reduce ins(%[[X]] : tensor<2x16x8x8xf32>) outs(%[[ACC]] : tensor<2x16xf32>) dimensions = [2, 3]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[MEAN:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[SUM]] : tensor<2x16xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[HW:.+]] = arith.constant 6.400000e+01 : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[IN]], %[[HW]] : f32
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0], [1, 2, 3]] output_shape [2, 16, 1, 1] : tensor<2x16xf32> into tensor<2x16x1x1xf32>
// CHECK:         return %[[R]]
func.func @global_avg_pool(%x: tensor<2x16x8x8xf32>) -> tensor<2x16x1x1xf32> {
  %y = nn.global_avg_pool2d %x : tensor<2x16x8x8xf32> -> tensor<2x16x1x1xf32>
  return %y : tensor<2x16x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @global_max_pool(
// CHECK-SAME:    %[[X:.+]]: tensor<2x16x8x8xi64>)
// CHECK:         %[[MIN:.+]] = arith.constant -9223372036854775808 : i64
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[MIN]] : i64)
// CHECK:         %[[M:.+]] = linalg.reduce ins(%[[X]] : tensor<2x16x8x8xi64>) outs(%[[ACC]] : tensor<2x16xi64>) dimensions = [2, 3]
// CHECK:           arith.maxsi
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[M]] {{\[}}[0], [1, 2, 3]] output_shape [2, 16, 1, 1]
// CHECK:         return %[[R]]
func.func @global_max_pool(%x: tensor<2x16x8x8xi64>) -> tensor<2x16x1x1xi64> {
  %y = nn.global_max_pool2d %x : tensor<2x16x8x8xi64> -> tensor<2x16x1x1xi64>
  return %y : tensor<2x16x1x1xi64>
}
