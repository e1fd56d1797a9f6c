// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.matmul becomes a named contraction on a zero-filled accumulator, so
// that -convert-linalg-to-kernels can hand it to BLAS after bufferization.

// CHECK-LABEL: func.func @plain(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x16xf32>, %[[B:[^:]+]]: tensor<16x8xf32>)
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[INIT:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[INIT]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[R:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x16xf32>, tensor<16x8xf32>) outs(%[[ACC]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         return %[[R]] : tensor<4x8xf32>
func.func @plain(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %y = nn.matmul %a, %b : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Integer matmuls are linalg.matmul too (they stay loops later).
// CHECK-LABEL: func.func @integer(
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : i8)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xi8>, tensor<16x8xi8>) outs(%[[ACC]] : tensor<4x8xi8>)
func.func @integer(%a: tensor<4x16xi8>, %b: tensor<16x8xi8>) -> tensor<4x8xi8> {
  %y = nn.matmul %a, %b : tensor<4x16xi8>, tensor<16x8xi8> -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

// A 2-D right operand is shared by every batch: the batch dimensions fold
// into M, one linalg.matmul, and the result expands back.
// CHECK-LABEL: func.func @folded_batch(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x3x4x16xf32>, %[[B:[^:]+]]: tensor<16x8xf32>)
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2], [3]] : tensor<2x3x4x16xf32> into tensor<24x16xf32>
// CHECK:         %[[ACC:.+]] = linalg.fill
// CHECK-SAME:      -> tensor<24x8xf32>
// CHECK:         %[[MM:.+]] = linalg.matmul ins(%[[FLAT]], %[[B]] : tensor<24x16xf32>, tensor<16x8xf32>) outs(%[[ACC]] : tensor<24x8xf32>)
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1, 2], [3]] output_shape [2, 3, 4, 8] : tensor<24x8xf32> into tensor<2x3x4x8xf32>
// CHECK:         return %[[R]]
// CHECK-NOT:     linalg.batch_matmul
func.func @folded_batch(%a: tensor<2x3x4x16xf32>, %b: tensor<16x8xf32>) -> tensor<2x3x4x8xf32> {
  %y = nn.matmul %a, %b : tensor<2x3x4x16xf32>, tensor<16x8xf32> -> tensor<2x3x4x8xf32>
  return %y : tensor<2x3x4x8xf32>
}

// -----

// Both operands batched: linalg.batch_matmul.
// CHECK-LABEL: func.func @batched(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x4x16xf64>, %[[B:[^:]+]]: tensor<2x16x8xf64>)
// CHECK:         %[[ACC:.+]] = linalg.fill
// CHECK-SAME:      -> tensor<2x4x8xf64>
// CHECK:         %[[R:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x4x16xf64>, tensor<2x16x8xf64>) outs(%[[ACC]] : tensor<2x4x8xf64>)
// CHECK:         return %[[R]]
func.func @batched(%a: tensor<2x4x16xf64>, %b: tensor<2x16x8xf64>) -> tensor<2x4x8xf64> {
  %y = nn.matmul %a, %b : tensor<2x4x16xf64>, tensor<2x16x8xf64> -> tensor<2x4x8xf64>
  return %y : tensor<2x4x8xf64>
}

// -----

// Several batch dimensions collapse to one for linalg.batch_matmul.
// CHECK-LABEL: func.func @multi_batch(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x3x4x16xf32>, %[[B:[^:]+]]: tensor<2x3x16x8xf32>)
// CHECK-DAG:     %[[FA:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x4x16xf32> into tensor<6x4x16xf32>
// CHECK-DAG:     %[[FB:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x16x8xf32> into tensor<6x16x8xf32>
// CHECK:         %[[MM:.+]] = linalg.batch_matmul ins(%[[FA]], %[[FB]] : tensor<6x4x16xf32>, tensor<6x16x8xf32>)
// CHECK:         tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 4, 8] : tensor<6x4x8xf32> into tensor<2x3x4x8xf32>
func.func @multi_batch(%a: tensor<2x3x4x16xf32>, %b: tensor<2x3x16x8xf32>) -> tensor<2x3x4x8xf32> {
  %y = nn.matmul %a, %b : tensor<2x3x4x16xf32>, tensor<2x3x16x8xf32> -> tensor<2x3x4x8xf32>
  return %y : tensor<2x3x4x8xf32>
}

// -----

// Batch broadcasting: a 2-D left operand against a batched right operand is
// materialised over the batch (a copy generic with a broadcasting map).
// CHECK-LABEL: func.func @broadcast_lhs(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x16xf32>, %[[B:[^:]+]]: tensor<3x16x8xf32>)
// CHECK:         %[[BA:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[A]] : tensor<4x16xf32>) outs(%{{.+}} : tensor<3x4x16xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         linalg.batch_matmul ins(%[[BA]], %[[B]] : tensor<3x4x16xf32>, tensor<3x16x8xf32>)
func.func @broadcast_lhs(%a: tensor<4x16xf32>, %b: tensor<3x16x8xf32>) -> tensor<3x4x8xf32> {
  %y = nn.matmul %a, %b : tensor<4x16xf32>, tensor<3x16x8xf32> -> tensor<3x4x8xf32>
  return %y : tensor<3x4x8xf32>
}

// -----

// Size-1 batch dimensions broadcast against the other operand's.
// CHECK-LABEL: func.func @broadcast_ones(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<1x4x16xf32>, %[[B:[^:]+]]: tensor<3x1x16x8xf32>)
// CHECK:         %[[BA:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      outs(%{{.+}} : tensor<3x1x4x16xf32>)
// CHECK-DAG:     %[[FA:.+]] = tensor.collapse_shape %[[BA]] {{\[}}[0], [1, 2], [3]] : tensor<3x1x4x16xf32> into tensor<3x4x16xf32>
// CHECK-DAG:     %[[FB:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0], [1, 2], [3]] : tensor<3x1x16x8xf32> into tensor<3x16x8xf32>
// CHECK:         %[[MM:.+]] = linalg.batch_matmul ins(%[[FA]], %[[FB]] : tensor<3x4x16xf32>, tensor<3x16x8xf32>)
// CHECK:         tensor.expand_shape %[[MM]] {{.*}} output_shape [3, 1, 4, 8] : tensor<3x4x8xf32> into tensor<3x1x4x8xf32>
func.func @broadcast_ones(%a: tensor<1x4x16xf32>, %b: tensor<3x1x16x8xf32>) -> tensor<3x1x4x8xf32> {
  %y = nn.matmul %a, %b : tensor<1x4x16xf32>, tensor<3x1x16x8xf32> -> tensor<3x1x4x8xf32>
  return %y : tensor<3x1x4x8xf32>
}

// -----

// x @ transpose(w) reads w in place: matmul_transpose_b on w itself.
// CHECK-LABEL: func.func @transpose_b(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x16xf32>, %[[W:[^:]+]]: tensor<8x16xf32>)
// CHECK:         %[[ACC:.+]] = linalg.fill
// CHECK-SAME:      -> tensor<4x8xf32>
// CHECK:         %[[R:.+]] = linalg.matmul_transpose_b ins(%[[A]], %[[W]] : tensor<4x16xf32>, tensor<8x16xf32>) outs(%[[ACC]] : tensor<4x8xf32>)
// CHECK:         return %[[R]]
// CHECK-NOT:     linalg.matmul ins
func.func @transpose_b(%a: tensor<4x16xf32>, %w: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %t = nn.transpose %w [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %y = nn.matmul %a, %t : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The same with the batch dimensions of the left operand folded into M.
// CHECK-LABEL: func.func @transpose_b_folded(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x4x16xf32>, %[[W:[^:]+]]: tensor<8x16xf32>)
// CHECK:         %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
// CHECK:         %[[MM:.+]] = linalg.matmul_transpose_b ins(%[[FLAT]], %[[W]] : tensor<8x16xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<8x8xf32>)
// CHECK:         tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [2, 4, 8] : tensor<8x8xf32> into tensor<2x4x8xf32>
func.func @transpose_b_folded(%a: tensor<2x4x16xf32>, %w: tensor<8x16xf32>) -> tensor<2x4x8xf32> {
  %t = nn.transpose %w [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %y = nn.matmul %a, %t : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Attention scores q @ k^T: a transpose of the last two dimensions of a
// batched operand gives batch_matmul_transpose_b on k itself.
// CHECK-LABEL: func.func @batch_transpose_b(
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<2x3x4x16xf32>, %[[K:[^:]+]]: tensor<2x3x8x16xf32>)
// CHECK-DAG:     %[[FQ:.+]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x4x16xf32> into tensor<6x4x16xf32>
// CHECK-DAG:     %[[FK:.+]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x8x16xf32> into tensor<6x8x16xf32>
// CHECK:         %[[MM:.+]] = linalg.batch_matmul_transpose_b ins(%[[FQ]], %[[FK]] : tensor<6x4x16xf32>, tensor<6x8x16xf32>) outs(%{{.+}} : tensor<6x4x8xf32>)
// CHECK:         tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 4, 8] : tensor<6x4x8xf32> into tensor<2x3x4x8xf32>
func.func @batch_transpose_b(%q: tensor<2x3x4x16xf32>, %k: tensor<2x3x8x16xf32>) -> tensor<2x3x4x8xf32> {
  %t = nn.transpose %k [0, 1, 3, 2] : tensor<2x3x8x16xf32> -> tensor<2x3x16x8xf32>
  %y = nn.matmul %q, %t : tensor<2x3x4x16xf32>, tensor<2x3x16x8xf32> -> tensor<2x3x4x8xf32>
  return %y : tensor<2x3x4x8xf32>
}

// -----

// Any other permutation is a real transpose feeding a plain batch_matmul.
// CHECK-LABEL: func.func @other_permutation(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<4x16x8xf32>, %[[W:[^:]+]]: tensor<16x4x8xf32>)
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[W]] : tensor<16x4x8xf32>) outs(%{{.+}} : tensor<4x8x16xf32>) permutation = [1, 2, 0]
// CHECK:         linalg.batch_matmul ins(%[[A]], %[[T]] : tensor<4x16x8xf32>, tensor<4x8x16xf32>)
// CHECK-NOT:     transpose_b
func.func @other_permutation(%a: tensor<4x16x8xf32>, %w: tensor<16x4x8xf32>) -> tensor<4x16x16xf32> {
  %t = nn.transpose %w [1, 2, 0] : tensor<16x4x8xf32> -> tensor<4x8x16xf32>
  %y = nn.matmul %a, %t : tensor<4x16x8xf32>, tensor<4x8x16xf32> -> tensor<4x16x16xf32>
  return %y : tensor<4x16x16xf32>
}

// -----

// A transposed left operand is not folded: only the right one is read
// transposed.
// CHECK-LABEL: func.func @transposed_lhs(
// CHECK:         %[[T:.+]] = linalg.transpose
// CHECK-SAME:      permutation = [1, 0]
// CHECK:         linalg.matmul ins(%[[T]], %{{.+}} : tensor<4x16xf32>, tensor<16x8xf32>)
func.func @transposed_lhs(%a: tensor<16x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %t = nn.transpose %a [1, 0] : tensor<16x4xf32> -> tensor<4x16xf32>
  %y = nn.matmul %t, %b : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
