// RUN: loom-opt %s -dist-simplify-collectives | FileCheck %s
// Bug: the rewrites that consume a collective (all_gather + take_shard,
// all_reduce + take_shard, all_gather + take_shard along another
// dimension, all_reduce + all_reduce, all_gather + all_gather) replace the
// second op but leave the first one in place without uses. Collectives are
// not Pure (and declare no memory effects), so neither the greedy driver
// nor a later -canonicalize erases them: the device program still runs the
// collective that was "merged" or "cancelled", e.g. two all_reduces
// instead of one.

// CHECK-LABEL: func.func @gather_then_take
// CHECK-NEXT: return %arg0
// CHECK-LABEL: func.func @reduce_then_take
// CHECK-NEXT: dist.reduce_scatter sum %arg0 over @m ["tp"] dim = 1
// CHECK-NEXT: return
// CHECK-LABEL: func.func @gather_then_take_other_dim
// CHECK-NEXT: dist.all_to_all %arg0 over @m ["tp"] split_dim = 0 concat_dim = 1
// CHECK-NEXT: return
// CHECK-LABEL: func.func @merge_all_reduces
// CHECK-NEXT: dist.all_reduce sum %arg0 over @m ["tp", "dp"]
// CHECK-NEXT: return
// CHECK-LABEL: func.func @merge_all_gathers
// CHECK-NEXT: dist.all_gather %arg0 over @m ["dp", "tp"] dim = 0
// CHECK-NEXT: return
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @gather_then_take(%x: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
func.func @reduce_then_take(%x: tensor<8x32xf32>) -> tensor<8x8xf32> attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
func.func @gather_then_take_other_dim(%x: tensor<8x8xf32>) -> tensor<2x32xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x32xf32>
  %1 = dist.take_shard %0 over @m ["tp"] dim = 0 : tensor<8x32xf32> -> tensor<2x32xf32>
  return %1 : tensor<2x32xf32>
}
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
