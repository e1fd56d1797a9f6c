// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// softmax = exp(x - max) / sum(exp(x - max)) along the axis: the row maximum
// (linalg.reduce), a row generic that replaces a -inf maximum by 0, one
// reduction generic that sums exp(x - max) computed on the fly, and a result
// generic that reads x and both row statistics through a map without the
// axis. Nothing of x's size is written before the result.

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.+]]: tensor<4x10xf32>)
// Row maximum.
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MACC:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK:         %[[RAWMAX:.+]] = linalg.reduce ins(%[[X]] : tensor<4x10xf32>) outs(%[[MACC]] : tensor<4xf32>) dimensions = [1]
// CHECK:           arith.maximumf
// A row that is all -inf uses 0 as its maximum (no inf - inf).
// CHECK:         %[[MAX:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel"]
// CHECK-SAME:      ins(%[[RAWMAX]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[MI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[NI:.+]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT:      %[[ISINF:.+]] = arith.cmpf oeq, %[[MI]], %[[NI]] : f32
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[M:.+]] = arith.select %[[ISINF]], %[[Z]], %[[MI]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// sum(exp(x - max)) in one reduction over the axis, with reassoc.
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[SACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<4x10xf32>, tensor<4xf32>) outs(%[[SACC]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f32, %[[MJ:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XI]], %[[MJ]] : f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[NS:.+]] = arith.addf %[[ACC]], %[[E]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:      linalg.yield %[[NS]] : f32
// exp(x - max) / sum, reading x, the maximum and the sum.
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[XI2:.+]]: f32, %[[MI2:.+]]: f32, %[[SUMI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[D2:.+]] = arith.subf %[[XI2]], %[[MI2]] : f32
// CHECK-NEXT:      %[[EX:.+]] = math.exp %[[D2]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[EX]], %[[SUMI]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %p = nn.softmax %x axis = 1 : tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}

// -----

// Along a leading axis the statistics are read through (d1, d2) and the
// sum's reduction iterator is d0.
// CHECK-LABEL: func.func @softmax_axis0(
// CHECK-SAME:    %[[X:.+]]: tensor<3x4x5xf64>)
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [0]
// CHECK:         %[[MAX:.+]] = linalg.generic
// CHECK-SAME:      ins(%{{.+}} : tensor<4x5xf64>) outs(%{{.+}} : tensor<4x5xf64>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>]
// CHECK-SAME:      iterator_types = ["reduction", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<3x4x5xf64>, tensor<4x5xf64>) outs(%{{.+}} : tensor<4x5xf64>)
// CHECK:           math.exp %{{.+}} : f64
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f64
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<3x4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>)
// CHECK:           arith.divf
func.func @softmax_axis0(%x: tensor<3x4x5xf64>) -> tensor<3x4x5xf64> {
  %p = nn.softmax %x axis = 0 : tensor<3x4x5xf64>
  return %p : tensor<3x4x5xf64>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max))), with the same statistics
// as softmax.
// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME:    %[[X:.+]]: tensor<4x10xf32>)
// CHECK:         %[[RAWMAX:.+]] = linalg.reduce ins(%[[X]] : tensor<4x10xf32>)
// CHECK-SAME:      dimensions = [1]
// CHECK:           arith.maximumf
// CHECK:         %[[MAX:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[RAWMAX]] : tensor<4xf32>)
// CHECK:           arith.select
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<4x10xf32>, tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f32, %[[MJ:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XI]], %[[MJ]] : f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[D]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[E]] fastmath<reassoc,contract> : f32
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<4x10xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[XI2:.+]]: f32, %[[MI2:.+]]: f32, %[[SUMI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[SH:.+]] = arith.subf %[[XI2]], %[[MI2]] : f32
// CHECK-NEXT:      %[[L:.+]] = math.log %[[SUMI]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.subf %[[SH]], %[[L]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @log_softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %p = nn.log_softmax %x axis = 1 : tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}
