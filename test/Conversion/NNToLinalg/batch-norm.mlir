// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Inference batch_norm is one generic: (x - mean) * (rsqrt(var + eps) *
// scale) + bias, with the four [C] vectors read through the channel
// dimension (d1).

// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x16x8x8xf32>, %[[G:[^:]+]]: tensor<16xf32>, %[[B:[^:]+]]: tensor<16xf32>, %[[M:[^:]+]]: tensor<16xf32>, %[[V:[^:]+]]: tensor<16xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x16x8x8xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[G]], %[[B]], %[[M]], %[[V]] : tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%[[INIT]] : tensor<2x16x8x8xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f32, %[[GI:.+]]: f32, %[[BI:.+]]: f32, %[[MI:.+]]: f32, %[[VI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:      %[[VE:.+]] = arith.addf %[[VI]], %[[EPS]] : f32
// CHECK-NEXT:      %[[INV:.+]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT:      %[[K:.+]] = arith.mulf %[[INV]], %[[GI]] : f32
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XI]], %[[MI]] : f32
// CHECK-NEXT:      %[[Y:.+]] = arith.mulf %[[D]], %[[K]] : f32
// CHECK-NEXT:      %[[Z:.+]] = arith.addf %[[Y]], %[[BI]] : f32
// CHECK-NEXT:      linalg.yield %[[Z]] : f32
// CHECK:         return %[[R]]
func.func @batch_norm(%x: tensor<2x16x8x8xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>) -> tensor<2x16x8x8xf32> {
  %y = nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-05 : f64} : tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  return %y : tensor<2x16x8x8xf32>
}

// -----

// Rank-2 input [N, C]; the channel is still dimension 1.
// CHECK-LABEL: func.func @batch_norm_2d(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           %[[EPS:.+]] = arith.constant 1.000000e-03 : f64
// CHECK:           math.rsqrt
func.func @batch_norm_2d(%x: tensor<4x3xf64>, %g: tensor<3xf64>, %b: tensor<3xf64>, %m: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<4x3xf64> {
  %y = nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-03 : f64} : tensor<4x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
  return %y : tensor<4x3xf64>
}
