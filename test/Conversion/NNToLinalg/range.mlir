// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.range folds to a constant up to 65536 elements (see the second case);
// larger ranges become an indexed generic computing start + i * delta.

// CHECK-LABEL: func.func @int64(
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<100000xi64>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0) -> (d0)>]
// CHECK-SAME:      iterator_types = ["parallel"]
// CHECK-SAME:      outs(%[[INIT]] : tensor<100000xi64>)
// CHECK-NEXT:    ^bb0(%{{.+}}: i64):
// CHECK-NEXT:      %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[START:.+]] = arith.constant 5 : i64
// CHECK-NEXT:      %[[STEP:.+]] = arith.constant 3 : i64
// CHECK-NEXT:      %[[II:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[T:.+]] = arith.muli %[[II]], %[[STEP]] : i64
// CHECK-NEXT:      %[[V:.+]] = arith.addi %[[START]], %[[T]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i64
// CHECK:         return %[[R]]
func.func @int64() -> tensor<100000xi64> {
  %r = nn.range 5 to 300005 step 3 -> tensor<100000xi64>
  return %r : tensor<100000xi64>
}

// -----

// Small ranges are folded by nn.range's folder into an arith.constant.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     linalg.generic
// CHECK:         %[[C:.+]] = arith.constant dense<[0, 3, 6, 9]> : tensor<4xi64>
// CHECK:         return %[[C]]
func.func @small() -> tensor<4xi64> {
  %r = nn.range 0 to 10 step 3 -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// A narrower integer type: the i64 index is truncated; negative step.
// CHECK-LABEL: func.func @int32_negative(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%{{.+}}: i32):
// CHECK-NEXT:      %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[START:.+]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[STEP:.+]] = arith.constant -2 : i32
// CHECK-NEXT:      %[[II:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[IT:.+]] = arith.trunci %[[II]] : i64 to i32
// CHECK-NEXT:      %[[T:.+]] = arith.muli %[[IT]], %[[STEP]] : i32
// CHECK-NEXT:      %[[V:.+]] = arith.addi %[[START]], %[[T]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
func.func @int32_negative() -> tensor<70000xi32> {
  %r = nn.range 0 to -140000 step -2 -> tensor<70000xi32>
  return %r : tensor<70000xi32>
}

// -----

// Floats: start + float(i) * delta (not a running sum).
// CHECK-LABEL: func.func @float32(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%{{.+}}: f32):
// CHECK-NEXT:      %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[START:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[STEP:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[II:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[F:.+]] = arith.sitofp %[[II]] : i64 to f32
// CHECK-NEXT:      %[[T:.+]] = arith.mulf %[[F]], %[[STEP]] : f32
// CHECK-NEXT:      %[[V:.+]] = arith.addf %[[START]], %[[T]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @float32() -> tensor<70000xf32> {
  %r = nn.range 1.0 to 35001.0 step 0.5 -> tensor<70000xf32>
  return %r : tensor<70000xf32>
}
