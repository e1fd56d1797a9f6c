// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// trilu keeps element (row, col) of each matrix in the last two dimensions
// when col - row <= k (lower) or col - row >= k (upper), else writes zero.

// CHECK-LABEL: func.func @lower(
// CHECK-SAME:    %[[X:.+]]: tensor<16x16xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<16x16xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<16x16xf32>) outs(%[[INIT]] : tensor<16x16xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[ROW:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[COL:.+]] = linalg.index 1 : index
// CHECK-NEXT:      %[[D:.+]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK-NEXT:      %[[K:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[KEEP:.+]] = arith.cmpi sle, %[[D]], %[[K]] : index
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.+]] = arith.select %[[KEEP]], %[[IN]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @lower(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %y = nn.trilu %x lower k = 0 : tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// Batched, upper, negative k: the matrix dimensions are the last two loops.
// CHECK-LABEL: func.func @upper_batched(
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      %[[ROW:.+]] = linalg.index 1 : index
// CHECK-NEXT:      %[[COL:.+]] = linalg.index 2 : index
// CHECK-NEXT:      %[[D:.+]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK-NEXT:      %[[K:.+]] = arith.constant -1 : index
// CHECK-NEXT:      %[[KEEP:.+]] = arith.cmpi sge, %[[D]], %[[K]] : index
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[V:.+]] = arith.select %[[KEEP]], %[[IN]], %[[Z]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @upper_batched(%x: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
  %y = nn.trilu %x upper k = -1 : tensor<2x3x4xi32>
  return %y : tensor<2x3x4xi32>
}

// -----

// A boolean mask: the zero is false.
// CHECK-LABEL: func.func @mask(
// CHECK:         linalg.generic
// CHECK:           %[[K:.+]] = arith.constant 2 : index
// CHECK-NEXT:      arith.cmpi sle, %{{.+}}, %[[K]] : index
// CHECK-NEXT:      %[[F:.+]] = arith.constant false
// CHECK-NEXT:      arith.select %{{.+}}, %{{.+}}, %[[F]] : i1
func.func @mask(%x: tensor<4x4xi1>) -> tensor<4x4xi1> {
  %y = nn.trilu %x lower k = 2 : tensor<4x4xi1>
  return %y : tensor<4x4xi1>
}
