// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// An edge pad of a tensor that is empty along another dimension is valid
// nn (the verifier only rejects edge-padding the empty dimension itself);
// its result is empty and it lowers to an empty tensor.

// CHECK-LABEL: func.func @edge_other_dim_empty(
// CHECK-NOT:     nn.pad
// CHECK:         return %{{.+}} : tensor<0x6xf32>
func.func @edge_other_dim_empty(%x: tensor<0x4xf32>) -> tensor<0x6xf32> {
  %y = nn.pad %x low = [0, 1] high = [0, 1] mode = edge : tensor<0x4xf32> -> tensor<0x6xf32>
  return %y : tensor<0x6xf32>
}
