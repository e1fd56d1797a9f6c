// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Elementwise unary and binary nn ops become one parallel linalg.generic
// over the result, whose body applies the scalar operation. Same-shape
// operands here; broadcast.mlir covers the broadcasting indexing maps.

// CHECK-LABEL: func.func @neg_f32(
// CHECK-SAME:    %[[X:.+]]: tensor<4xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel"]
// CHECK-SAME:      ins(%[[X]] : tensor<4xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.negf %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]] : tensor<4xf32>
func.func @neg_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.neg %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Integer negation is 0 - x (arith has no integer negate).
// CHECK-LABEL: func.func @neg_i32(
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel"]
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[V:.+]] = arith.subi %[[ZERO]], %[[IN]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @neg_i32(%x: tensor<4xi32>) -> tensor<4xi32> {
  %y = nn.neg %x : tensor<4xi32>
  return %y : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @abs_f32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = math.absf %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @abs_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.abs %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @abs_i64(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i64, %{{.+}}: i64):
// CHECK-NEXT:      %[[V:.+]] = math.absi %[[IN]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i64
func.func @abs_i64(%x: tensor<4xi64>) -> tensor<4xi64> {
  %y = nn.abs %x : tensor<4xi64>
  return %y : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @exp(
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = math.exp %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @exp(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = nn.exp %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @log(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT:      %[[V:.+]] = math.log %[[IN]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
func.func @log(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = nn.log %x : tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @sqrt(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = math.sqrt %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @sqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.sqrt %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @rsqrt(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = math.rsqrt %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @rsqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.rsqrt %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// 1 / x.
// CHECK-LABEL: func.func @reciprocal(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[ONE]], %[[IN]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
func.func @reciprocal(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = nn.reciprocal %x : tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @tanh(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = math.tanh %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.+]] = arith.negf %[[IN]] : f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:      %[[D:.+]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.sigmoid %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @erf(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = math.erf %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.erf %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// max(x, 0) with the NaN-propagating maximumf.
// CHECK-LABEL: func.func @relu_f32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.+]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @relu_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu_i8(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i8, %{{.+}}: i8):
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK-NEXT:      %[[V:.+]] = arith.maxsi %[[IN]], %[[ZERO]] : i8
// CHECK-NEXT:      linalg.yield %[[V]] : i8
func.func @relu_i8(%x: tensor<4xi8>) -> tensor<4xi8> {
  %y = nn.relu %x : tensor<4xi8>
  return %y : tensor<4xi8>
}

// -----

// Exact GELU: 0.5 x (1 + erf(x / sqrt 2)).
// CHECK-LABEL: func.func @gelu(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f64, %{{.+}}: f64):
// CHECK-DAG:       %[[HALF:.+]] = arith.constant 5.000000e-01 : f64
// CHECK-DAG:       %[[ONE:.+]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG:       %[[RSQRT2:.+]] = arith.constant 0.70710678118654757 : f64
// CHECK:           %[[S:.+]] = arith.mulf %[[IN]], %[[RSQRT2]] : f64
// CHECK-NEXT:      %[[E:.+]] = math.erf %[[S]] : f64
// CHECK-NEXT:      %[[P:.+]] = arith.addf %[[ONE]], %[[E]] : f64
// CHECK-NEXT:      %[[H:.+]] = arith.mulf %[[HALF]], %[[IN]] : f64
// CHECK-NEXT:      %[[V:.+]] = arith.mulf %[[H]], %[[P]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
// CHECK-NOT:     math.tanh
func.func @gelu(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = nn.gelu %x : tensor<4xf64>
  return %y : tensor<4xf64>
}

// -----

// Tanh GELU: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG:       %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:       %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:           %[[X2:.+]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT:      %[[X3:.+]] = arith.mulf %[[IN]], %[[X2]] : f32
// CHECK-NEXT:      %[[C:.+]] = arith.constant 4.471500e-02 : f32
// CHECK-NEXT:      %[[CX3:.+]] = arith.mulf %[[C]], %[[X3]] : f32
// CHECK-NEXT:      %[[POLY:.+]] = arith.addf %[[IN]], %[[CX3]] : f32
// CHECK-NEXT:      %[[K:.+]] = arith.constant 0.797884583 : f32
// CHECK-NEXT:      %[[A:.+]] = arith.mulf %[[K]], %[[POLY]] : f32
// CHECK-NEXT:      %[[T:.+]] = math.tanh %[[A]] : f32
// CHECK-NEXT:      %[[P:.+]] = arith.addf %[[ONE]], %[[T]] : f32
// CHECK-NEXT:      %[[H:.+]] = arith.mulf %[[HALF]], %[[IN]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.mulf %[[H]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK-NOT:     math.erf
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.gelu %x approximate = tanh : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @add_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @add_f32(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = nn.add %x, %y : tensor<2x3xf32>, tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @add_i64(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i64):
// CHECK-NEXT:      %[[V:.+]] = arith.addi %[[A]], %[[B]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i64
func.func @add_i64(%x: tensor<2x3xi64>, %y: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %r = nn.add %x, %y : tensor<2x3xi64>, tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// Operand order is kept for the non-commutative ops.
// CHECK-LABEL: func.func @sub_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @sub_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.sub %x, %y : tensor<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sub_i16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i16, %[[B:.+]]: i16, %{{.+}}: i16):
// CHECK-NEXT:      %[[V:.+]] = arith.subi %[[A]], %[[B]] : i16
// CHECK-NEXT:      linalg.yield %[[V]] : i16
func.func @sub_i16(%x: tensor<4xi16>, %y: tensor<4xi16>) -> tensor<4xi16> {
  %r = nn.sub %x, %y : tensor<4xi16>, tensor<4xi16>
  return %r : tensor<4xi16>
}

// -----

// CHECK-LABEL: func.func @mul_f32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @mul_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.mul %x, %y : tensor<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul_i32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i32, %[[B:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      %[[V:.+]] = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @mul_i32(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %r = nn.mul %x, %y : tensor<4xi32>, tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @div_f32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.divf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @div_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.div %x, %y : tensor<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Integer division truncates (divsi) and cannot trap: a zero divisor gives 0
// and a divisor of -1 gives the wrapping negation, so divsi only ever sees a
// divisor that is neither 0 nor -1.
// CHECK-LABEL: func.func @div_i64(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i64):
// CHECK-DAG:       %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-DAG:       %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG:       %[[MONE:.+]] = arith.constant -1 : i64
// CHECK:           %[[ISZERO:.+]] = arith.cmpi eq, %[[B]], %[[ZERO]] : i64
// CHECK-NEXT:      %[[ISMONE:.+]] = arith.cmpi eq, %[[B]], %[[MONE]] : i64
// CHECK-NEXT:      %[[BAD:.+]] = arith.ori %[[ISZERO]], %[[ISMONE]] : i1
// CHECK-NEXT:      %[[DIVISOR:.+]] = arith.select %[[BAD]], %[[ONE]], %[[B]] : i64
// CHECK-NEXT:      %[[Q:.+]] = arith.divsi %[[A]], %[[DIVISOR]] : i64
// CHECK-NEXT:      %[[NEG:.+]] = arith.subi %[[ZERO]], %[[A]] : i64
// CHECK-NEXT:      %[[R1:.+]] = arith.select %[[ISMONE]], %[[NEG]], %[[Q]] : i64
// CHECK-NEXT:      %[[R2:.+]] = arith.select %[[ISZERO]], %[[ZERO]], %[[R1]] : i64
// CHECK-NEXT:      linalg.yield %[[R2]] : i64
// CHECK-NOT:     arith.divui
func.func @div_i64(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  %r = nn.div %x, %y : tensor<4xi64>, tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @pow(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = math.powf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @pow(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.pow %x, %y : tensor<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Integer powers square repeatedly (math.ipowi), which is never given a
// negative exponent (it would divide by zero for a zero base): for y < 0 it
// gets y & 1, right when |x| = 1, and the result is 0 otherwise.
// CHECK-LABEL: func.func @pow_i32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-DAG:       %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG:       %[[ONE:.+]] = arith.constant 1 : i32
// CHECK:           %[[NEG:.+]] = arith.cmpi slt, %[[Y]], %[[ZERO]] : i32
// CHECK-NEXT:      %[[PARITY:.+]] = arith.andi %[[Y]], %[[ONE]] : i32
// CHECK-NEXT:      %[[E:.+]] = arith.select %[[NEG]], %[[PARITY]], %[[Y]] : i32
// CHECK-NEXT:      %[[P:.+]] = math.ipowi %[[X]], %[[E]] : i32
// CHECK-NEXT:      %[[ABS:.+]] = math.absi %[[X]] : i32
// CHECK-NEXT:      %[[NOTUNIT:.+]] = arith.cmpi ne, %[[ABS]], %[[ONE]] : i32
// CHECK-NEXT:      %[[VANISH:.+]] = arith.andi %[[NEG]], %[[NOTUNIT]] : i1
// CHECK-NEXT:      %[[R:.+]] = arith.select %[[VANISH]], %[[ZERO]], %[[P]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
func.func @pow_i32(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %r = nn.pow %x, %y : tensor<4xi32>, tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// NaN wins (ONNX Max/Min): maximumf/minimumf, not maxnumf/minnumf.
// CHECK-LABEL: func.func @max_f32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.maximumf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @max_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.max %x, %y : tensor<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @max_i32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i32, %[[B:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT:      %[[V:.+]] = arith.maxsi %[[A]], %[[B]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @max_i32(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %r = nn.max %x, %y : tensor<4xi32>, tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @min_f64(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f64, %[[B:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT:      %[[V:.+]] = arith.minimumf %[[A]], %[[B]] : f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
func.func @min_f64(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %r = nn.min %x, %y : tensor<4xf64>, tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @min_i8(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i8, %[[B:.+]]: i8, %{{.+}}: i8):
// CHECK-NEXT:      %[[V:.+]] = arith.minsi %[[A]], %[[B]] : i8
// CHECK-NEXT:      linalg.yield %[[V]] : i8
func.func @min_i8(%x: tensor<4xi8>, %y: tensor<4xi8>) -> tensor<4xi8> {
  %r = nn.min %x, %y : tensor<4xi8>, tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// A chain stays a chain of generics, each reading the previous result.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %[[X:.+]]: tensor<8xf32>)
// CHECK:         %[[E:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]] : tensor<8xf32>)
// CHECK:           math.exp
// CHECK:         %[[T:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[E]] : tensor<8xf32>)
// CHECK:           math.tanh
// CHECK:         return %[[T]]
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = nn.exp %x : tensor<8xf32>
  %t = nn.tanh %e : tensor<8xf32>
  return %t : tensor<8xf32>
}
