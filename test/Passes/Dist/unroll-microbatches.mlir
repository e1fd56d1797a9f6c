// RUN: loom-opt %s -dist-unroll-microbatches | FileCheck %s

// Two microbatches of two inputs: the views of every input first (rows k,
// k + 2, ...), then the body once per microbatch, each result summed in
// microbatch order; values from above are shared.
// CHECK-LABEL: func.func @two
// CHECK-SAME: (%[[X:.*]]: tensor<8x3xf32>, %[[Y:.*]]: tensor<8xi64>, %[[W:.*]]: tensor<3x2xf32>)
// CHECK: %[[RX:.*]] = nn.reshape %[[X]] [4, 2, 3] : tensor<8x3xf32> -> tensor<4x2x3xf32>
// CHECK: %[[S0:.*]] = nn.slice %[[RX]] offsets = [0, 0, 0] sizes = [4, 1, 3] strides = [1, 1, 1]
// CHECK: %[[X0:.*]] = nn.reshape %[[S0]] [4, 3] : tensor<4x1x3xf32> -> tensor<4x3xf32>
// CHECK: %[[S1:.*]] = nn.slice %[[RX]] offsets = [0, 1, 0] sizes = [4, 1, 3] strides = [1, 1, 1]
// CHECK: %[[X1:.*]] = nn.reshape %[[S1]] [4, 3] : tensor<4x1x3xf32> -> tensor<4x3xf32>
// CHECK: %[[RY:.*]] = nn.reshape %[[Y]] [4, 2] : tensor<8xi64> -> tensor<4x2xi64>
// CHECK: nn.slice %[[RY]] offsets = [0, 0] sizes = [4, 1]
// CHECK: nn.slice %[[RY]] offsets = [0, 1] sizes = [4, 1]
// CHECK: %[[H0:.*]] = nn.matmul %[[X0]], %[[W]]
// CHECK: %[[L0:.*]] = nn.reduce_sum %[[H0]]
// CHECK: %[[H1:.*]] = nn.matmul %[[X1]], %[[W]]
// CHECK: %[[L1:.*]] = nn.reduce_sum %[[H1]]
// CHECK: %[[H:.*]] = nn.add %[[H0]], %[[H1]]
// CHECK: %[[L:.*]] = nn.add %[[L0]], %[[L1]]
// CHECK-NOT: dist.microbatches
// CHECK: return %[[H]], %[[L]]
func.func @two(%x: tensor<8x3xf32>, %y: tensor<8xi64>, %w: tensor<3x2xf32>) -> (tensor<4x2xf32>, tensor<f32>) {
  %h, %l = dist.microbatches 2 (%xk = %x, %yk = %y) : (tensor<8x3xf32>, tensor<8xi64>) -> (tensor<4x2xf32>, tensor<f32>) {
    %0 = nn.matmul %xk, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
    %1 = nn.reduce_sum %0 axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
    dist.yield %0, %1 : tensor<4x2xf32>, tensor<f32>
  }
  return %h, %l : tensor<4x2xf32>, tensor<f32>
}

// Three microbatches: ((y0 + y1) + y2), each sum right after its
// microbatch.
// CHECK-LABEL: func.func @three
// CHECK: %[[A:.*]] = nn.mul
// CHECK: %[[B:.*]] = nn.mul
// CHECK: %[[AB:.*]] = nn.add %[[A]], %[[B]]
// CHECK: %[[C:.*]] = nn.mul
// CHECK: %[[ABC:.*]] = nn.add %[[AB]], %[[C]]
// CHECK: return %[[ABC]]
func.func @three(%x: tensor<6xf32>) -> tensor<2xf32> {
  %s = dist.microbatches 3 (%xk = %x) : (tensor<6xf32>) -> (tensor<2xf32>) {
    %0 = nn.mul %xk, %xk : tensor<2xf32>, tensor<2xf32>
    dist.yield %0 : tensor<2xf32>
  }
  return %s : tensor<2xf32>
}
