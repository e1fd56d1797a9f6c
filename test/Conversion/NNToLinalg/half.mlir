// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// f16 and bf16 tensors keep their storage type, but arithmetic is done in
// f32: operands are extended with extf in the body and the result truncated
// with truncf. Operations that are exact in the storage type (negation,
// comparison, selection) stay in it. The accumulation of reductions and
// contractions in half precision is covered by the tests
// half-accumulation-*.mlir.

// CHECK-LABEL: func.func @add_f16(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf16>, %[[Y:[^:]+]]: tensor<4xf16>) -> tensor<4xf16>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xf16>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf16>, tensor<4xf16>) outs(%[[INIT]] : tensor<4xf16>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f16):
// CHECK-DAG:       %[[BW:.+]] = arith.extf %[[B]] : f16 to f32
// CHECK-DAG:       %[[AW:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK:           %[[S:.+]] = arith.addf %[[AW]], %[[BW]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[V]] : f16
// CHECK:         return %[[R]]
func.func @add_f16(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  %r = nn.add %x, %y : tensor<4xf16>, tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @div_bf16_broadcast(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT:    ^bb0(%[[A:.+]]: bf16, %[[B:.+]]: bf16, %{{.+}}: bf16):
// CHECK-DAG:       %[[BW:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-DAG:       %[[AW:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK:           %[[Q:.+]] = arith.divf %[[AW]], %[[BW]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[Q]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
func.func @div_bf16_broadcast(%x: tensor<2x3xbf16>, %y: tensor<bf16>) -> tensor<2x3xbf16> {
  %r = nn.div %x, %y : tensor<2x3xbf16>, tensor<bf16>
  return %r : tensor<2x3xbf16>
}

// -----

// max is exact, but goes through f32 like the other binary ops.
// CHECK-LABEL: func.func @max_f16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f16):
// CHECK-DAG:       %[[BW:.+]] = arith.extf %[[B]] : f16 to f32
// CHECK-DAG:       %[[AW:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK:           %[[M:.+]] = arith.maximumf %[[AW]], %[[BW]] : f32
// CHECK-NEXT:      arith.truncf %[[M]] : f32 to f16
func.func @max_f16(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  %r = nn.max %x, %y : tensor<4xf16>, tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @exp_bf16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      %[[W:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[W]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[E]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
func.func @exp_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = nn.exp %x : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

// The whole sigmoid is computed in f32; one truncation at the end.
// CHECK-LABEL: func.func @sigmoid_f16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[N:.+]] = arith.negf %[[W]] : f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[N]] : f32
// CHECK-NEXT:      %[[D:.+]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT:      %[[Q:.+]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[Q]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[V]] : f16
func.func @sigmoid_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %r = nn.sigmoid %x : tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @gelu_bf16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      %[[W:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK:           %[[RS2:.+]] = arith.constant 0.707106769 : f32
// CHECK-NEXT:      arith.mulf %[[W]], %[[RS2]] : f32
// CHECK-NEXT:      math.erf %{{.+}} : f32
// CHECK-NEXT:      arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      arith.mulf %{{.+}}, %[[W]] : f32
// CHECK-NEXT:      %[[R:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[R]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
func.func @gelu_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = nn.gelu %x : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

// Negation is exact: no widening.
// CHECK-LABEL: func.func @neg_f16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT:      %[[V:.+]] = arith.negf %[[IN]] : f16
// CHECK-NEXT:      linalg.yield %[[V]] : f16
func.func @neg_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %r = nn.neg %x : tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// reduce_mean widens the input to an f32 tensor, sums and divides in f32,
// and truncates the mean.
// CHECK-LABEL: func.func @reduce_mean_bf16(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xbf16>)
// CHECK:         %[[W:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: bf16, %{{.+}}: f32):
// CHECK-NEXT:      %[[E:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT:      linalg.yield %[[E]] : f32
// CHECK:         %[[S:.+]] = linalg.reduce ins(%[[W]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4xf32>) dimensions = [1]
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[S]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xbf16>)
// CHECK-NEXT:    ^bb0(%[[SI:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT:      %[[N:.+]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[M:.+]] = arith.divf %[[SI]], %[[N]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
// CHECK:         return %[[R]]
func.func @reduce_mean_bf16(%x: tensor<4x8xbf16>) -> tensor<4xbf16> {
  %s = nn.reduce_mean %x axes = [1] : tensor<4x8xbf16> -> tensor<4xbf16>
  return %s : tensor<4xbf16>
}

// -----

// Max reductions are exact and stay in the storage type.
// CHECK-LABEL: func.func @reduce_max_f16(
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFC00 : f16
// CHECK:         linalg.reduce ins(%{{.+}} : tensor<4x8xf16>) outs(%{{.+}} : tensor<4xf16>)
// CHECK:           arith.maximumf %{{.+}}, %{{.+}} : f16
func.func @reduce_max_f16(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  %s = nn.reduce_max %x axes = [1] : tensor<4x8xf16> -> tensor<4xf16>
  return %s : tensor<4xf16>
}

// -----

// batch_norm extends all five operands and truncates once.
// CHECK-LABEL: func.func @batch_norm_bf16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[X:.+]]: bf16, %[[G:.+]]: bf16, %[[B:.+]]: bf16, %[[M:.+]]: bf16, %[[V:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:      %[[GW:.+]] = arith.extf %[[G]] : bf16 to f32
// CHECK-NEXT:      %[[BW:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT:      %[[MW:.+]] = arith.extf %[[M]] : bf16 to f32
// CHECK-NEXT:      %[[VW:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT:      %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT:      %[[VE:.+]] = arith.addf %[[VW]], %[[EPS]] : f32
// CHECK-NEXT:      %[[INV:.+]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT:      %[[K:.+]] = arith.mulf %[[INV]], %[[GW]] : f32
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XW]], %[[MW]] : f32
// CHECK-NEXT:      %[[Y:.+]] = arith.mulf %[[D]], %[[K]] : f32
// CHECK-NEXT:      %[[Z:.+]] = arith.addf %[[Y]], %[[BW]] : f32
// CHECK-NEXT:      %[[T:.+]] = arith.truncf %[[Z]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
func.func @batch_norm_bf16(%x: tensor<2x3xbf16>, %g: tensor<3xbf16>, %b: tensor<3xbf16>, %m: tensor<3xbf16>, %v: tensor<3xbf16>) -> tensor<2x3xbf16> {
  %y = nn.batch_norm %x, %g, %b, %m, %v : tensor<2x3xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>
  return %y : tensor<2x3xbf16>
}

// -----

// layer_norm: the mean and the sum of squares are f32 row tensors; the
// sum-of-squares reduction reads the f16 input, extends it and accumulates
// in f32; the final generic reads the f16 input and both f32 statistics and
// truncates once.
// CHECK-LABEL: func.func @layer_norm_f16(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x64xf16>, %[[G:[^:]+]]: tensor<64xf16>)
// CHECK:         %[[MEAN:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<2xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK:         %[[SQ:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<2x64xf16>, tensor<2xf32>) outs(%{{.+}} : tensor<2xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:.+]]: f16, %[[MI:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT:      %[[XW:.+]] = arith.extf %[[XI]] : f16 to f32
// CHECK-NEXT:      %[[D:.+]] = arith.subf %[[XW]], %[[MI]] : f32
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[P]] fastmath<reassoc,contract> : f32
// CHECK:         %[[R:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[MEAN]], %[[SQ]], %[[G]] : tensor<2x64xf16>, tensor<2xf32>, tensor<2xf32>, tensor<64xf16>) outs(%{{.+}} : tensor<2x64xf16>)
// CHECK-NEXT:    ^bb0(%{{.+}}: f16, %{{.+}}: f32, %{{.+}}: f32, %[[GI:.+]]: f16, %{{.+}}: f16):
// CHECK-NOT:       arith.truncf
// CHECK:           math.rsqrt %{{.+}} : f32
// CHECK-NOT:       arith.truncf
// CHECK:           %[[GW:.+]] = arith.extf %[[GI]] : f16 to f32
// CHECK-NEXT:      %[[S:.+]] = arith.mulf %{{.+}}, %[[GW]] : f32
// CHECK-NEXT:      %[[T:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
// CHECK:         return %[[R]]
func.func @layer_norm_f16(%x: tensor<2x64xf16>, %g: tensor<64xf16>) -> tensor<2x64xf16> {
  %y = nn.layer_norm %x scale(%g : tensor<64xf16>) axis = 1 : tensor<2x64xf16>
  return %y : tensor<2x64xf16>
}

// -----

// cross_entropy: the log_softmax denominator sum(exp(x - max)) is one
// reduction generic over the f16 logits accumulating in f32; the
// log_softmax generic reads the f16 logits, the f16 maximum and the f32 sum
// and truncates once. The loss and the count are summed in f32 and the mean
// is truncated.
// CHECK-LABEL: func.func @cross_entropy_f16(
// CHECK-SAME:    %[[L:[^:]+]]: tensor<4x10xf16>
// CHECK:         %[[MAX:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<4xf16>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[L]], %[[MAX]] : tensor<4x10xf16>, tensor<4xf16>) outs(%{{.+}} : tensor<4xf32>)
// CHECK:           math.exp %{{.+}} : f32
// CHECK-NEXT:      arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         %[[LSM:.+]] = linalg.generic {{.*}} ins(%[[L]], %[[MAX]], %[[SUM]] : tensor<4x10xf16>, tensor<4xf16>, tensor<4xf32>) outs(%{{.+}} : tensor<4x10xf16>)
// CHECK-NOT:       arith.truncf
// CHECK:           math.log %{{.+}} : f32
// CHECK-NEXT:      %[[LS:.+]] = arith.subf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      arith.truncf %[[LS]] : f32 to f16
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK:         %[[RED:.+]]:2 = linalg.generic {{.*}} outs(%[[ACC]], %[[ACC]] : tensor<f32>, tensor<f32>)
// CHECK:           %[[LP:.+]] = tensor.extract %[[LSM]]
// CHECK-NEXT:      %[[LPW:.+]] = arith.extf %[[LP]] : f16 to f32
// CHECK:           arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK:         linalg.generic {{.*}} ins(%[[RED]]#0, %[[RED]]#1 : tensor<f32>, tensor<f32>) outs(%{{.+}} : tensor<f16>)
// CHECK:           %[[M:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      arith.truncf %[[M]] : f32 to f16
func.func @cross_entropy_f16(%l: tensor<4x10xf16>, %t: tensor<4xi64>) -> tensor<f16> {
  %y = nn.cross_entropy %l, %t class_axis = 1 : tensor<4x10xf16>, tensor<4xi64> -> tensor<f16>
  return %y : tensor<f16>
}

// -----

// avg_pool sums and divides in f32.
// CHECK-LABEL: func.func @avg_pool_f16(
// CHECK:         %[[S:.+]] = linalg.pooling_nchw_sum
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<1x1x2x2xf32>)
// CHECK:           %[[N:.+]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[Q:.+]] = arith.divf %{{.+}}, %[[N]] : f32
// CHECK-NEXT:      arith.truncf %[[Q]] : f32 to f16
func.func @avg_pool_f16(%x: tensor<1x1x4x4xf16>) -> tensor<1x1x2x2xf16> {
  %y = nn.avg_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x1x4x4xf16> -> tensor<1x1x2x2xf16>
  return %y : tensor<1x1x2x2xf16>
}

// -----

// A bf16 range is computed in f32 from the bf16 start and step.
// CHECK-LABEL: func.func @range_bf16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%{{.+}}: bf16):
// CHECK-NEXT:      %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[START:.+]] = arith.constant 0.000000e+00 : bf16
// CHECK-NEXT:      %[[STEP:.+]] = arith.constant 5.000000e-01 : bf16
// CHECK-NEXT:      %[[II:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[F:.+]] = arith.sitofp %[[II]] : i64 to f32
// CHECK-NEXT:      %[[SW:.+]] = arith.extf %[[STEP]] : bf16 to f32
// CHECK-NEXT:      %[[T:.+]] = arith.mulf %[[F]], %[[SW]] : f32
// CHECK-NEXT:      %[[BW:.+]] = arith.extf %[[START]] : bf16 to f32
// CHECK-NEXT:      %[[V:.+]] = arith.addf %[[BW]], %[[T]] : f32
// CHECK-NEXT:      %[[R:.+]] = arith.truncf %[[V]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[R]] : bf16
func.func @range_bf16() -> tensor<131072xbf16> {
  %r = nn.range 0.0 to 6.5536e+04 step 5.0e-01 -> tensor<131072xbf16>
  return %r : tensor<131072xbf16>
}
