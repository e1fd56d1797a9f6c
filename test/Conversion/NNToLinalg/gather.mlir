// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.gather is a generic over the result that reads the indices through the
// loops that replace the gathered axis and extracts from the data. Negative
// indices count from the end; the index is then clamped into [0, extent), so
// out-of-range indices in user data cannot read outside the buffer.

// Embedding lookup.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:    %[[TABLE:[^:]+]]: tensor<1000x64xf32>, %[[TOK:[^:]+]]: tensor<4x16xi64>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4x16x64xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[TOK]] : tensor<4x16xi64>) outs(%[[INIT]] : tensor<4x16x64xf32>)
// CHECK-NEXT:    ^bb0(%[[IDX:.+]]: i64, %{{.+}}: f32):
// CHECK-NEXT:      %[[I:.+]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK-NEXT:      %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[NEG:.+]] = arith.cmpi slt, %[[I]], %[[C0]] : index
// CHECK-NEXT:      %[[N:.+]] = arith.constant 1000 : index
// CHECK-NEXT:      %[[WRAP:.+]] = arith.addi %[[I]], %[[N]] : index
// CHECK-NEXT:      %[[I1:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[I]] : index
// CHECK-NEXT:      %[[I2:.+]] = arith.maxsi %[[I1]], %[[C0]] : index
// CHECK-NEXT:      %[[LAST:.+]] = arith.constant 999 : index
// CHECK-NEXT:      %[[I3:.+]] = arith.minsi %[[I2]], %[[LAST]] : index
// CHECK-NEXT:      %[[COL:.+]] = linalg.index 2 : index
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[TABLE]][%[[I3]], %[[COL]]] : tensor<1000x64xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @embedding(%table: tensor<1000x64xf32>, %tok: tensor<4x16xi64>) -> tensor<4x16x64xf32> {
  %e = nn.gather %table[%tok] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
  return %e : tensor<4x16x64xf32>
}

// -----

// An inner axis with i32 indices: dimensions before the axis read loops
// before the indices' loops, dimensions after it the loops after them.
// CHECK-LABEL: func.func @inner_axis(
// CHECK-SAME:    %[[D:[^:]+]]: tensor<2x5x3xi8>, %[[IND:[^:]+]]: tensor<4x6xi32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[IND]] : tensor<4x6xi32>) outs(%{{.+}} : tensor<2x4x6x3xi8>)
// CHECK-NEXT:    ^bb0(%[[IDX:.+]]: i32, %{{.+}}: i8):
// CHECK-NEXT:      %[[I:.+]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK:           %[[N:.+]] = arith.constant 5 : index
// CHECK-NEXT:      arith.addi %[[I]], %[[N]] : index
// CHECK:           %[[LAST:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[AT:.+]] = arith.minsi %{{.+}}, %[[LAST]] : index
// CHECK-NEXT:      %[[D0:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D3:.+]] = linalg.index 3 : index
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[D]][%[[D0]], %[[AT]], %[[D3]]] : tensor<2x5x3xi8>
// CHECK-NEXT:      linalg.yield %[[V]] : i8
func.func @inner_axis(%d: tensor<2x5x3xi8>, %i: tensor<4x6xi32>) -> tensor<2x4x6x3xi8> {
  %e = nn.gather %d[%i] axis = 1 : tensor<2x5x3xi8>, tensor<4x6xi32> -> tensor<2x4x6x3xi8>
  return %e : tensor<2x4x6x3xi8>
}

// -----

// A scalar index removes the axis.
// CHECK-LABEL: func.func @scalar_index(
// CHECK-SAME:    %[[D:[^:]+]]: tensor<2x5xf32>, %[[IND:[^:]+]]: tensor<i64>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      ins(%[[IND]] : tensor<i64>) outs(%{{.+}} : tensor<2xf32>)
// CHECK:           %[[AT:.+]] = arith.minsi
// CHECK-NEXT:      %[[D0:.+]] = linalg.index 0 : index
// CHECK-NEXT:      tensor.extract %[[D]][%[[D0]], %[[AT]]] : tensor<2x5xf32>
func.func @scalar_index(%d: tensor<2x5xf32>, %i: tensor<i64>) -> tensor<2xf32> {
  %e = nn.gather %d[%i] axis = 1 : tensor<2x5xf32>, tensor<i64> -> tensor<2xf32>
  return %e : tensor<2xf32>
}
