// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// layer_norm of f16/bf16 input keeps its mean in f32. Truncating the mean
// to f16 before x - mean would give the centred values the rounding error
// of the mean, as large as the spread of the data when the values share a
// large offset: f16 [1000, 1000.5, 1000.5, 1000.5] (epsilon 0) would
// normalise to [-2, 0, 0, 0] instead of [-1.732, 0.577, 0.577, 0.577].

// No f16 tensor of row statistics: the sum-of-squares reduction reads the
// f16 input and the f32 mean and accumulates (x - mean)^2 in f32; the result
// generic reads the input, the f32 mean and the f32 sum of squares and
// truncates once at the end.
// CHECK-LABEL: func.func @layer_norm_f16(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x64xf16>
// CHECK-NOT:     tensor<2xf16>
// CHECK:         %[[MEAN:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2xf32>)
// CHECK:         %[[SQ:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<2x64xf16>, tensor<2xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f16, %[[MI:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : f16 to f32
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XW]], %[[MI]] : f32
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[P]] fastmath<reassoc,contract> : f32
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[MEAN]], %[[SQ]], %{{.+}} : tensor<2x64xf16>, tensor<2xf32>, tensor<2xf32>, tensor<64xf16>) outs(%{{.+}} : tensor<2x64xf16>)
// CHECK-NEXT:    ^bb0(%[[XI2:.+]]: f16, %[[MI2:.+]]: f32, %[[SI:.+]]: f32, %{{.+}}: f16, %{{.+}}: f16):
// CHECK-NOT:       arith.truncf
// CHECK:           arith.mulf %[[SI]], %{{.+}} : f32
// CHECK:           math.rsqrt %{{.+}} : f32
// CHECK:           %[[XW2:.+]] = arith.extf %[[XI2]] : f16 to f32
// CHECK-NEXT:      arith.subf %[[XW2]], %[[MI2]] : f32
// CHECK-NOT:       arith.truncf
// CHECK:           arith.truncf %{{.+}} : f32 to f16
// CHECK-NEXT:      linalg.yield
// CHECK-NOT:     tensor<2xf16>
// CHECK:         return
func.func @layer_norm_f16(%x: tensor<2x64xf16>, %g: tensor<64xf16>) -> tensor<2x64xf16> {
  %y = nn.layer_norm %x scale(%g : tensor<64xf16>) axis = 1 : tensor<2x64xf16>
  return %y : tensor<2x64xf16>
}

// -----

// CHECK-LABEL: func.func @layer_norm_bf16(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3x5x8xbf16>
// CHECK-NOT:     tensor<3x5xbf16>
// CHECK:         %[[MEAN:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<3x5xf32>)
// CHECK:         %[[SQ:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<3x5x8xbf16>, tensor<3x5xf32>) outs(%{{.+}} : tensor<3x5xf32>)
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[MEAN]], %[[SQ]] : tensor<3x5x8xbf16>, tensor<3x5xf32>, tensor<3x5xf32>) outs(%{{.+}} : tensor<3x5x8xbf16>)
// CHECK:           math.rsqrt %{{.+}} : f32
// CHECK:           arith.truncf %{{.+}} : f32 to bf16
// CHECK-NOT:     tensor<3x5xbf16>
// CHECK:         return
func.func @layer_norm_bf16(%x: tensor<3x5x8xbf16>) -> tensor<3x5x8xbf16> {
  %y = nn.layer_norm %x axis = 2 : tensor<3x5x8xbf16>
  return %y : tensor<3x5x8xbf16>
}
