// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// layer_norm over dimensions axis..rank: mean, x - mean, the biased variance
// mean((x - mean)^2), then (x - mean) * rsqrt(var + eps) * scale + bias with
// scale and bias read through the trailing dimensions.

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x16x64xf32>, %[[G:[^:]+]]: tensor<64xf32>, %[[B:[^:]+]]: tensor<64xf32>)
// mean
// CHECK:         %[[S:.+]] = linalg.reduce ins(%[[X]] : tensor<2x16x64xf32>) outs(%{{.+}} : tensor<2x16xf32>) dimensions = [2]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[MEAN:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[S]] : tensor<2x16xf32>)
// CHECK:           %[[N:.+]] = arith.constant 6.400000e+01 : f32
// CHECK:           arith.divf %{{.+}}, %[[N]] : f32
// x - mean
// CHECK:         %[[C:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<2x16x64xf32>, tensor<2x16xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f32, %[[MI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XI]], %[[MI]] : f32
// CHECK-NEXT:      linalg.yield %[[D]] : f32
// (x - mean)^2
// CHECK:         %[[SQ:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[C]] : tensor<2x16x64xf32>)
// CHECK-NEXT:    ^bb0(%[[CI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[CI]], %[[CI]] : f32
// variance
// CHECK:         %[[VS:.+]] = linalg.reduce ins(%[[SQ]] : tensor<2x16x64xf32>) outs(%{{.+}} : tensor<2x16xf32>) dimensions = [2]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[VAR:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[VS]] : tensor<2x16xf32>)
// CHECK:           arith.divf
// normalise, scale, shift
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[C]], %[[VAR]], %[[G]], %[[B]] : tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<64xf32>, tensor<64xf32>)
// CHECK-NEXT:    ^bb0(%[[CI2:.+]]: f32, %[[VI:.+]]: f32, %[[GI:.+]]: f32, %[[BI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:      %[[VE:.+]] = arith.addf %[[VI]], %[[EPS]] : f32
// CHECK-NEXT:      %[[INV:.+]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT:      %[[NRM:.+]] = arith.mulf %[[CI2]], %[[INV]] : f32
// CHECK-NEXT:      %[[SC:.+]] = arith.mulf %[[NRM]], %[[GI]] : f32
// CHECK-NEXT:      %[[Y:.+]] = arith.addf %[[SC]], %[[BI]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK:         return %[[R]]
func.func @layer_norm(%x: tensor<2x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = nn.layer_norm %x scale(%g : tensor<64xf32>) bias(%b : tensor<64xf32>) axis = 2 {epsilon = 1.0e-05 : f64} : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// Several normalised dimensions, no scale or bias; the divisor is 4 * 8.
// CHECK-LABEL: func.func @no_affine(
// CHECK-SAME:    %[[X:.+]]: tensor<2x4x8xf64>)
// CHECK:         linalg.reduce ins(%[[X]] : tensor<2x4x8xf64>) outs(%{{.+}} : tensor<2xf64>) dimensions = [1, 2]
// CHECK:           arith.constant 3.200000e+01 : f64
// CHECK:         %[[C:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK:           arith.subf
// CHECK:         linalg.reduce
// CHECK-SAME:      dimensions = [1, 2]
// CHECK:         %[[R:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[C]], %{{.+}} : tensor<2x4x8xf64>, tensor<2xf64>)
// CHECK-NEXT:    ^bb0(%[[CI:.+]]: f64, %[[VI:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT:      %[[EPS:.+]] = arith.constant 1.000000e-03 : f64
// CHECK-NEXT:      %[[VE:.+]] = arith.addf %[[VI]], %[[EPS]] : f64
// CHECK-NEXT:      %[[INV:.+]] = math.rsqrt %[[VE]] : f64
// CHECK-NEXT:      %[[Y:.+]] = arith.mulf %[[CI]], %[[INV]] : f64
// CHECK-NEXT:      linalg.yield %[[Y]] : f64
// CHECK:         return %[[R]]
func.func @no_affine(%x: tensor<2x4x8xf64>) -> tensor<2x4x8xf64> {
  %y = nn.layer_norm %x axis = 1 {epsilon = 1.0e-03 : f64} : tensor<2x4x8xf64>
  return %y : tensor<2x4x8xf64>
}

// -----

// A two-dimensional scale is read through both normalised dimensions.
// CHECK-LABEL: func.func @scale_2d(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x4x8xf32>, %[[G:[^:]+]]: tensor<4x8xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%{{.+}}, %{{.+}}, %[[G]] : tensor<2x4x8xf32>, tensor<2xf32>, tensor<4x8xf32>)
// CHECK:           math.rsqrt
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK-NOT:       arith.addf
// CHECK:           linalg.yield
func.func @scale_2d(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %y = nn.layer_norm %x scale(%g : tensor<4x8xf32>) axis = 1 : tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}
