// RUN: loom-opt %s -dist-propagate-sharding -split-input-file -verify-diagnostics | FileCheck %s
// Bug: when a reshape merges dimensions, propagation writes the axes of a
// minor factor onto the merged dimension although the major factor before
// it is not used up. By the convention of Sharding.h ("the first axes split
// the major factor until it is used up") that layout means a split of the
// major factor, i.e. other data: propagation then contradicts itself with a
// spurious remark, and -dist-insert-reshards moves data (an all_to_all, or
// an all_gather of everything followed by a take_shard) that the plain
// layout did not need.

// [B, S(tp), H] -> [B*S, H]: S is the minor factor of B*S and B is whole,
// so the merged dimension cannot carry tp; it stays whole, silently.
// CHECK-LABEL: func.func @merge_minor_split
// CHECK: nn.reshape {{.*}} [32, 16] {dist.shardings = [#dist.sharding<@m, [{}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @merge_minor_split(%x: tensor<4x8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}, {}]>}) -> tensor<32x16xf32> {
  %0 = nn.reshape %x [32, 16] : tensor<4x8x16xf32> -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// [B(dp), S(tp), H] -> [B*S, H] with B = 4 and dp = 2: dp does not use B
// up, so only dp carries over (tp would split B's remaining factor 2 by 4).
// CHECK-LABEL: func.func @merge_major_not_used_up
// CHECK: nn.reshape {{.*}} [32, 16] {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @merge_major_not_used_up(%x: tensor<4x8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}, {}]>}) -> tensor<32x16xf32> {
  %0 = nn.reshape %x [32, 16] : tensor<4x8x16xf32> -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}
