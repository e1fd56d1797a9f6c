// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Sums of f16/bf16 tensors accumulate in f32, as the pass promises
// ("f16/bf16 arithmetic is done in f32"): reduce_sum and the softmax
// denominator (softmax, log_softmax, cross_entropy), which is one reduction
// generic computing exp(x - max) in f32 from the half input. A bf16 accumulator
// stops growing at 256 (256 + 1 rounds back to 256), f16 at 2048: a
// reduce_sum of 65536 bf16 ones would give 256 instead of 65536.

// CHECK-LABEL: func.func @reduce_sum_bf16(
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         linalg.reduce
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         arith.truncf %{{.+}} : f32 to bf16
// CHECK:         return
func.func @reduce_sum_bf16(%x: tensor<4x65536xbf16>) -> tensor<4xbf16> {
  %s = nn.reduce_sum %x axes = [1] : tensor<4x65536xbf16> -> tensor<4xbf16>
  return %s : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_f16(
// CHECK-NOT:     arith.addf {{.*}} : f16
// CHECK:         linalg.reduce
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK-NOT:     arith.addf {{.*}} : f16
// CHECK:         arith.truncf %{{.+}} : f32 to f16
// CHECK:         return
func.func @reduce_sum_f16(%x: tensor<4x4096xf16>) -> tensor<4xf16> {
  %s = nn.reduce_sum %x axes = [1] : tensor<4x4096xf16> -> tensor<4xf16>
  return %s : tensor<4xf16>
}

// -----

// The maximum stays in bf16 (exact); the sum of exp(x - max) reads the bf16
// input and accumulates in f32; the result generic reads the input and both
// statistics and truncates once.
// CHECK-LABEL: func.func @softmax_bf16(
// CHECK-SAME:    %[[X:.+]]: tensor<2x65536xbf16>)
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [1]
// CHECK:           arith.maximumf %{{.+}}, %{{.+}} : bf16
// CHECK:         %[[MAX:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2xbf16>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC0:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<2x65536xbf16>, tensor<2xbf16>) outs(%[[ACC0]] : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: bf16, %[[MI:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-DAG:       %[[MW:.+]] = arith.extf %[[MI]] : bf16 to f32
// CHECK-DAG:       %[[XW:.+]] = arith.extf %[[XI]] : bf16 to f32
// CHECK:           %[[D:.+]] = arith.subf %[[XW]], %[[MW]] : f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[NS:.+]] = arith.addf %[[ACC]], %[[E]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:      linalg.yield %[[NS]] : f32
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x65536xbf16>, tensor<2xbf16>, tensor<2xf32>) outs(%{{.+}} : tensor<2x65536xbf16>)
// CHECK-NOT:       arith.truncf
// CHECK:           math.exp %{{.+}} : f32
// CHECK-NEXT:      %[[Q:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      %[[T:.+]] = arith.truncf %[[Q]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         return %[[R]]
func.func @softmax_bf16(%x: tensor<2x65536xbf16>) -> tensor<2x65536xbf16> {
  %s = nn.softmax %x axis = 1 : tensor<2x65536xbf16>
  return %s : tensor<2x65536xbf16>
}

// -----

// CHECK-LABEL: func.func @log_softmax_f16(
// CHECK-SAME:    %[[X:.+]]: tensor<2x32000xf16>)
// CHECK-NOT:     arith.addf {{.*}} : f16
// CHECK:         %[[MAX:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2xf16>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<2x32000xf16>, tensor<2xf16>) outs(%{{.+}} : tensor<2xf32>)
// CHECK:           math.exp %{{.+}} : f32
// CHECK-NEXT:      arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x32000xf16>, tensor<2xf16>, tensor<2xf32>) outs(%{{.+}} : tensor<2x32000xf16>)
// CHECK-NEXT:    ^bb0(%{{.+}}: f16, %{{.+}}: f16, %[[SI:.+]]: f32, %{{.+}}: f16):
// CHECK-NOT:       arith.truncf
// CHECK:           %[[L:.+]] = math.log %[[SI]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.subf %{{.+}}, %[[L]] : f32
// CHECK-NEXT:      %[[T:.+]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
// CHECK-NOT:     arith.addf {{.*}} : f16
// CHECK:         return %[[R]]
func.func @log_softmax_f16(%x: tensor<2x32000xf16>) -> tensor<2x32000xf16> {
  %s = nn.log_softmax %x axis = 1 : tensor<2x32000xf16>
  return %s : tensor<2x32000xf16>
}

// -----

// The cross_entropy loss itself is summed in f32, and so is its
// log_softmax denominator.
// CHECK-LABEL: func.func @cross_entropy_bf16(
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         linalg.generic {{.*}} outs(%{{.+}} : tensor<4xbf16>)
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      outs(%{{.+}} : tensor<4xf32>)
// CHECK:           math.exp %{{.+}} : f32
// CHECK-NEXT:      arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         math.log %{{.+}} : f32
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         return
func.func @cross_entropy_bf16(%l: tensor<4x32000xbf16>, %t: tensor<4xi64>) -> tensor<bf16> {
  %y = nn.cross_entropy %l, %t class_axis = 1 : tensor<4x32000xbf16>, tensor<4xi64> -> tensor<bf16>
  return %y : tensor<bf16>
}
