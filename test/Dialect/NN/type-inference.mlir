// RUN: loom-opt %s -mlir-print-op-generic | FileCheck %s

// Ops whose custom form omits the result type infer it while parsing; the
// generic form shows what they inferred.

// CHECK-LABEL: sym_name = "broadcasting"
func.func @broadcasting(%a: tensor<2x1x8xf32>, %b: tensor<5x1xf32>, %s: tensor<f32>, %d: tensor<?x1xf32>,
                        %m: tensor<5x8xi1>, %i: tensor<3x1xi64>, %j: tensor<4xi64>) {
  // CHECK: "nn.add"{{.*}} -> tensor<2x5x8xf32>
  %0 = nn.add %a, %b : tensor<2x1x8xf32>, tensor<5x1xf32>
  // CHECK: "nn.mul"{{.*}} -> tensor<2x1x8xf32>
  %1 = nn.mul %a, %s : tensor<2x1x8xf32>, tensor<f32>
  // A dynamic dimension against 1 stays dynamic; against 8 it is 8.
  // CHECK: "nn.sub"{{.*}} -> tensor<2x?x8xf32>
  %2 = nn.sub %a, %d : tensor<2x1x8xf32>, tensor<?x1xf32>
  // CHECK: "nn.compare"{{.*}} -> tensor<3x4xi1>
  %3 = nn.compare le, %i, %j : tensor<3x1xi64>, tensor<4xi64>
  // CHECK: "nn.where"{{.*}} -> tensor<2x5x8xf32>
  %4 = nn.where %m, %a, %s : tensor<5x8xi1>, tensor<2x1x8xf32>, tensor<f32>
  // CHECK: "nn.cast"{{.*}} -> tensor<3x1xf16>
  %5 = nn.cast %i : tensor<3x1xi64> to f16
  // CHECK: "nn.layer_norm"{{.*}} -> tensor<2x1x8xf32>
  %6 = nn.layer_norm %a axis = 2 : tensor<2x1x8xf32>
  // CHECK: "nn.constant"{{.*}} -> tensor<2x2xi32>
  %7 = nn.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK: "nn.batch_norm"{{.*}} -> tensor<2x1x8xf32>
  %c = nn.constant dense<1.0> : tensor<1xf32>
  %8 = nn.batch_norm %a, %c, %c, %c, %c : tensor<2x1x8xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
  return
}

// Ops that print their result type verify it against inference, so these
// parse only if inference agrees.
// CHECK-LABEL: sym_name = "window_arithmetic"
func.func @window_arithmetic(%x: tensor<1x3x7x7xf32>, %w: tensor<8x3x3x3xf32>) {
  // (7 + 2 - 2*(3-1) - 1) / 2 + 1 = 3
  // CHECK: "nn.conv2d"{{.*}} -> tensor<1x8x3x3xf32>
  %0 = nn.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 2, 2>}
      : tensor<1x3x7x7xf32>, tensor<8x3x3x3xf32> -> tensor<1x8x3x3xf32>
  // floor((7 - 2) / 2) + 1 = 3; with ceil_mode 4.
  // CHECK: "nn.max_pool"{{.*}} -> tensor<1x3x3x3xf32>
  %1 = nn.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x7x7xf32> -> tensor<1x3x3x3xf32>
  // CHECK: "nn.max_pool"{{.*}} -> tensor<1x3x4x4xf32>
  %2 = nn.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = true} : tensor<1x3x7x7xf32> -> tensor<1x3x4x4xf32>
  // ceil_mode drops a last window that would start in the right padding:
  // ceil((6 + 1 - 3) / 3) + 1 = 3, but window 3 starts at 6 >= 6 + 0, so 2.
  %y = nn.constant dense<0.0> : tensor<1x1x6x6xf32>
  // CHECK: "nn.avg_pool"{{.*}} -> tensor<1x1x2x2xf32>
  %3 = nn.avg_pool %y {kernel = array<i64: 3, 3>, strides = array<i64: 3, 3>, padding = array<i64: 0, 0, 1, 1>, ceil_mode = true} : tensor<1x1x6x6xf32> -> tensor<1x1x2x2xf32>
  // Per spatial dimension, padding being [begins..., ends...]:
  // (5 - 2*(2-1) - 1) / 1 + 1 = 3, (4 + 1 - 2) / 2 + 1 = 2 and
  // (4 + 1 - 3) / 1 + 1 = 3.
  %v = nn.constant dense<0.0> : tensor<1x1x5x4x4xf32>
  // CHECK: "nn.max_pool"{{.*}} -> tensor<1x1x3x2x3xf32>
  %4 = nn.max_pool %v {kernel = array<i64: 2, 2, 3>, strides = array<i64: 1, 2, 1>, dilations = array<i64: 2, 1, 1>, padding = array<i64: 0, 1, 0, 0, 0, 1>} : tensor<1x1x5x4x4xf32> -> tensor<1x1x3x2x3xf32>
  return
}

// CHECK-LABEL: sym_name = "shapes"
func.func @shapes(%a: tensor<2x3x4xf32>, %b: tensor<5x3x4x8xf32>, %idx: tensor<2x2xi32>) {
  // Batch dimensions broadcast, with different ranks.
  // CHECK: "nn.matmul"{{.*}} -> tensor<5x2x3x8xf32>
  %c = nn.constant dense<0.0> : tensor<2x4x8xf32>
  %d = nn.unsqueeze %c axes = [0] : tensor<2x4x8xf32> -> tensor<1x2x4x8xf32>
  %e = nn.broadcast_to %d [5, 2, 4, 8] : tensor<1x2x4x8xf32> -> tensor<5x2x4x8xf32>
  %0 = nn.matmul %a, %e : tensor<2x3x4xf32>, tensor<5x2x4x8xf32> -> tensor<5x2x3x8xf32>
  // Gather along a middle axis with 2-D indices.
  // CHECK: "nn.gather"{{.*}} -> tensor<5x2x2x4x8xf32>
  %1 = nn.gather %b[%idx] axis = 1 : tensor<5x3x4x8xf32>, tensor<2x2xi32> -> tensor<5x2x2x4x8xf32>
  // Reductions with and without kept dimensions.
  // CHECK: "nn.reduce_sum"{{.*}} -> tensor<5x1x1x8xf32>
  %2 = nn.reduce_sum %b axes = [1, 2] {keepdims = true} : tensor<5x3x4x8xf32> -> tensor<5x1x1x8xf32>
  // CHECK: "nn.reduce_max"{{.*}} -> tensor<5x8xf32>
  %3 = nn.reduce_max %b axes = [1, 2] : tensor<5x3x4x8xf32> -> tensor<5x8xf32>
  // A negative-step slice reads backwards.
  // CHECK: "nn.slice"{{.*}} -> tensor<2x3x2xf32>
  %4 = nn.slice %a offsets = [0, 2, 3] sizes = [2, 3, 2] strides = [1, -1, -3] : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  // Ranges of every sign and an empty one.
  // CHECK: "nn.range"{{.*}} -> tensor<0xi64>
  %5 = nn.range 3 to 3 step 1 -> tensor<0xi64>
  // CHECK: "nn.range"{{.*}} -> tensor<4xi32>
  %6 = nn.range 10 to 0 step -3 -> tensor<4xi32>
  // CHECK: "nn.range"{{.*}} -> tensor<3xf64>
  %7 = nn.range 0.0 to 1.0 step 0.4 -> tensor<3xf64>
  return
}
