// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Numpy broadcasting is done by the indexing maps of one generic: an operand
// aligns with the trailing loops, and its size-1 dimensions that the result
// stretches read index 0. No broadcast tensor is materialised.

// A lower-rank operand reads the trailing loops.
// CHECK-LABEL: func.func @bias(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK:           arith.addf
// CHECK:         return %[[R]]
// CHECK-NOT:     linalg.broadcast
func.func @bias(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = nn.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Both operands stretch: an outer difference.
// CHECK-LABEL: func.func @outer(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x1xf32>, %[[Y:[^:]+]]: tensor<1x8xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4x1xf32>, tensor<1x8xf32>)
// CHECK-SAME:      outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      arith.subf %[[A]], %[[B]] : f32
func.func @outer(%x: tensor<4x1xf32>, %y: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %r = nn.sub %x, %y : tensor<4x1xf32>, tensor<1x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A rank-0 operand reads no loop.
// CHECK-LABEL: func.func @scalar(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%{{.+}}, %{{.+}} : tensor<2x3x4xf32>, tensor<f32>)
// CHECK:           arith.mulf
func.func @scalar(%x: tensor<2x3x4xf32>, %s: tensor<f32>) -> tensor<2x3x4xf32> {
  %r = nn.mul %x, %s : tensor<2x3x4xf32>, tensor<f32>
  return %r : tensor<2x3x4xf32>
}

// -----

// Different ranks and stretched dimensions on both sides.
// CHECK-LABEL: func.func @mixed_ranks(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%{{.+}}, %{{.+}} : tensor<3x1xi32>, tensor<2x1x5xi32>)
// CHECK-SAME:      outs(%{{.+}} : tensor<2x3x5xi32>)
// CHECK:           arith.addi
func.func @mixed_ranks(%x: tensor<3x1xi32>, %y: tensor<2x1x5xi32>) -> tensor<2x3x5xi32> {
  %r = nn.add %x, %y : tensor<3x1xi32>, tensor<2x1x5xi32>
  return %r : tensor<2x3x5xi32>
}

// -----

// A size-1 dimension that the result keeps at 1 is read through its loop.
// CHECK-LABEL: func.func @ones(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @ones(%x: tensor<1x1xf32>, %y: tensor<1xf32>) -> tensor<1x1xf32> {
  %r = nn.add %x, %y : tensor<1x1xf32>, tensor<1xf32>
  return %r : tensor<1x1xf32>
}

// -----

// Three operands broadcast together (nn.where).
// CHECK-LABEL: func.func @where3(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<1x8x8xi1>, tensor<4x8x8xf32>, tensor<f32>)
// CHECK:           arith.select
func.func @where3(%c: tensor<1x8x8xi1>, %x: tensor<4x8x8xf32>, %n: tensor<f32>) -> tensor<4x8x8xf32> {
  %y = nn.where %c, %x, %n : tensor<1x8x8xi1>, tensor<4x8x8xf32>, tensor<f32>
  return %y : tensor<4x8x8xf32>
}

// -----

// Broadcasting compare: the i1 result is the output of the generic.
// CHECK-LABEL: func.func @compare_bcast(
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4x6xi1>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      outs(%[[INIT]] : tensor<4x6xi1>)
// CHECK:           arith.cmpf ogt
func.func @compare_bcast(%x: tensor<4x1xf32>, %y: tensor<6xf32>) -> tensor<4x6xi1> {
  %m = nn.compare gt, %x, %y : tensor<4x1xf32>, tensor<6xf32>
  return %m : tensor<4x6xi1>
}
