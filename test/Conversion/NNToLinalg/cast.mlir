// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.cast is an elementwise generic whose body converts with nn.cast's
// semantics (see the op's description in dialects/nn/NNOps.td).

// Narrowing float: truncf.
// CHECK-LABEL: func.func @f32_to_bf16(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2x3xbf16>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xbf16>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xbf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[IN]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
// CHECK:         return %[[R]]
func.func @f32_to_bf16(%x: tensor<2x3xf32>) -> tensor<2x3xbf16> {
  %y = nn.cast %x : tensor<2x3xf32> to bf16
  return %y : tensor<2x3xbf16>
}

// -----

// Widening float: extf.
// CHECK-LABEL: func.func @f32_to_f64(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2x3xf64>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xf64>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf64>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f64):
// CHECK-NEXT:      %[[V:.+]] = arith.extf %[[IN]] : f32 to f64
// CHECK-NEXT:      linalg.yield %[[V]] : f64
// CHECK:         return %[[R]]
func.func @f32_to_f64(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %y = nn.cast %x : tensor<2x3xf32> to f64
  return %y : tensor<2x3xf64>
}

// -----

// CHECK-LABEL: func.func @f64_to_f32(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf64>) -> tensor<2x3xf32>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xf64>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f64, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[IN]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @f64_to_f32(%x: tensor<2x3xf64>) -> tensor<2x3xf32> {
  %y = nn.cast %x : tensor<2x3xf64> to f32
  return %y : tensor<2x3xf32>
}

// -----

// Between the two 16-bit formats through f32 (neither holds the other).
// CHECK-LABEL: func.func @f16_to_bf16(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf16>) -> tensor<2x3xbf16>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xbf16>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xf16>) outs(%[[INIT]] : tensor<2x3xbf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f16, %{{.+}}: bf16):
// CHECK-NEXT:      %[[W:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:      %[[V:.+]] = arith.truncf %[[W]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
// CHECK:         return %[[R]]
func.func @f16_to_bf16(%x: tensor<2x3xf16>) -> tensor<2x3xbf16> {
  %y = nn.cast %x : tensor<2x3xf16> to bf16
  return %y : tensor<2x3xbf16>
}

// -----

// Float to integer rounds toward zero: fptosi.
// CHECK-LABEL: func.func @f32_to_i64(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2x3xi64>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xi64>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xi64>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: i64):
// CHECK-NEXT:      %[[V:.+]] = arith.fptosi %[[IN]] : f32 to i64
// CHECK-NEXT:      linalg.yield %[[V]] : i64
// CHECK:         return %[[R]]
func.func @f32_to_i64(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  %y = nn.cast %x : tensor<2x3xf32> to i64
  return %y : tensor<2x3xi64>
}

// -----

// To i1 tests against zero; unordered so that NaN is true.
// CHECK-LABEL: func.func @f32_to_i1(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xi1>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf une, %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @f32_to_i1(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %y = nn.cast %x : tensor<2x3xf32> to i1
  return %y : tensor<2x3xi1>
}

// -----

// Integer sources are signed.
// CHECK-LABEL: func.func @i32_to_f32(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xi32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.sitofp %[[IN]] : i32 to f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @i32_to_f32(%x: tensor<2x3xi32>) -> tensor<2x3xf32> {
  %y = nn.cast %x : tensor<2x3xi32> to f32
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @i32_to_i8(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xi32>) -> tensor<2x3xi8>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xi8>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xi32>) outs(%[[INIT]] : tensor<2x3xi8>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i32, %{{.+}}: i8):
// CHECK-NEXT:      %[[V:.+]] = arith.trunci %[[IN]] : i32 to i8
// CHECK-NEXT:      linalg.yield %[[V]] : i8
// CHECK:         return %[[R]]
func.func @i32_to_i8(%x: tensor<2x3xi32>) -> tensor<2x3xi8> {
  %y = nn.cast %x : tensor<2x3xi32> to i8
  return %y : tensor<2x3xi8>
}

// -----

// CHECK-LABEL: func.func @i32_to_i64(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xi32>) -> tensor<2x3xi64>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xi64>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xi32>) outs(%[[INIT]] : tensor<2x3xi64>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i32, %{{.+}}: i64):
// CHECK-NEXT:      %[[V:.+]] = arith.extsi %[[IN]] : i32 to i64
// CHECK-NEXT:      linalg.yield %[[V]] : i64
// CHECK:         return %[[R]]
func.func @i32_to_i64(%x: tensor<2x3xi32>) -> tensor<2x3xi64> {
  %y = nn.cast %x : tensor<2x3xi32> to i64
  return %y : tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func.func @i32_to_i1(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xi32>) outs(%[[INIT]] : tensor<2x3xi1>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i32, %{{.+}}: i1):
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[V:.+]] = arith.cmpi ne, %[[IN]], %[[ZERO]] : i32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @i32_to_i1(%x: tensor<2x3xi32>) -> tensor<2x3xi1> {
  %y = nn.cast %x : tensor<2x3xi32> to i1
  return %y : tensor<2x3xi1>
}

// -----

// i1 converts as 0 and 1, not 0 and -1: unsigned conversions.
// CHECK-LABEL: func.func @i1_to_f32(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xi1>) -> tensor<2x3xf32>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xi1>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i1, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.uitofp %[[IN]] : i1 to f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @i1_to_f32(%x: tensor<2x3xi1>) -> tensor<2x3xf32> {
  %y = nn.cast %x : tensor<2x3xi1> to f32
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @i1_to_i32(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xi1>) -> tensor<2x3xi32>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xi32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xi1>) outs(%[[INIT]] : tensor<2x3xi32>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i1, %{{.+}}: i32):
// CHECK-NEXT:      %[[V:.+]] = arith.extui %[[IN]] : i1 to i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
// CHECK:         return %[[R]]
func.func @i1_to_i32(%x: tensor<2x3xi1>) -> tensor<2x3xi32> {
  %y = nn.cast %x : tensor<2x3xi1> to i32
  return %y : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @i64_to_bf16(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3xi64>) -> tensor<2x3xbf16>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xbf16>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[X]] : tensor<2x3xi64>) outs(%[[INIT]] : tensor<2x3xbf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i64, %{{.+}}: bf16):
// CHECK-NEXT:      %[[V:.+]] = arith.sitofp %[[IN]] : i64 to bf16
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
// CHECK:         return %[[R]]
func.func @i64_to_bf16(%x: tensor<2x3xi64>) -> tensor<2x3xbf16> {
  %y = nn.cast %x : tensor<2x3xi64> to bf16
  return %y : tensor<2x3xbf16>
}

// -----

// A cast to the same type folds away before lowering.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME:    %[[X:.+]]: tensor<4xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[X]] : tensor<4xf32>
func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = nn.cast %x : tensor<4xf32> to f32
  return %y : tensor<4xf32>
}
