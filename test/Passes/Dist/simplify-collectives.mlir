// RUN: loom-opt %s -dist-simplify-collectives -split-input-file | FileCheck %s

// Each rewrite of -dist-simplify-collectives, and what it must leave alone.
// The checks follow the value returned; that the replaced collectives also
// disappear is checked by simplify-collectives-dead.mlir.

// Collectives over a group of one device are removed, all kinds.
// CHECK-LABEL: func.func @group_of_one
// CHECK-NEXT: return %arg0
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>, <"one" = 1, intra_node>]
func.func @group_of_one(%x: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["one"] : tensor<8x32xf32>
  %1 = dist.all_gather %0 over @m ["one"] dim = 0 : tensor<8x32xf32> -> tensor<8x32xf32>
  %2 = dist.take_shard %1 over @m ["one"] dim = 1 : tensor<8x32xf32> -> tensor<8x32xf32>
  %3 = dist.reduce_scatter sum %2 over @m ["one"] dim = 1 : tensor<8x32xf32> -> tensor<8x32xf32>
  %4 = dist.all_to_all %3 over @m ["one"] split_dim = 0 concat_dim = 1 : tensor<8x32xf32> -> tensor<8x32xf32>
  %5 = dist.broadcast %4 over @m ["one"] root = [0] : tensor<8x32xf32>
  return %5 : tensor<8x32xf32>
}

// -----

// all_gather then take_shard of the same block cancel, and the reverse.
// CHECK-LABEL: func.func @gather_then_take
// CHECK-NOT: dist.take_shard
// CHECK: return %arg0 : tensor<8x8xf32>
// CHECK-LABEL: func.func @take_then_gather
// CHECK-NEXT: return %arg0 : tensor<8x32xf32>
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @gather_then_take(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
func.func @take_then_gather(%x: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.take_shard %x over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  %1 = dist.all_gather %0 over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// -----

// all_reduce then take_shard over the same axes: a reduce_scatter of the
// all_reduce's input.
// CHECK-LABEL: func.func @reduce_then_take
// CHECK: %[[R:.*]] = dist.reduce_scatter sum %arg0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @reduce_then_take(%x: tensor<8x32xf32>) -> tensor<8x8xf32> attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// all_gather along one dimension then take_shard along another over the
// same axes: an all_to_all.
// CHECK-LABEL: func.func @gather_then_take_other_dim
// CHECK: %[[R:.*]] = dist.all_to_all %arg0 over @m ["tp"] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<2x32xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @gather_then_take_other_dim(%x: tensor<8x8xf32>) -> tensor<2x32xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 0 : tensor<8x32xf32> -> tensor<2x32xf32>
  return %1 : tensor<2x32xf32>
}

// -----

// Consecutive all_reduces of one kind merge over both groups; consecutive
// all_gathers (minor axis first) and take_shards (major first) of one
// dimension merge over both axes, major to minor.
// CHECK-LABEL: func.func @merge_all_reduces
// CHECK: %[[R:.*]] = dist.all_reduce sum %arg0 over @m ["tp", "dp"] : tensor<8x32xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @merge_all_gathers
// CHECK: %[[R:.*]] = dist.all_gather %arg0 over @m ["dp", "tp"] dim = 0 : tensor<1x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @merge_take_shards
// CHECK-NEXT: %[[R:.*]] = dist.take_shard %arg0 over @m ["dp", "tp"] dim = 0 : tensor<8x32xf32> -> tensor<1x32xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @merge_all_reduces(%x: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x32xf32>
  %1 = dist.all_reduce sum %0 over @m ["dp"] : tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}
func.func @merge_all_gathers(%x: tensor<1x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 0 : tensor<1x32xf32> -> tensor<4x32xf32>
  %1 = dist.all_gather %0 over @m ["dp"] dim = 0 : tensor<4x32xf32> -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}
func.func @merge_take_shards(%x: tensor<8x32xf32>) -> tensor<1x32xf32> attributes {dist.spmd} {
  %0 = dist.take_shard %x over @m ["dp"] dim = 0 : tensor<8x32xf32> -> tensor<4x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 0 : tensor<4x32xf32> -> tensor<1x32xf32>
  return %1 : tensor<1x32xf32>
}

// -----

// Negative cases: nothing changes.
// - gather and take over different axes of one dimension;
// CHECK-LABEL: func.func @different_axes
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %arg0 over @m ["tp"] dim = 1
// CHECK-NEXT: %[[T:.*]] = dist.take_shard %[[G]] over @m ["dp"] dim = 1
// CHECK-NEXT: return %[[T]]
// - all_reduce then take_shard over different axes;
// CHECK-LABEL: func.func @reduce_take_different_axes
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce sum %arg0 over @m ["tp"]
// CHECK-NEXT: %[[T:.*]] = dist.take_shard %[[R]] over @m ["dp"] dim = 0
// CHECK-NEXT: return %[[T]]
// - gathers along different dimensions;
// CHECK-LABEL: func.func @gathers_different_dims
// CHECK-NEXT: %[[G1:.*]] = dist.all_gather %arg0 over @m ["tp"] dim = 0
// CHECK-NEXT: %[[G2:.*]] = dist.all_gather %[[G1]] over @m ["dp"] dim = 1
// CHECK-NEXT: return %[[G2]]
// - take_shards along different dimensions;
// CHECK-LABEL: func.func @takes_different_dims
// CHECK-NEXT: %[[T1:.*]] = dist.take_shard %arg0 over @m ["dp"] dim = 0
// CHECK-NEXT: %[[T2:.*]] = dist.take_shard %[[T1]] over @m ["tp"] dim = 1
// CHECK-NEXT: return %[[T2]]
// - all_reduces of different kinds;
// CHECK-LABEL: func.func @reduces_different_kinds
// CHECK-NEXT: %[[R1:.*]] = dist.all_reduce sum %arg0 over @m ["tp"]
// CHECK-NEXT: %[[R2:.*]] = dist.all_reduce max %[[R1]] over @m ["dp"]
// CHECK-NEXT: return %[[R2]]
// - an all_reduce with two uses does not become a reduce_scatter, nor do
//   two all_reduces merge when the first has another use;
// CHECK-LABEL: func.func @reduce_two_uses
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce sum %arg0 over @m ["tp"]
// CHECK-NEXT: %[[T:.*]] = dist.take_shard %[[R]] over @m ["tp"] dim = 1
// CHECK-NEXT: %[[R2:.*]] = dist.all_reduce sum %[[R]] over @m ["dp"]
// CHECK-NEXT: return %[[R]], %[[T]], %[[R2]]
// - an all_gather with two uses does not become an all_to_all.
// CHECK-LABEL: func.func @gather_two_uses
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %arg0 over @m ["tp"] dim = 1
// CHECK-NEXT: %[[T:.*]] = dist.take_shard %[[G]] over @m ["tp"] dim = 0
// CHECK-NEXT: return %[[G]], %[[T]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @different_axes(%x: tensor<8x8xf32>) -> tensor<8x16xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["dp"] dim = 1 : tensor<8x32xf32> -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
func.func @reduce_take_different_axes(%x: tensor<8x32xf32>) -> tensor<4x32xf32> attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["dp"] dim = 0 : tensor<8x32xf32> -> tensor<4x32xf32>
  return %1 : tensor<4x32xf32>
}
func.func @gathers_different_dims(%x: tensor<2x16xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 0 : tensor<2x16xf32> -> tensor<8x16xf32>
  %1 = dist.all_gather %0 over @m ["dp"] dim = 1 : tensor<8x16xf32> -> tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}
func.func @takes_different_dims(%x: tensor<8x32xf32>) -> tensor<4x8xf32> attributes {dist.spmd} {
  %0 = dist.take_shard %x over @m ["dp"] dim = 0 : tensor<8x32xf32> -> tensor<4x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 1 : tensor<4x32xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
func.func @reduces_different_kinds(%x: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x32xf32>
  %1 = dist.all_reduce max %0 over @m ["dp"] : tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}
func.func @reduce_two_uses(%x: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x8xf32>, tensor<8x32xf32>) attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  %2 = dist.all_reduce sum %0 over @m ["dp"] : tensor<8x32xf32>
  return %0, %1, %2 : tensor<8x32xf32>, tensor<8x8xf32>, tensor<8x32xf32>
}
func.func @gather_two_uses(%x: tensor<8x8xf32>) -> (tensor<8x32xf32>, tensor<2x32xf32>) attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 0 : tensor<8x32xf32> -> tensor<2x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<2x32xf32>
}
