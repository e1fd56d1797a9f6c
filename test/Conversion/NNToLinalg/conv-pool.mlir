// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Convolutions and pools become linalg's named NCHW ops on an input padded
// with tensor.pad (ONNX padding order [top, left, bottom, right]).

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
// CHECK-DAG:     %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK-DAG:     %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK-SAME:      -> tensor<1x16x4x4xf32>
// CHECK:         %[[R:.+]] = linalg.pooling_nchw_max
// CHECK-SAME:      dilations = dense<1> : tensor<2xi64>
// CHECK-SAME:      strides = dense<2> : tensor<2xi64>
// CHECK-SAME:      ins(%[[X]], %[[WIN]] : tensor<1x16x8x8xf32>, tensor<2x2xf32>) outs(%[[ACC]] : tensor<1x16x4x4xf32>)
// CHECK:         return %[[R]]
func.func @max_pool(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32> {
  %y = nn.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x16x8x8xf32> -> tensor<1x16x4x4xf32>
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
  %y = nn.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, dilations = array<i64: 2, 1>} : tensor<1x2x7x7xf32> -> tensor<1x2x2x3xf32>
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
  %y = nn.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : tensor<1x2x5x5xi32> -> tensor<1x2x3x3xi32>
  return %y : tensor<1x2x3x3xi32>
}

// -----

// Average pooling: a sum pool over the zero-padded input, then a division by
// the number of positions each window covers. Without count_include_pad the
// window [o * stride - pad_begin, + kernel) is clamped to the input, [0, 8).
// CHECK-LABEL: func.func @avg_pool(
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x8x8xf32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[SUM:.+]] = linalg.pooling_nchw_sum
// CHECK-SAME:      strides = dense<1> : tensor<2xi64>
// CHECK-SAME:      ins(%[[P]], %[[WIN]] : tensor<1x16x10x10xf32>, tensor<3x3xf32>)
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[SUM]] : tensor<1x16x8x8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// Rows: start = oh * 1 - 1, end = start + 3, clamped to [0, 8).
// CHECK-NEXT:      %[[OH:.+]] = linalg.index 2 : index
// CHECK-DAG:       %[[PT:.+]] = arith.constant 1 : index
// CHECK-DAG:       %[[SH:.+]] = arith.constant 1 : index
// CHECK:           %[[T0:.+]] = arith.muli %[[OH]], %[[SH]] : index
// CHECK-NEXT:      %[[HS:.+]] = arith.subi %[[T0]], %[[PT]] : index
// CHECK-NEXT:      %[[KH:.+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[HE:.+]] = arith.addi %[[HS]], %[[KH]] : index
// CHECK-NEXT:      %[[LO:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[HS2:.+]] = arith.maxsi %[[HS]], %[[LO]] : index
// CHECK-NEXT:      %[[HI:.+]] = arith.constant 8 : index
// CHECK-NEXT:      %[[HE2:.+]] = arith.minsi %[[HE]], %[[HI]] : index
// CHECK-NEXT:      %[[NH:.+]] = arith.subi %[[HE2]], %[[HS2]] : index
// Columns likewise.
// CHECK-NEXT:      %[[OW:.+]] = linalg.index 3 : index
// CHECK:           arith.muli %[[OW]]
// CHECK:           arith.minsi
// CHECK-NEXT:      %[[NW:.+]] = arith.subi
// CHECK-NEXT:      %[[N:.+]] = arith.muli %[[NH]], %[[NW]] : index
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[N1:.+]] = arith.maxsi %[[N]], %[[ONE]] : index
// CHECK-NEXT:      %[[NI:.+]] = arith.index_cast %[[N1]] : index to i64
// CHECK-NEXT:      %[[NF:.+]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[IN]], %[[NF]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @avg_pool(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = nn.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// -----

// count_include_pad clamps the window to the explicitly padded input instead,
// [-pad_begin, extent + pad_end) = [-1, 9).
// CHECK-LABEL: func.func @avg_pool_include_pad(
// CHECK:         linalg.pooling_nchw_sum
// CHECK:         linalg.generic
// CHECK:           linalg.index 2 : index
// CHECK:           %[[LO:.+]] = arith.constant -1 : index
// CHECK-NEXT:      arith.maxsi %{{.+}}, %[[LO]] : index
// CHECK-NEXT:      %[[HI:.+]] = arith.constant 9 : index
// CHECK-NEXT:      arith.minsi %{{.+}}, %[[HI]] : index
// CHECK:           linalg.index 3 : index
// CHECK:           %[[LO2:.+]] = arith.constant -1 : index
// CHECK-NEXT:      arith.maxsi %{{.+}}, %[[LO2]] : index
// CHECK-NEXT:      %[[HI2:.+]] = arith.constant 9 : index
// CHECK-NEXT:      arith.minsi %{{.+}}, %[[HI2]] : index
// CHECK:           arith.divf
func.func @avg_pool_include_pad(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = nn.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}

// -----

// ceil_mode with count_include_pad: the overhang beyond the explicit padding
// is padded for the sum but not counted (the divisor clamps at 5 + 0), as in
// PyTorch.
// CHECK-LABEL: func.func @avg_pool_ceil(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x5x5xf32>)
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:         } : tensor<1x1x5x5xf32> to tensor<1x1x6x6xf32>
// CHECK:         linalg.pooling_nchw_sum
// CHECK-SAME:      strides = dense<2> : tensor<2xi64>
// CHECK-SAME:      ins(%[[P]], %{{.+}} : tensor<1x1x6x6xf32>, tensor<2x2xf32>)
// CHECK:         linalg.generic
// CHECK:           linalg.index 2 : index
// CHECK:           %[[HI:.+]] = arith.constant 5 : index
// CHECK-NEXT:      arith.minsi %{{.+}}, %[[HI]] : index
func.func @avg_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %y = nn.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true, count_include_pad = true} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
  return %y : tensor<1x1x3x3xf32>
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
