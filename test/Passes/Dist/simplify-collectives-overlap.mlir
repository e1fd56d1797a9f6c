// RUN: loom-opt %s -dist-simplify-collectives | FileCheck %s
// Bug: MergeAllReduces (and the all_gather merge) do not check that the two
// groups are disjoint. Two sum all_reduces over the same axis (the second
// multiplies by the group size) are merged into one over ["tp", "tp"],
// which the verifier rejects ("mesh axis "tp" is used twice"), so the pass
// turns valid IR into invalid IR. Collectives over overlapping groups must
// be left alone.

// CHECK-LABEL: func.func @same_axis_twice
// CHECK-NEXT: %[[A:.*]] = dist.all_reduce sum %arg0 over @m ["tp"]
// CHECK-NEXT: %[[B:.*]] = dist.all_reduce sum %[[A]] over @m ["tp"]
// CHECK-NEXT: return %[[B]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @same_axis_twice(%x: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {dist.spmd} {
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x32xf32>
  %1 = dist.all_reduce sum %0 over @m ["tp"] : tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// CHECK-LABEL: func.func @gather_same_axis_twice
// CHECK-NEXT: %[[A:.*]] = dist.all_gather %arg0 over @m ["tp"] dim = 0
// CHECK-NEXT: %[[B:.*]] = dist.all_gather %[[A]] over @m ["tp"] dim = 0
// CHECK-NEXT: return %[[B]]
func.func @gather_same_axis_twice(%x: tensor<2x32xf32>) -> tensor<32x32xf32> attributes {dist.spmd} {
  %0 = dist.all_gather %x over @m ["tp"] dim = 0 : tensor<2x32xf32> -> tensor<8x32xf32>
  %1 = dist.all_gather %0 over @m ["tp"] dim = 0 : tensor<8x32xf32> -> tensor<32x32xf32>
  return %1 : tensor<32x32xf32>
}
