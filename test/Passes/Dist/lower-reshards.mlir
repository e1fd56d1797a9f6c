// RUN: loom-opt %s -dist-lower-reshards -split-input-file -verify-diagnostics | FileCheck %s

// Per-device reshards (in dist.spmd functions, as -dist-partition leaves
// them) become collectives. The mesh has dp = 2 and tp = 4; the global
// tensors are 8x32 unless said otherwise.

// partial -> replicated: an all-reduce over the partial axes.
// CHECK-LABEL: func.func @partial_to_replicated
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce sum %arg0 over @m ["tp"] : tensor<8x32xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @partial_to_replicated(%x: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}, {}], partial = {"tp"}> -> <@m, [{}, {}]> : tensor<8x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// partial -> split along a dimension by the same axis: a reduce-scatter
// (also next to an axis the dimension keeps).
// CHECK-LABEL: func.func @partial_to_split
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter sum %arg0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @partial_to_split_kept_axis
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter sum %arg0 over @m ["tp"] dim = 0 : tensor<4x32xf32> -> tensor<1x32xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @partial_to_split(%x: tensor<8x32xf32>) -> tensor<8x8xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}, {}], partial = {"tp"}> -> <@m, [{}, {"tp"}]> : tensor<8x32xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
func.func @partial_to_split_kept_axis(%x: tensor<4x32xf32>) -> tensor<1x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{"dp"}, {}], partial = {"tp"}> -> <@m, [{"dp", "tp"}, {}]> : tensor<4x32xf32> -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

// split -> replicated: an all-gather.
// CHECK-LABEL: func.func @split_to_replicated
// CHECK-NEXT: %[[R:.*]] = dist.all_gather %arg0 over @m ["tp"] dim = 1 : tensor<4x8xf32> -> tensor<4x32xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @split_to_replicated(%x: tensor<4x8xf32>) -> tensor<4x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{"dp"}, {"tp"}]> -> <@m, [{"dp"}, {}]> : tensor<4x8xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// replicated -> split: take_shard, no communication.
// CHECK-LABEL: func.func @replicated_to_split
// CHECK-NEXT: %[[R:.*]] = dist.take_shard %arg0 over @m ["tp"] dim = 1 : tensor<8x32xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @replicated_to_split(%x: tensor<8x32xf32>) -> tensor<8x8xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}, {}]> -> <@m, [{}, {"tp"}]> : tensor<8x32xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// An axis moving from one dimension to another: an all-to-all, also when
// the receiving dimension keeps an axis it had.
// CHECK-LABEL: func.func @move_axis
// CHECK-NEXT: %[[R:.*]] = dist.all_to_all %arg0 over @m ["tp"] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<2x32xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @move_axis_next_to_kept
// CHECK-NEXT: %[[R:.*]] = dist.all_to_all %arg0 over @m ["tp"] split_dim = 0 concat_dim = 1 : tensor<4x8xf32> -> tensor<1x32xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @move_axis(%x: tensor<8x8xf32>) -> tensor<2x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}, {"tp"}]> -> <@m, [{"tp"}, {}]> : tensor<8x8xf32> -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}
func.func @move_axis_next_to_kept(%x: tensor<4x8xf32>) -> tensor<1x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{"dp"}, {"tp"}]> -> <@m, [{"dp", "tp"}, {}]> : tensor<4x8xf32> -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

// Two axes on one dimension: gathered minor axis first, then the major
// one; taken in one step, major to minor.
// CHECK-LABEL: func.func @two_axes_gathered
// CHECK-NEXT: %[[G1:.*]] = dist.all_gather %arg0 over @m ["tp"] dim = 0 : tensor<1x32xf32> -> tensor<4x32xf32>
// CHECK-NEXT: %[[G2:.*]] = dist.all_gather %[[G1]] over @m ["dp"] dim = 0 : tensor<4x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: return %[[G2]]
// CHECK-LABEL: func.func @two_axes_taken
// CHECK-NEXT: %[[T:.*]] = dist.take_shard %arg0 over @m ["dp", "tp"] dim = 0 : tensor<8x32xf32> -> tensor<1x32xf32>
// CHECK-NEXT: return %[[T]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @two_axes_gathered(%x: tensor<1x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{"dp", "tp"}, {}]> -> <@m, [{}, {}]> : tensor<1x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
func.func @two_axes_taken(%x: tensor<8x32xf32>) -> tensor<1x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}, {}]> -> <@m, [{"dp", "tp"}, {}]> : tensor<8x32xf32> -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

// Swapping the axes of two dimensions: gather dp, move tp, take dp.
// CHECK-LABEL: func.func @swap_axes
// CHECK-NEXT: %[[G:.*]] = dist.all_gather %arg0 over @m ["dp"] dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[A:.*]] = dist.all_to_all %[[G]] over @m ["tp"] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<2x32xf32>
// CHECK-NEXT: %[[T:.*]] = dist.take_shard %[[A]] over @m ["dp"] dim = 1 : tensor<2x32xf32> -> tensor<2x16xf32>
// CHECK-NEXT: return %[[T]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @swap_axes(%x: tensor<4x8xf32>) -> tensor<2x16xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{"dp"}, {"tp"}]> -> <@m, [{"tp"}, {"dp"}]> : tensor<4x8xf32> -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// Partial kinds carry to the collective: a mean over two axes, a max
// scattered; a partial axis the target keeps is left alone.
// CHECK-LABEL: func.func @partial_mean
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce mean %arg0 over @m ["dp", "tp"] : tensor<8xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @partial_max_scattered
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter max %arg0 over @m ["dp"] dim = 0 : tensor<8xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @partial_axis_kept
// CHECK-NEXT: %[[R:.*]] = dist.reduce_scatter sum %arg0 over @m ["dp"] dim = 0 : tensor<8x32xf32> -> tensor<4x32xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @partial_mean(%x: tensor<8xf32>) -> tensor<8xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}], partial<mean> = {"dp", "tp"}> -> <@m, [{}]> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func @partial_max_scattered(%x: tensor<8xf32>) -> tensor<4xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}], partial<max> = {"dp"}> -> <@m, [{"dp"}]> : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @partial_axis_kept(%x: tensor<8x32xf32>) -> tensor<4x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}, {}], partial = {"dp", "tp"}> -> <@m, [{"dp"}, {}], partial = {"tp"}> : tensor<8x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// A partial axis that does not split the target next: all-reduce, then
// the gained axis is taken.
// CHECK-LABEL: func.func @partial_then_other_split
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce sum %arg0 over @m ["tp"] : tensor<8x32xf32>
// CHECK-NEXT: %[[T:.*]] = dist.take_shard %[[R]] over @m ["dp"] dim = 0 : tensor<8x32xf32> -> tensor<4x32xf32>
// CHECK-NEXT: return %[[T]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @partial_then_other_split(%x: tensor<8x32xf32>) -> tensor<4x32xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{}, {}], partial = {"tp"}> -> <@m, [{"dp"}, {}]> : tensor<8x32xf32> -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// Reshards are lowered only in partitioned functions.
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @global(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-error@+1 {{reshards are lowered after -dist-partition}}
  %0 = dist.reshard %x <@m, [{}, {}], partial = {"tp"}> -> <@m, [{}, {}]> : tensor<8x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
