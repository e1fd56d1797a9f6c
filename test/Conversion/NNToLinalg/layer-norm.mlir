// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// layer_norm over dimensions axis..rank: the mean, then one reduction generic
// computing sum((x - mean)^2), then a result generic that reads x, the mean
// and that sum and computes (x - mean) * rsqrt(sum * (1/N) + eps) * scale +
// bias (the biased variance), with scale and bias read through the trailing
// dimensions. Nothing of x's size is written before the result.

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x16x64xf32>, %[[G:[^:]+]]: tensor<64xf32>, %[[B:[^:]+]]: tensor<64xf32>)
// mean
// CHECK:         %[[S:.+]] = linalg.reduce ins(%[[X]] : tensor<2x16x64xf32>) outs(%{{.+}} : tensor<2x16xf32>) dimensions = [2]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[MEAN:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[S]] : tensor<2x16xf32>)
// CHECK:           %[[N:.+]] = arith.constant 6.400000e+01 : f32
// CHECK:           arith.divf %{{.+}}, %[[N]] : f32
// sum((x - mean)^2) in one reduction over the normalised dimension
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC0:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2x16xf32>)
// CHECK:         %[[SQ:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<2x16x64xf32>, tensor<2x16xf32>) outs(%[[ACC0]] : tensor<2x16xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f32, %[[MI:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XI]], %[[MI]] : f32
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      %[[NS:.+]] = arith.addf %[[ACC]], %[[P]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:      linalg.yield %[[NS]] : f32
// normalise, scale, shift; the variance is the sum times 1/64
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]], %[[SQ]], %[[G]], %[[B]] : tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<64xf32>, tensor<64xf32>)
// CHECK-NEXT:    ^bb0(%[[XI2:.+]]: f32, %[[MI2:.+]]: f32, %[[SI:.+]]: f32, %[[GI:.+]]: f32, %[[BI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[RN:.+]] = arith.constant 1.562500e-02 : f32
// CHECK-NEXT:      %[[VAR:.+]] = arith.mulf %[[SI]], %[[RN]] : f32
// CHECK-NEXT:      %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:      %[[VE:.+]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-NEXT:      %[[INV:.+]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT:      %[[C:.+]] = arith.subf %[[XI2]], %[[MI2]] : f32
// CHECK-NEXT:      %[[NRM:.+]] = arith.mulf %[[C]], %[[INV]] : f32
// CHECK-NEXT:      %[[SC:.+]] = arith.mulf %[[NRM]], %[[GI]] : f32
// CHECK-NEXT:      %[[Y:.+]] = arith.addf %[[SC]], %[[BI]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK:         return %[[R]]
func.func @layer_norm(%x: tensor<2x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %y = nn.layer_norm %x scale(%g : tensor<64xf32>) bias(%b : tensor<64xf32>) axis = 2 {epsilon = 1.0e-05 : f64} : tensor<2x16x64xf32>
  return %y : tensor<2x16x64xf32>
}

// -----

// Several normalised dimensions, no scale or bias; the divisor is 4 * 8, and
// the variance is the sum of squares times 1/32.
// CHECK-LABEL: func.func @no_affine(
// CHECK-SAME:    %[[X:.+]]: tensor<2x4x8xf64>)
// CHECK:         linalg.reduce ins(%[[X]] : tensor<2x4x8xf64>) outs(%{{.+}} : tensor<2xf64>) dimensions = [1, 2]
// CHECK:         %[[MEAN:.+]] = linalg.generic
// CHECK:           arith.constant 3.200000e+01 : f64
// CHECK:         %[[SQ:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<2x4x8xf64>, tensor<2xf64>) outs(%{{.+}} : tensor<2xf64>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f64
// CHECK:         %[[R:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]], %[[SQ]] : tensor<2x4x8xf64>, tensor<2xf64>, tensor<2xf64>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f64, %[[MI:.+]]: f64, %[[SI:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT:      %[[RN:.+]] = arith.constant 3.125000e-02 : f64
// CHECK-NEXT:      %[[VAR:.+]] = arith.mulf %[[SI]], %[[RN]] : f64
// CHECK-NEXT:      %[[EPS:.+]] = arith.constant 1.000000e-03 : f64
// CHECK-NEXT:      %[[VE:.+]] = arith.addf %[[VAR]], %[[EPS]] : f64
// CHECK-NEXT:      %[[INV:.+]] = math.rsqrt %[[VE]] : f64
// CHECK-NEXT:      %[[C:.+]] = arith.subf %[[XI]], %[[MI]] : f64
// CHECK-NEXT:      %[[Y:.+]] = arith.mulf %[[C]], %[[INV]] : f64
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
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[X]], %{{.+}}, %{{.+}}, %[[G]] : tensor<2x4x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x8xf32>)
// CHECK:           math.rsqrt
// CHECK:           arith.mulf
// CHECK:           arith.mulf
// CHECK-NOT:       arith.addf
// CHECK:           linalg.yield
func.func @scale_2d(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %y = nn.layer_norm %x scale(%g : tensor<4x8xf32>) axis = 1 : tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}
