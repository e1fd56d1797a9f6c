// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// cross_entropy: log_softmax over the class axis, then one reduction over the
// labels that accumulates the loss -log_softmax[label] (reassoc) and the
// count of counted positions into two rank-0 tensors, then loss / count.
// Labels are clamped into [0, classes) before the tensor.extract, so that bad
// labels cannot read outside the buffer.

// CHECK-LABEL: func.func @cross_entropy(
// CHECK-SAME:    %[[L:[^:]+]]: tensor<4x16x100xf32>, %[[T:[^:]+]]: tensor<4x16xi64>)
// log_softmax along axis 2: the row maximum, then sum(exp(x - max)) in one
// reduction generic over the class axis, then a generic reading the logits
// and both statistics.
// CHECK:         linalg.reduce ins(%[[L]] : tensor<4x16x100xf32>)
// CHECK-SAME:      dimensions = [2]
// CHECK:           arith.maximumf
// CHECK:         %[[MAX:.+]] = linalg.generic
// CHECK:           arith.select
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[L]], %[[MAX]] : tensor<4x16x100xf32>, tensor<4x16xf32>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK:           math.exp
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[LSM:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[L]], %[[MAX]], %[[SUM]] : tensor<4x16x100xf32>, tensor<4x16xf32>, tensor<4x16xf32>)
// CHECK:           arith.subf
// CHECK:           math.log
// CHECK:           arith.subf
// the loss and count reduction
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK:         %[[RED:.+]]:2 = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>]
// CHECK-SAME:      iterator_types = ["reduction", "reduction"]
// CHECK-SAME:      ins(%[[T]] : tensor<4x16xi64>) outs(%[[ACC]], %[[ACC]] : tensor<f32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[LBL:.+]]: i64, %[[LOSS:.+]]: f32, %[[CNT:.+]]: f32):
// Without ignore_index every position counts.
// CHECK-NEXT:      %[[VALID:.+]] = arith.constant true
// CHECK-NEXT:      %[[I:.+]] = arith.index_cast %[[LBL]] : i64 to index
// CHECK-NEXT:      %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[I0:.+]] = arith.maxsi %[[I]], %[[C0]] : index
// CHECK-NEXT:      %[[CMAX:.+]] = arith.constant 99 : index
// CHECK-NEXT:      %[[CLS:.+]] = arith.minsi %[[I0]], %[[CMAX]] : index
// CHECK-NEXT:      %[[D0:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D1:.+]] = linalg.index 1 : index
// CHECK-NEXT:      %[[LP:.+]] = tensor.extract %[[LSM]][%[[D0]], %[[D1]], %[[CLS]]] : tensor<4x16x100xf32>
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NLP:.+]] = arith.negf %[[LP]] : f32
// CHECK-NEXT:      %[[L1:.+]] = arith.select %[[VALID]], %[[NLP]], %[[Z]] : f32
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[C1:.+]] = arith.select %[[VALID]], %[[ONE]], %[[Z]] : f32
// CHECK-NEXT:      %[[NL:.+]] = arith.addf %[[LOSS]], %[[L1]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:      %[[NC:.+]] = arith.addf %[[CNT]], %[[C1]] : f32
// CHECK-NEXT:      linalg.yield %[[NL]], %[[NC]] : f32, f32
// the mean
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>]
// CHECK-SAME:      ins(%[[RED]]#0, %[[RED]]#1 : tensor<f32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[S:.+]]: f32, %[[N:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[M:.+]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         return %[[R]] : tensor<f32>
func.func @cross_entropy(%l: tensor<4x16x100xf32>, %t: tensor<4x16xi64>) -> tensor<f32> {
  %y = nn.cross_entropy %l, %t class_axis = 2 : tensor<4x16x100xf32>, tensor<4x16xi64> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// A class axis in the middle: the class index goes between the label's
// indices; ignore_index positions add neither loss nor count.
// CHECK-LABEL: func.func @ignore_index(
// CHECK-SAME:    %[[L:[^:]+]]: tensor<4x10x3xf32>, %[[T:[^:]+]]: tensor<4x3xi32>)
// CHECK:         linalg.reduce ins(%[[L]] : tensor<4x10x3xf32>)
// CHECK-SAME:      dimensions = [1]
// CHECK:         %[[MAX:.+]] = linalg.generic
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME:      ins(%[[L]], %[[MAX]] : tensor<4x10x3xf32>, tensor<4x3xf32>)
// CHECK:           math.exp
// CHECK:         %[[LSM:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[L]], %[[MAX]], %[[SUM]] : tensor<4x10x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:           math.log
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<4x3xi32>)
// CHECK-NEXT:    ^bb0(%[[LBL:.+]]: i32, %[[LOSS:.+]]: f32, %[[CNT:.+]]: f32):
// CHECK:           %[[IGN:.+]] = arith.constant -100 : i32
// CHECK-NEXT:      %[[VALID:.+]] = arith.cmpi ne, %[[LBL]], %[[IGN]] : i32
// CHECK-NEXT:      %[[I:.+]] = arith.index_cast %[[LBL]] : i32 to index
// CHECK:           %[[CMAX:.+]] = arith.constant 9 : index
// CHECK-NEXT:      %[[CLS:.+]] = arith.minsi %{{.+}}, %[[CMAX]] : index
// CHECK-NEXT:      %[[D0:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D1:.+]] = linalg.index 1 : index
// CHECK-NEXT:      tensor.extract %[[LSM]][%[[D0]], %[[CLS]], %[[D1]]] : tensor<4x10x3xf32>
// CHECK:           arith.select %[[VALID]]
// CHECK:           arith.select %[[VALID]]
// CHECK:           arith.divf
func.func @ignore_index(%l: tensor<4x10x3xf32>, %t: tensor<4x3xi32>) -> tensor<f32> {
  %y = nn.cross_entropy %l, %t class_axis = 1 {ignore_index = -100 : i64} : tensor<4x10x3xf32>, tensor<4x3xi32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// Rank-1 logits and rank-0 labels: a reduction over no loops.
// CHECK-LABEL: func.func @single(
// CHECK-SAME:    %[[L:[^:]+]]: tensor<10xf64>, %[[T:[^:]+]]: tensor<i64>)
// CHECK:         linalg.reduce ins(%[[L]] : tensor<10xf64>)
// CHECK:         %[[MAX:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = []
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["reduction"]
// CHECK-SAME:      ins(%[[L]], %[[MAX]] : tensor<10xf64>, tensor<f64>) outs(%{{.+}} : tensor<f64>)
// CHECK:           math.exp
// CHECK:         %[[LSM:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[L]], %[[MAX]], %[[SUM]] : tensor<10xf64>, tensor<f64>, tensor<f64>)
// CHECK:           math.log
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>]
// CHECK-SAME:      iterator_types = []
// CHECK-SAME:      ins(%[[T]] : tensor<i64>)
// CHECK:           %[[CLS:.+]] = arith.minsi
// CHECK-NEXT:      tensor.extract %[[LSM]][%[[CLS]]] : tensor<10xf64>
func.func @single(%l: tensor<10xf64>, %t: tensor<i64>) -> tensor<f64> {
  %y = nn.cross_entropy %l, %t class_axis = 0 : tensor<10xf64>, tensor<i64> -> tensor<f64>
  return %y : tensor<f64>
}
