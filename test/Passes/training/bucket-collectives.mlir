// RUN: loom-opt %s -dist-bucket-collectives -split-input-file | FileCheck %s
// RUN: loom-opt %s -dist-bucket-collectives=bucket-bytes=100 -split-input-file | FileCheck %s --check-prefix=SMALL

dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 2, intra_node>]

// Gradients reduced one by one, with their uses in between: one bucket; the
// uses move after it. The max reduction and the other group stay apart.
// CHECK-LABEL: func.func @grads
// CHECK: %[[A:.*]] = nn.reshape %arg0 [1, 32] : tensor<4x8xf32> -> tensor<1x32xf32>
// CHECK: %[[B:.*]] = nn.reshape %arg1 [1, 8] : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[P:.*]] = nn.concat %[[A]], %[[B]] axis = 1
// CHECK: %[[F:.*]] = nn.reshape %[[P]] [40]
// CHECK: %[[R:.*]] = dist.all_reduce sum %[[F]] over @m ["dp"] : tensor<40xf32>
// CHECK: %[[G:.*]] = nn.reshape %[[R]] [1, 40]
// CHECK: %[[S0:.*]] = nn.slice %[[G]] offsets = [0, 0] sizes = [1, 32]
// CHECK: %[[G0:.*]] = nn.reshape %[[S0]] [4, 8]
// CHECK: %[[S1:.*]] = nn.slice %[[G]] offsets = [0, 32] sizes = [1, 8]
// CHECK: nn.reshape %[[S1]] [8]
// CHECK: nn.mul %[[G0]], %[[G0]]
// CHECK: dist.all_reduce max
// CHECK: dist.all_reduce sum %{{.*}} over @m ["tp"]
// SMALL-LABEL: func.func @grads
// SMALL-COUNT-2: dist.all_reduce sum %{{.*}} over @m ["dp"]
func.func @grads(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>, %d: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = dist.all_reduce sum %a over @m ["dp"] : tensor<4x8xf32>
  %1 = nn.mul %0, %0 : tensor<4x8xf32>, tensor<4x8xf32>
  %2 = dist.all_reduce sum %b over @m ["dp"] : tensor<8xf32>
  %3 = dist.all_reduce max %c over @m ["dp"] : tensor<8xf32>
  %4 = dist.all_reduce sum %d over @m ["tp"] : tensor<8xf32>
  return %1, %2, %3, %4 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

dist.mesh @m axes [<"dp" = 2, intra_node>]

// A reduce whose input needs an earlier one's result cannot join it.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-2: dist.all_reduce sum
// CHECK-NOT: nn.concat
func.func @chain(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = dist.all_reduce sum %a over @m ["dp"] : tensor<8xf32>
  %1 = nn.mul %0, %0 : tensor<8xf32>, tensor<8xf32>
  %2 = dist.all_reduce sum %1 over @m ["dp"] : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

dist.mesh @m axes [<"dp" = 2, intra_node>]

// ZeRO's collectives: reduce-scatters of gradients go in one call (each
// input split into its 2 blocks, the blocks of all members concatenated
// per device), all-gathers of updated parameters in another (each device's
// blocks concatenated, the gathered rows sliced back apart). An interleaved
// all_reduce has its own bucket. A gather along an inner dimension is left
// alone.
// CHECK-LABEL: func.func @zero
// CHECK: %[[X:.*]] = nn.reshape %arg0 [2, 32] : tensor<8x8xf32> -> tensor<2x32xf32>
// CHECK: %[[Y:.*]] = nn.reshape %arg1 [2, 3] : tensor<1x6xf32> -> tensor<2x3xf32>
// CHECK: %[[XY:.*]] = nn.concat %[[X]], %[[Y]] axis = 1 : tensor<2x32xf32>, tensor<2x3xf32> -> tensor<2x35xf32>
// CHECK: %[[F:.*]] = nn.reshape %[[XY]] [70]
// CHECK: %[[RS:.*]] = dist.reduce_scatter sum %[[F]] over @m ["dp"] dim = 0 : tensor<70xf32> -> tensor<35xf32>
// CHECK: nn.slice %{{.*}} offsets = [0, 0] sizes = [1, 32]
// CHECK: nn.reshape %{{.*}} [4, 8] : tensor<1x32xf32> -> tensor<4x8xf32>
// CHECK: nn.slice %{{.*}} offsets = [0, 32] sizes = [1, 3]
// CHECK: nn.reshape %{{.*}} [1, 3] : tensor<1x3xf32> -> tensor<1x3xf32>
// CHECK: dist.all_reduce sum %{{.*}} : tensor<f32>
// CHECK: %[[AG:.*]] = dist.all_gather %{{.*}} over @m ["dp"] dim = 0 : tensor<35xf32> -> tensor<70xf32>
// CHECK: %[[GRID:.*]] = nn.reshape %[[AG]] [2, 35]
// CHECK: nn.slice %[[GRID]] offsets = [0, 0] sizes = [2, 32]
// CHECK: nn.reshape %{{.*}} [8, 8] : tensor<2x32xf32> -> tensor<8x8xf32>
// CHECK: nn.slice %[[GRID]] offsets = [0, 32] sizes = [2, 3]
// CHECK: nn.reshape %{{.*}} [1, 6] : tensor<2x3xf32> -> tensor<1x6xf32>
// CHECK: dist.all_gather %{{.*}} dim = 1 : tensor<4x2xf32> -> tensor<4x4xf32>
func.func @zero(%gw: tensor<8x8xf32>, %gb: tensor<1x6xf32>, %s: tensor<f32>, %c: tensor<4x2xf32>) -> (tensor<8x8xf32>, tensor<1x6xf32>, tensor<f32>, tensor<4x4xf32>) {
  %0 = dist.reduce_scatter sum %gw over @m ["dp"] dim = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = dist.reduce_scatter sum %gb over @m ["dp"] dim = 1 : tensor<1x6xf32> -> tensor<1x3xf32>
  %2 = dist.all_reduce sum %s over @m ["dp"] : tensor<f32>
  %3 = nn.mul %0, %0 : tensor<4x8xf32>, tensor<4x8xf32>
  %4 = nn.mul %1, %1 : tensor<1x3xf32>, tensor<1x3xf32>
  %5 = dist.all_gather %3 over @m ["dp"] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %6 = dist.all_gather %4 over @m ["dp"] dim = 1 : tensor<1x3xf32> -> tensor<1x6xf32>
  %7 = dist.all_gather %c over @m ["dp"] dim = 1 : tensor<4x2xf32> -> tensor<4x4xf32>
  return %5, %6, %2, %7 : tensor<8x8xf32>, tensor<1x6xf32>, tensor<f32>, tensor<4x4xf32>
}
