// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// Unsigned integers are stored as signless ones of the same width (the
// function's signature included); the ops whose result depends on the sign
// use the unsigned arith ops.

// CHECK-LABEL: func.func @unsigned_ops(
// CHECK-SAME:    %[[A:.+]]: tensor<4xi8>, %[[B:.+]]: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xi8>)
// CHECK:         arith.maxui
// CHECK:         arith.minui
// CHECK:         arith.cmpi eq
// CHECK-NEXT:    arith.select
// CHECK-NEXT:    arith.divui
// CHECK:         arith.cmpi ult
// CHECK:         arith.uitofp %{{.+}} : i8 to f32
// CHECK:         arith.extui %{{.+}} : i8 to i32
// CHECK:         arith.fptoui %{{.+}} : f32 to i8
func.func @unsigned_ops(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>) {
  %max = nn.max %a, %b : tensor<4xui8>, tensor<4xui8>
  %min = nn.min %a, %b : tensor<4xui8>, tensor<4xui8>
  %div = nn.div %a, %b : tensor<4xui8>, tensor<4xui8>
  %lt = nn.compare lt, %a, %b : tensor<4xui8>, tensor<4xui8>
  %f = nn.cast %a : tensor<4xui8> to f32
  %w = nn.cast %a : tensor<4xui8> to i32
  %back = nn.cast %f : tensor<4xf32> to ui8
  return %max, %min, %div, %lt, %f, %w, %back : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>
}

// -----

// Unsigned reductions start from 0 (max) and all ones (min); constants keep
// their bits.
// CHECK-LABEL: func.func @unsigned_reduce(
// CHECK-SAME:    %{{.+}}: tensor<2x3xi16>) -> (tensor<2xi16>, tensor<2xi16>, tensor<3xi16>)
// CHECK:         arith.constant 0 : i16
// CHECK:         linalg.reduce
// CHECK:         arith.maxui
// CHECK:         arith.constant -1 : i16
// CHECK:         linalg.reduce
// CHECK:         arith.minui
// CHECK:         arith.constant dense<[-1, 1, -32768]> : tensor<3xi16>
func.func @unsigned_reduce(%x: tensor<2x3xui16>) -> (tensor<2xui16>, tensor<2xui16>, tensor<3xui16>) {
  %max = nn.reduce_max %x axes = [1] : tensor<2x3xui16> -> tensor<2xui16>
  %min = nn.reduce_min %x axes = [1] : tensor<2x3xui16> -> tensor<2xui16>
  %c = nn.constant dense<[65535, 1, 32768]> : tensor<3xui16>
  return %max, %min, %c : tensor<2xui16>, tensor<2xui16>, tensor<3xui16>
}

// -----

// linalg's NCHW max pool is signed: the sign bit is flipped around it,
// which maps unsigned order onto signed order.
// CHECK-LABEL: func.func @unsigned_max_pool(
// CHECK:         arith.xori %{{.+}}, %{{.+}} : i8
// CHECK:         linalg.pooling_nchw_max
// CHECK:         arith.xori %{{.+}}, %{{.+}} : i8
func.func @unsigned_max_pool(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  %y = nn.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x1x4x4xui8> -> tensor<1x1x2x2xui8>
  return %y : tensor<1x1x2x2xui8>
}

// -----

// 8-bit floats are stored as their bits in i8. Decoding builds the value
// from its fields in f32 (exactly); encoding rounds the f32 bits to
// nearest even with integer arithmetic and saturates.
// CHECK-LABEL: func.func @float8(
// CHECK-SAME:    %{{.+}}: tensor<4xi8>, %{{.+}}: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi8>)
// CHECK:         ^bb0(%[[BITS:.+]]: i8, %{{.+}}: f32):
// CHECK:           arith.extui %[[BITS]] : i8 to i32
// CHECK:           arith.sitofp
// CHECK:           arith.mulf
// CHECK:           linalg.yield %{{.+}} : f32
// CHECK:         ^bb0(%[[V:.+]]: f32, %{{.+}}: i8):
// CHECK:           arith.bitcast %[[V]] : f32 to i32
// CHECK:           arith.constant 126 : i32
// CHECK:           arith.trunci %{{.+}} : i32 to i8
func.func @float8(%x: tensor<4xf8E4M3FN>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf8E4M3FN>) {
  %a = nn.cast %x : tensor<4xf8E4M3FN> to f32
  %b = nn.cast %y : tensor<4xf32> to f8E4M3FN
  return %a, %b : tensor<4xf32>, tensor<4xf8E4M3FN>
}

// -----

// Without saturation, E5M2 overflows to infinity (0x7c).
// CHECK-LABEL: func.func @float8_no_saturate(
// CHECK:         arith.constant 124 : i32
func.func @float8_no_saturate(%y: tensor<4xf32>) -> tensor<4xf8E5M2> {
  %b = nn.cast %y {saturate = false} : tensor<4xf32> to f8E5M2
  return %b : tensor<4xf8E5M2>
}

// -----

// 4-bit integers are stored as their value in i8: floats round to nearest
// even and clamp; 4-bit sources convert as i8 (signed) or ui8.
// CHECK-LABEL: func.func @int4(
// CHECK-SAME:    %{{.+}}: tensor<4xf32>, %{{.+}}: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xf32>, tensor<2xi8>)
// CHECK:         math.roundeven
// CHECK:         arith.maximumf
// CHECK:         arith.minimumf
// CHECK:         arith.fptosi %{{.+}} : f32 to i8
// CHECK:         arith.uitofp %{{.+}} : i8 to f32
// CHECK:         arith.constant dense<[-8, 7]> : tensor<2xi8>
func.func @int4(%x: tensor<4xf32>, %u: tensor<4xui4>) -> (tensor<4xi4>, tensor<4xf32>, tensor<2xi4>) {
  %a = nn.cast %x : tensor<4xf32> to i4
  %b = nn.cast %u : tensor<4xui4> to f32
  %c = nn.constant dense<[-8, 7]> : tensor<2xi4>
  return %a, %b, %c : tensor<4xi4>, tensor<4xf32>, tensor<2xi4>
}

// -----

// A cast whose target alone is a storage type keeps its meaning once the
// types are erased: the constant is encoded (not folded as an integer
// cast), and i8 -> i4 clamps (not folded to the identity).
// CHECK-LABEL: func.func @storage_targets(
// CHECK-NOT:     arith.constant dense<1> : tensor<4xi8>
// CHECK:         arith.bitcast %{{.+}} : f32 to i32
// CHECK:         arith.maxsi %{{.+}}, %{{.+}} : i64
// CHECK:         arith.minsi %{{.+}}, %{{.+}} : i64
func.func @storage_targets(%x: tensor<4xi8>) -> (tensor<4xf8E4M3FN>, tensor<4xi4>) {
  %c = nn.constant dense<1.0> : tensor<4xf32>
  %a = nn.cast %c : tensor<4xf32> to f8E4M3FN
  %b = nn.cast %x : tensor<4xi8> to i4
  return %a, %b : tensor<4xf8E4M3FN>, tensor<4xi4>
}
