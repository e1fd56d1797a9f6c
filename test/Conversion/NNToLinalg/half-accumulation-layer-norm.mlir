// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// layer_norm of f16/bf16 input keeps its mean in f32. Truncating the mean
// to f16 before x - mean would give the centred values the rounding error
// of the mean, as large as the spread of the data when the values share a
// large offset: f16 [1000, 1000.5, 1000.5, 1000.5] (epsilon 0) would
// normalise to [-2, 0, 0, 0] instead of [-1.732, 0.577, 0.577, 0.577].

// No f16 tensor of row statistics; x - mean reads an f32 mean.
// CHECK-LABEL: func.func @layer_norm_f16(
// CHECK-NOT:     tensor<2xf16>
// CHECK:         linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<2x64x{{f16|f32}}>, tensor<2xf32>) outs(%{{.+}} : tensor<2x64xf32>)
// CHECK-NEXT:    ^bb0
// CHECK:           arith.subf %{{.+}}, %{{.+}} : f32
// CHECK-NOT:     tensor<2xf16>
// CHECK:         return
func.func @layer_norm_f16(%x: tensor<2x64xf16>, %g: tensor<64xf16>) -> tensor<2x64xf16> {
  %y = nn.layer_norm %x scale(%g : tensor<64xf16>) axis = 1 : tensor<2x64xf16>
  return %y : tensor<2x64xf16>
}

// -----

// CHECK-LABEL: func.func @layer_norm_bf16(
// CHECK-NOT:     tensor<3x5xbf16>
// CHECK:         linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<3x5x8x{{bf16|f32}}>, tensor<3x5xf32>) outs(%{{.+}} : tensor<3x5x8xf32>)
// CHECK-NOT:     tensor<3x5xbf16>
// CHECK:         return
func.func @layer_norm_bf16(%x: tensor<3x5x8xbf16>) -> tensor<3x5x8xbf16> {
  %y = nn.layer_norm %x axis = 2 : tensor<3x5x8xbf16>
  return %y : tensor<3x5x8xbf16>
}
