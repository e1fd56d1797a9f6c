// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Reshapes become tensor.expand_shape/collapse_shape (through a flat vector
// when no direct reassociation exists), transposes linalg.transpose,
// concat tensor.insert_slice, slices and splits tensor.extract_slice, and
// slices with negative strides an indexed generic.

// CHECK-LABEL: func.func @reshape_expand(
// CHECK-SAME:    %[[X:.+]]: tensor<4x64xf32>)
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 4, 16] : tensor<4x64xf32> into tensor<4x4x16xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_expand(%x: tensor<4x64xf32>) -> tensor<4x4x16xf32> {
  %y = nn.reshape %x [4, 4, 16] : tensor<4x64xf32> -> tensor<4x4x16xf32>
  return %y : tensor<4x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_collapse(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x4xf32>)
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = nn.reshape %x [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// [4, 6] -> [6, 4] regroups elements across dimensions: through rank 1.
// CHECK-LABEL: func.func @reshape_regroup(
// CHECK-SAME:    %[[X:.+]]: tensor<4x6xi64>)
// CHECK:         %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<4x6xi64> into tensor<24xi64>
// CHECK-NEXT:    %[[R:.+]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [6, 4] : tensor<24xi64> into tensor<6x4xi64>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_regroup(%x: tensor<4x6xi64>) -> tensor<6x4xi64> {
  %y = nn.reshape %x [6, 4] : tensor<4x6xi64> -> tensor<6x4xi64>
  return %y : tensor<6x4xi64>
}

// -----

// Up in rank but not a refinement of the input's dimensions.
// CHECK-LABEL: func.func @reshape_up_regroup(
// CHECK-SAME:    %[[X:.+]]: tensor<2x6xf32>)
// CHECK:         %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
// CHECK-NEXT:    %[[R:.+]] = tensor.expand_shape %[[F]] {{\[}}[0, 1, 2]] output_shape [3, 2, 2] : tensor<12xf32> into tensor<3x2x2xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_up_regroup(%x: tensor<2x6xf32>) -> tensor<3x2x2xf32> {
  %y = nn.reshape %x [3, 2, 2] : tensor<2x6xf32> -> tensor<3x2x2xf32>
  return %y : tensor<3x2x2xf32>
}

// -----

// Moving a unit dimension within the same rank.
// CHECK-LABEL: func.func @reshape_unit_move(
// CHECK-SAME:    %[[X:.+]]: tensor<1x6xf32>)
// CHECK:         %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<1x6xf32> into tensor<6xf32>
// CHECK-NEXT:    %[[R:.+]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
func.func @reshape_unit_move(%x: tensor<1x6xf32>) -> tensor<6x1xf32> {
  %y = nn.reshape %x [6, 1] : tensor<1x6xf32> -> tensor<6x1xf32>
  return %y : tensor<6x1xf32>
}

// -----

// To rank 0: an empty reassociation.
// CHECK-LABEL: func.func @reshape_scalar(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1xf32>)
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[X]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %y = nn.reshape %x [] : tensor<1x1xf32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @squeeze(
// CHECK-SAME:    %[[X:.+]]: tensor<1x8x1xf32>)
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<1x8x1xf32> into tensor<8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @squeeze(%x: tensor<1x8x1xf32>) -> tensor<8xf32> {
  %y = nn.squeeze %x axes = [0, 2] : tensor<1x8x1xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_middle(
// CHECK-SAME:    %[[X:.+]]: tensor<2x1x3xi1>)
// CHECK:         %[[R:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<2x1x3xi1> into tensor<2x3xi1>
func.func @squeeze_middle(%x: tensor<2x1x3xi1>) -> tensor<2x3xi1> {
  %y = nn.squeeze %x axes = [1] : tensor<2x1x3xi1> -> tensor<2x3xi1>
  return %y : tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func.func @unsqueeze(
// CHECK-SAME:    %[[X:.+]]: tensor<8xf32>)
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[X]] {{\[}}[0, 1, 2]] output_shape [1, 8, 1] : tensor<8xf32> into tensor<1x8x1xf32>
// CHECK-NEXT:    return %[[R]]
func.func @unsqueeze(%x: tensor<8xf32>) -> tensor<1x8x1xf32> {
  %y = nn.unsqueeze %x axes = [0, 2] : tensor<8xf32> -> tensor<1x8x1xf32>
  return %y : tensor<1x8x1xf32>
}

// -----

// CHECK-LABEL: func.func @unsqueeze_scalar(
// CHECK-SAME:    %[[X:.+]]: tensor<f32>)
// CHECK:         %[[R:.+]] = tensor.expand_shape %[[X]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @unsqueeze_scalar(%x: tensor<f32>) -> tensor<1xf32> {
  %y = nn.unsqueeze %x axes = [0] : tensor<f32> -> tensor<1xf32>
  return %y : tensor<1xf32>
}

// -----

// Result dimension i is input dimension permutation[i], as in linalg.transpose.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    %[[X:.+]]: tensor<2x4x8xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<8x2x4xf32>
// CHECK:         %[[R:.+]] = linalg.transpose ins(%[[X]] : tensor<2x4x8xf32>) outs(%[[INIT]] : tensor<8x2x4xf32>) permutation = [2, 0, 1]
// CHECK-NEXT:    return %[[R]]
func.func @transpose(%x: tensor<2x4x8xf32>) -> tensor<8x2x4xf32> {
  %y = nn.transpose %x [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  return %y : tensor<8x2x4xf32>
}

// -----

// Each input is inserted at the running offset along the axis.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<2x5xf32>, %[[C:[^:]+]]: tensor<2x1xf32>)
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x9xf32>
// CHECK:         %[[R1:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x9xf32>
// CHECK:         %[[R2:.+]] = tensor.insert_slice %[[B]] into %[[R1]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x9xf32>
// CHECK:         %[[R3:.+]] = tensor.insert_slice %[[C]] into %[[R2]][0, 8] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x9xf32>
// CHECK:         return %[[R3]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<2x1xf32>) -> tensor<2x9xf32> {
  %y = nn.concat %a, %b, %c axis = 1 : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x1xf32> -> tensor<2x9xf32>
  return %y : tensor<2x9xf32>
}

// -----

// CHECK-LABEL: func.func @concat_axis0(
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<5x2xi32>
// CHECK:         %[[R1:.+]] = tensor.insert_slice %{{.+}} into %[[E]][0, 0] [1, 2] [1, 1]
// CHECK:         tensor.insert_slice %{{.+}} into %[[R1]][1, 0] [4, 2] [1, 1]
func.func @concat_axis0(%a: tensor<1x2xi32>, %b: tensor<4x2xi32>) -> tensor<5x2xi32> {
  %y = nn.concat %a, %b axis = 0 : tensor<1x2xi32>, tensor<4x2xi32> -> tensor<5x2xi32>
  return %y : tensor<5x2xi32>
}

// -----

// Positive strides: tensor.extract_slice.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[R:.+]] = tensor.extract_slice %[[X]][1, 2] [2, 3] [2, 2] : tensor<4x8xf32> to tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @slice(%x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %y = nn.slice %x offsets = [1, 2] sizes = [2, 3] strides = [2, 2] : tensor<4x8xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A negative stride: element i of dimension d reads offsets[d] + i * strides[d]
// through an indexed generic (linalg.index, tensor.extract).
// CHECK-LABEL: func.func @slice_negative_stride(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4x4xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      outs(%[[INIT]] : tensor<4x4xf32>)
// CHECK-NEXT:    ^bb0(%{{.+}}: f32):
// CHECK-NEXT:      %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[J:.+]] = linalg.index 1 : index
// CHECK-NEXT:      %[[S0:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[T0:.+]] = arith.muli %[[I]], %[[S0]] : index
// CHECK-NEXT:      %[[O0:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[R0:.+]] = arith.addi %[[O0]], %[[T0]] : index
// CHECK-NEXT:      %[[S1:.+]] = arith.constant -2 : index
// CHECK-NEXT:      %[[T1:.+]] = arith.muli %[[J]], %[[S1]] : index
// CHECK-NEXT:      %[[O1:.+]] = arith.constant 7 : index
// CHECK-NEXT:      %[[C1:.+]] = arith.addi %[[O1]], %[[T1]] : index
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[X]][%[[R0]], %[[C1]]] : tensor<4x8xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
// CHECK-NOT:     tensor.extract_slice
func.func @slice_negative_stride(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %y = nn.slice %x offsets = [0, 7] sizes = [4, 4] strides = [1, -2] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// A full reversal (ONNX Slice with step -1).
// CHECK-LABEL: func.func @slice_reverse(
// CHECK-SAME:    %[[X:.+]]: tensor<5xi64>)
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%{{.+}}: i64):
// CHECK-NEXT:      %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[S:.+]] = arith.constant -1 : index
// CHECK-NEXT:      %[[T:.+]] = arith.muli %[[I]], %[[S]] : index
// CHECK-NEXT:      %[[O:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[P:.+]] = arith.addi %[[O]], %[[T]] : index
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[X]][%[[P]]] : tensor<5xi64>
// CHECK-NEXT:      linalg.yield %[[V]] : i64
func.func @slice_reverse(%x: tensor<5xi64>) -> tensor<5xi64> {
  %y = nn.slice %x offsets = [4] sizes = [5] strides = [-1] : tensor<5xi64> -> tensor<5xi64>
  return %y : tensor<5xi64>
}

// -----

// Consecutive pieces along the axis.
// CHECK-LABEL: func.func @split(
// CHECK-SAME:    %[[X:.+]]: tensor<4x16x192xf32>)
// CHECK:         %[[Q:.+]] = tensor.extract_slice %[[X]][0, 0, 0] [4, 16, 64] [1, 1, 1] : tensor<4x16x192xf32> to tensor<4x16x64xf32>
// CHECK:         %[[K:.+]] = tensor.extract_slice %[[X]][0, 0, 64] [4, 16, 96] [1, 1, 1] : tensor<4x16x192xf32> to tensor<4x16x96xf32>
// CHECK:         %[[V:.+]] = tensor.extract_slice %[[X]][0, 0, 160] [4, 16, 32] [1, 1, 1] : tensor<4x16x192xf32> to tensor<4x16x32xf32>
// CHECK:         return %[[Q]], %[[K]], %[[V]]
func.func @split(%qkv: tensor<4x16x192xf32>) -> (tensor<4x16x64xf32>, tensor<4x16x96xf32>, tensor<4x16x32xf32>) {
  %q, %k, %v = nn.split %qkv axis = 2 sizes = [64, 96, 32] : tensor<4x16x192xf32> -> tensor<4x16x64xf32>, tensor<4x16x96xf32>, tensor<4x16x32xf32>
  return %q, %k, %v : tensor<4x16x64xf32>, tensor<4x16x96xf32>, tensor<4x16x32xf32>
}

// -----

// broadcast_to materialises a copy generic whose input map broadcasts.
// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME:    %[[X:.+]]: tensor<3x1xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]] : tensor<3x1xf32>) outs(%[[INIT]] : tensor<2x3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         return %[[R]]
func.func @broadcast_to(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %y = nn.broadcast_to %x [2, 3, 4] : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_scalar(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%{{.+}} : tensor<i1>) outs(%{{.+}} : tensor<2x2xi1>)
func.func @broadcast_scalar(%x: tensor<i1>) -> tensor<2x2xi1> {
  %y = nn.broadcast_to %x [2, 2] : tensor<i1> -> tensor<2x2xi1>
  return %y : tensor<2x2xi1>
}
