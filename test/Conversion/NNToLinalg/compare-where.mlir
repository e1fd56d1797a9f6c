// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.compare yields i1 through cmpf/cmpi in an elementwise generic. Float
// comparisons are ordered except ne (unordered), so NaN compares false
// except under ne; integer comparisons are signed.

// CHECK-LABEL: func.func @eq_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf oeq, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @eq_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %m = nn.compare eq, %x, %y : tensor<4xf32>, tensor<4xf32>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @ne_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf une, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @ne_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %m = nn.compare ne, %x, %y : tensor<4xf32>, tensor<4xf32>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @lt_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @lt_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %m = nn.compare lt, %x, %y : tensor<4xf32>, tensor<4xf32>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @le_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf ole, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @le_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %m = nn.compare le, %x, %y : tensor<4xf32>, tensor<4xf32>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @gt_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @gt_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %m = nn.compare gt, %x, %y : tensor<4xf32>, tensor<4xf32>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @ge_f32(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf oge, %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @ge_f32(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  %m = nn.compare ge, %x, %y : tensor<4xf32>, tensor<4xf32>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @eq_i64(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xi64>, %[[Y:[^:]+]]: tensor<4xi64>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xi64>, tensor<4xi64>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpi eq, %[[A]], %[[B]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @eq_i64(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi1> {
  %m = nn.compare eq, %x, %y : tensor<4xi64>, tensor<4xi64>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @ne_i64(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xi64>, %[[Y:[^:]+]]: tensor<4xi64>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xi64>, tensor<4xi64>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpi ne, %[[A]], %[[B]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @ne_i64(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi1> {
  %m = nn.compare ne, %x, %y : tensor<4xi64>, tensor<4xi64>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @lt_i64(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xi64>, %[[Y:[^:]+]]: tensor<4xi64>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xi64>, tensor<4xi64>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpi slt, %[[A]], %[[B]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @lt_i64(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi1> {
  %m = nn.compare lt, %x, %y : tensor<4xi64>, tensor<4xi64>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @le_i64(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xi64>, %[[Y:[^:]+]]: tensor<4xi64>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xi64>, tensor<4xi64>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpi sle, %[[A]], %[[B]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @le_i64(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi1> {
  %m = nn.compare le, %x, %y : tensor<4xi64>, tensor<4xi64>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @gt_i64(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xi64>, %[[Y:[^:]+]]: tensor<4xi64>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xi64>, tensor<4xi64>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpi sgt, %[[A]], %[[B]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @gt_i64(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi1> {
  %m = nn.compare gt, %x, %y : tensor<4xi64>, tensor<4xi64>
  return %m : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @ge_i64(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xi64>, %[[Y:[^:]+]]: tensor<4xi64>) -> tensor<4xi1>
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4xi1>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[Y]] : tensor<4xi64>, tensor<4xi64>) outs(%[[INIT]] : tensor<4xi1>)
// CHECK-NEXT:    ^bb0(%[[A:.+]]: i64, %[[B:.+]]: i64, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpi sge, %[[A]], %[[B]] : i64
// CHECK-NEXT:      linalg.yield %[[V]] : i1
// CHECK:         return %[[R]]
func.func @ge_i64(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi1> {
  %m = nn.compare ge, %x, %y : tensor<4xi64>, tensor<4xi64>
  return %m : tensor<4xi1>
}

// -----

// Half-precision compares need no widening: the comparison is exact.
// CHECK-LABEL: func.func @lt_f16(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: i1):
// CHECK-NEXT:      %[[V:.+]] = arith.cmpf olt, %[[A]], %[[B]] : f16
// CHECK-NEXT:      linalg.yield %[[V]] : i1
func.func @lt_f16(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xi1> {
  %m = nn.compare lt, %x, %y : tensor<4xf16>, tensor<4xf16>
  return %m : tensor<4xi1>
}

// -----

// nn.where is a select; the condition is the first operand.
// CHECK-LABEL: func.func @where(
// CHECK-SAME:    %[[C:[^:]+]]: tensor<2x3xi1>, %[[T:[^:]+]]: tensor<2x3xf32>, %[[F:[^:]+]]: tensor<2x3xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[C]], %[[T]], %[[F]] : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[CI:.+]]: i1, %[[TI:.+]]: f32, %[[FI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[V:.+]] = arith.select %[[CI]], %[[TI]], %[[FI]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @where(%c: tensor<2x3xi1>, %t: tensor<2x3xf32>, %f: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = nn.where %c, %t, %f : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Selecting between i1 tensors, the causal-mask pattern: compare feeding where.
// CHECK-LABEL: func.func @mask(
// CHECK:         %[[M:.+]] = linalg.generic
// CHECK:           arith.cmpi sgt
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[M]], %{{.+}}, %{{.+}} : tensor<4x4xi1>, tensor<i1>, tensor<4x4xi1>)
// CHECK-NEXT:    ^bb0(%[[CI:.+]]: i1, %[[TI:.+]]: i1, %[[FI:.+]]: i1, %{{.+}}: i1):
// CHECK-NEXT:      arith.select %[[CI]], %[[TI]], %[[FI]] : i1
func.func @mask(%i: tensor<4x4xi32>, %j: tensor<4x4xi32>, %t: tensor<i1>, %f: tensor<4x4xi1>) -> tensor<4x4xi1> {
  %m = nn.compare gt, %i, %j : tensor<4x4xi32>, tensor<4x4xi32>
  %y = nn.where %m, %t, %f : tensor<4x4xi1>, tensor<i1>, tensor<4x4xi1>
  return %y : tensor<4x4xi1>
}
