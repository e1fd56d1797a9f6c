// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Contractions of f16/bf16 operands accumulate in f32 ("f16/bf16
// arithmetic is done in f32"): linalg.matmul, batch_matmul,
// conv_2d_nchw_fchw and pooling_nchw_sum get an f32 accumulator (and the
// conv bias is added in f32), with one truncation of the result. With a
// half accumulator, a bf16 [1, 4096] x [4096, 1] product of ones would give
// 256 instead of 4096.

// CHECK-LABEL: func.func @matmul_bf16(
// CHECK:         linalg.matmul {{.*}} outs(%{{.+}} : tensor<4x8xf32>)
// CHECK:         arith.truncf %{{.+}} : f32 to bf16
// CHECK:         return
func.func @matmul_bf16(%a: tensor<4x4096xbf16>, %b: tensor<4096x8xbf16>) -> tensor<4x8xbf16> {
  %y = nn.matmul %a, %b : tensor<4x4096xbf16>, tensor<4096x8xbf16> -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_f16(
// CHECK:         linalg.batch_matmul_transpose_b {{.*}} outs(%{{.+}} : tensor<2x4x8xf32>)
// CHECK:         arith.truncf %{{.+}} : f32 to f16
// CHECK:         return
func.func @batch_matmul_f16(%q: tensor<2x4x64xf16>, %k: tensor<2x8x64xf16>) -> tensor<2x4x8xf16> {
  %t = nn.transpose %k [0, 2, 1] : tensor<2x8x64xf16> -> tensor<2x64x8xf16>
  %y = nn.matmul %q, %t : tensor<2x4x64xf16>, tensor<2x64x8xf16> -> tensor<2x4x8xf16>
  return %y : tensor<2x4x8xf16>
}

// -----

// CHECK-LABEL: func.func @conv_f16(
// CHECK:         linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.+}} : tensor<1x4x6x6xf32>)
// CHECK-NOT:     arith.addf {{.*}} : f16
// CHECK:         arith.truncf %{{.+}} : f32 to f16
// CHECK:         return
func.func @conv_f16(%x: tensor<1x64x8x8xf16>, %w: tensor<4x64x3x3xf16>, %b: tensor<4xf16>) -> tensor<1x4x6x6xf16> {
  %y = nn.conv2d %x, %w, %b : tensor<1x64x8x8xf16>, tensor<4x64x3x3xf16>, tensor<4xf16> -> tensor<1x4x6x6xf16>
  return %y : tensor<1x4x6x6xf16>
}

// -----

// CHECK-LABEL: func.func @avg_pool_bf16(
// CHECK:         linalg.pooling_nchw_sum {{.*}} outs(%{{.+}} : tensor<1x2x1x1xf32>)
// CHECK:         arith.truncf %{{.+}} : f32 to bf16
// CHECK:         return
func.func @avg_pool_bf16(%x: tensor<1x2x32x32xbf16>) -> tensor<1x2x1x1xbf16> {
  %y = nn.avg_pool %x {kernel = array<i64: 32, 32>} : tensor<1x2x32x32xbf16> -> tensor<1x2x1x1xbf16>
  return %y : tensor<1x2x1x1xbf16>
}
