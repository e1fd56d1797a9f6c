// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Sums of f16/bf16 tensors accumulate in f32, as the pass promises
// ("f16/bf16 arithmetic is done in f32"): reduce_sum and the softmax
// denominator (softmax, log_softmax, cross_entropy). A bf16 accumulator
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

// CHECK-LABEL: func.func @softmax_bf16(
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [1]
// CHECK:           arith.maximumf
// CHECK:         math.exp
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [1]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         return
func.func @softmax_bf16(%x: tensor<2x65536xbf16>) -> tensor<2x65536xbf16> {
  %s = nn.softmax %x axis = 1 : tensor<2x65536xbf16>
  return %s : tensor<2x65536xbf16>
}

// -----

// CHECK-LABEL: func.func @log_softmax_f16(
// CHECK-NOT:     arith.addf {{.*}} : f16
// CHECK:         math.exp
// CHECK:         linalg.reduce
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK-NOT:     arith.addf {{.*}} : f16
// CHECK:         math.log
// CHECK:         return
func.func @log_softmax_f16(%x: tensor<2x32000xf16>) -> tensor<2x32000xf16> {
  %s = nn.log_softmax %x axis = 1 : tensor<2x32000xf16>
  return %s : tensor<2x32000xf16>
}

// -----

// The cross_entropy loss itself is summed in f32 already; its log_softmax
// denominator is not.
// CHECK-LABEL: func.func @cross_entropy_bf16(
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         math.log
// CHECK-NOT:     arith.addf {{.*}} : bf16
// CHECK:         return
func.func @cross_entropy_bf16(%l: tensor<4x32000xbf16>, %t: tensor<4xi64>) -> tensor<bf16> {
  %y = nn.cross_entropy %l, %t class_axis = 1 : tensor<4x32000xbf16>, tensor<4xi64> -> tensor<bf16>
  return %y : tensor<bf16>
}
