// RUN: loom-opt %s -loom-copy-aliased-results -split-input-file | FileCheck %s

// A returned argument and a value returned twice each get a copy of their
// own; the first return of a computed value keeps it.
// CHECK-LABEL: func.func @aliased(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>
// CHECK:         %[[Y:.*]] = math.exp %[[X]]
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[C1:.*]] = linalg.copy ins(%[[X]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK:         %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[C2:.*]] = linalg.copy ins(%[[Y]] : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK:         return %[[C1]], %[[Y]], %[[C2]]
func.func @aliased(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y = math.exp %x : tensor<4xf32>
  return %x, %y, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Private functions are the program's own: left alone.
// CHECK-LABEL: func.func private @helper(
// CHECK-NOT:     linalg.copy
// CHECK:         return %arg0
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
