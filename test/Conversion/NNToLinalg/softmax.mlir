// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// softmax = exp(x - max) / sum(exp(x - max)) along the axis, built from two
// linalg.reduce ops and elementwise generics that read the row statistics
// through a map without the axis.

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.+]]: tensor<4x10xf32>)
// Row maximum.
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MACC:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK:         %[[MAX:.+]] = linalg.reduce ins(%[[X]] : tensor<4x10xf32>) outs(%[[MACC]] : tensor<4xf32>) dimensions = [1]
// CHECK:           arith.maximumf
// x - max; a row that is all -inf uses 0 as its maximum (no inf - inf).
// CHECK:         %[[SH:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<4x10xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f32, %[[MI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[NI:.+]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:      %[[ISINF:.+]] = arith.cmpf oeq, %[[MI]], %[[NI]] : f32
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[M:.+]] = arith.select %[[ISINF]], %[[Z]], %[[MI]] : f32
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XI]], %[[M]] : f32
// CHECK-NEXT:      linalg.yield %[[D]] : f32
// exp, summed with reassoc.
// CHECK:         %[[E:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[SH]] : tensor<4x10xf32>)
// CHECK:           math.exp
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[SACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK:         %[[SUM:.+]] = linalg.reduce ins(%[[E]] : tensor<4x10xf32>) outs(%[[SACC]] : tensor<4xf32>) dimensions = [1]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// exp(x - max) / sum.
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[SH]], %[[SUM]] : tensor<4x10xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[SI:.+]]: f32, %[[SUMI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[EX:.+]] = math.exp %[[SI]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[EX]], %[[SUMI]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %p = nn.softmax %x axis = 1 : tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}

// -----

// Along a leading axis the statistics are read through (d1).
// CHECK-LABEL: func.func @softmax_axis0(
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [0]
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [0]
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK:           arith.divf
func.func @softmax_axis0(%x: tensor<3x4x5xf64>) -> tensor<3x4x5xf64> {
  %p = nn.softmax %x axis = 0 : tensor<3x4x5xf64>
  return %p : tensor<3x4x5xf64>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max))).
// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME:    %[[X:.+]]: tensor<4x10xf32>)
// CHECK:         %[[MAX:.+]] = linalg.reduce ins(%[[X]] : tensor<4x10xf32>)
// CHECK-SAME:      dimensions = [1]
// CHECK:           arith.maximumf
// CHECK:         %[[SH:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<4x10xf32>, tensor<4xf32>)
// CHECK:           arith.subf
// CHECK:         %[[E:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[SH]] : tensor<4x10xf32>)
// CHECK:           math.exp
// CHECK:         %[[SUM:.+]] = linalg.reduce ins(%[[E]] : tensor<4x10xf32>)
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[SH]], %[[SUM]] : tensor<4x10xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[SI:.+]]: f32, %[[SUMI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[L:.+]] = math.log %[[SUMI]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.subf %[[SI]], %[[L]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @log_softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %p = nn.log_softmax %x axis = 1 : tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}
