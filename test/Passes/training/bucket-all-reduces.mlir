// RUN: loom-opt %s -dist-bucket-all-reduces -split-input-file | FileCheck %s
// RUN: loom-opt %s -dist-bucket-all-reduces=bucket-bytes=100 -split-input-file | FileCheck %s --check-prefix=SMALL

dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 2, intra_node>]

// Gradients reduced one by one, with their uses in between: one bucket; the
// uses move after it. The max reduction and the other group stay apart.
// CHECK-LABEL: func.func @grads
// CHECK: %[[A:.*]] = nn.reshape %arg0 [32] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK: %[[B:.*]] = nn.reshape %arg1 [8] : tensor<8xf32> -> tensor<8xf32>
// CHECK: %[[P:.*]] = nn.concat %[[A]], %[[B]] axis = 0
// CHECK: %[[R:.*]] = dist.all_reduce sum %[[P]] over @m ["dp"] : tensor<40xf32>
// CHECK: %[[S0:.*]] = nn.slice %[[R]] offsets = [0] sizes = [32]
// CHECK: %[[G0:.*]] = nn.reshape %[[S0]] [4, 8]
// CHECK: %[[S1:.*]] = nn.slice %[[R]] offsets = [32] sizes = [8]
// CHECK: %[[G1:.*]] = nn.reshape %[[S1]] [8]
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
