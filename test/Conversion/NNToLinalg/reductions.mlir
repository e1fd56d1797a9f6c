// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Reductions become linalg.reduce into an accumulator filled with the
// identity; float sums carry reassoc (and contract) so that LLVM can
// vectorise them. keepdims reinserts the reduced dimensions with
// tensor.expand_shape.

// CHECK-LABEL: func.func @sum_keepdims(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK-DAG:     %[[INIT:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[INIT]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[S:.+]] = linalg.reduce ins(%[[X]] : tensor<4x8xf32>) outs(%[[ACC]] : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT:      (%[[IN:.+]]: f32, %[[A:.+]]: f32) {
// CHECK-NEXT:        %[[V:.+]] = arith.addf %[[IN]], %[[A]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:        linalg.yield %[[V]] : f32
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[S]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:         return %[[R]] : tensor<4x1xf32>
func.func @sum_keepdims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %s = nn.reduce_sum %x axes = [1] {keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// -----

// Integer sums need no fast-math flags; non-adjacent axes with keepdims.
// CHECK-LABEL: func.func @sum_i32(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xi32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : i32)
// CHECK:         %[[S:.+]] = linalg.reduce ins(%[[X]] : tensor<2x3x4xi32>) outs(%[[ACC]] : tensor<3xi32>) dimensions = [0, 2]
// CHECK-NEXT:      (%[[IN:.+]]: i32, %[[A:.+]]: i32) {
// CHECK-NEXT:        %[[V:.+]] = arith.addi %[[IN]], %[[A]] : i32
// CHECK:         tensor.expand_shape %[[S]] {{\[}}[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xi32> into tensor<1x3x1xi32>
func.func @sum_i32(%x: tensor<2x3x4xi32>) -> tensor<1x3x1xi32> {
  %s = nn.reduce_sum %x axes = [0, 2] {keepdims = true} : tensor<2x3x4xi32> -> tensor<1x3x1xi32>
  return %s : tensor<1x3x1xi32>
}

// -----

// An empty axis list reduces nothing: the op folds to its input.
// CHECK-LABEL: func.func @sum_no_axes(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT:     linalg.reduce
// CHECK:         return %[[X]]
func.func @sum_no_axes(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = nn.reduce_sum %x axes = [] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// Mean: sum, then divide by the number of reduced elements (4 * 8).
// CHECK-LABEL: func.func @mean_all(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[S:.+]] = linalg.reduce ins(%[[X]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<f32>) dimensions = [0, 1]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[M:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>]
// CHECK-SAME:      iterator_types = []
// CHECK-SAME:      ins(%[[S]] : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[N:.+]] = arith.constant 3.200000e+01 : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[IN]], %[[N]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[M]] : tensor<f32>
func.func @mean_all(%x: tensor<4x8xf32>) -> tensor<f32> {
  %m = nn.reduce_mean %x axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// keepdims of a full reduction: the rank-0 result expands to 1x1.
// CHECK-LABEL: func.func @mean_all_keepdims(
// CHECK:         %[[M:.+]] = linalg.generic
// CHECK:           arith.divf
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[M]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK:         return %[[R]]
func.func @mean_all_keepdims(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %m = nn.reduce_mean %x axes = [0, 1] {keepdims = true} : tensor<4x8xf32> -> tensor<1x1xf32>
  return %m : tensor<1x1xf32>
}

// -----

// Max starts from -inf and uses the NaN-propagating maximumf.
// CHECK-LABEL: func.func @max_f32(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK:         %[[M:.+]] = linalg.reduce ins(%[[X]] : tensor<4x8xf32>) outs(%[[ACC]] : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT:      (%[[IN:.+]]: f32, %[[A:.+]]: f32) {
// CHECK-NEXT:        %[[V:.+]] = arith.maximumf %[[IN]], %[[A]] : f32
// CHECK:         return %[[M]] : tensor<4xf32>
func.func @max_f32(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %m = nn.reduce_max %x axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// Integer max starts from the signed minimum.
// CHECK-LABEL: func.func @max_i8(
// CHECK:         %[[MIN:.+]] = arith.constant -128 : i8
// CHECK:         linalg.fill ins(%[[MIN]] : i8)
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [0]
// CHECK:           arith.maxsi %{{.+}}, %{{.+}} : i8
func.func @max_i8(%x: tensor<4x8xi8>) -> tensor<8xi8> {
  %m = nn.reduce_max %x axes = [0] : tensor<4x8xi8> -> tensor<8xi8>
  return %m : tensor<8xi8>
}

// -----

// Min starts from +inf and uses minimumf.
// CHECK-LABEL: func.func @min_f32(
// CHECK:         %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK:         linalg.fill ins(%[[INF]] : f32)
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [0]
// CHECK-NEXT:      (%[[IN:.+]]: f32, %[[A:.+]]: f32) {
// CHECK-NEXT:        arith.minimumf %[[IN]], %[[A]] : f32
func.func @min_f32(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %m = nn.reduce_min %x axes = [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Integer min starts from the signed maximum.
// CHECK-LABEL: func.func @min_i64(
// CHECK:         %[[MAX:.+]] = arith.constant 9223372036854775807 : i64
// CHECK:         linalg.fill ins(%[[MAX]] : i64)
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [1]
// CHECK:           arith.minsi %{{.+}}, %{{.+}} : i64
func.func @min_i64(%x: tensor<4x8xi64>) -> tensor<4xi64> {
  %m = nn.reduce_min %x axes = [1] : tensor<4x8xi64> -> tensor<4xi64>
  return %m : tensor<4xi64>
}
