// RUN: loom-opt %s -dist-propagate-sharding -dist-insert-reshards -split-input-file | FileCheck %s
// Bug: an open dimension ({?}) of a dist.annotate behaves as a closed,
// whole one. DistBase.td: "A trailing `?` marks the dimension open:
// propagation may split it further along other axes". But propagation does
// not carry the input's axes through the annotate to its result (the
// annotate is only visited backwards), and -dist-insert-reshards
// normalizes the annotate's layout to closed dimensions before comparing.
// A value split along an open dimension is therefore gathered before the
// annotate (an all_gather over "tp" in the device program) and its users
// run whole along that dimension. Open dimensions of function result
// layouts are treated the same way.

// CHECK-LABEL: func.func @open_annotate
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
// CHECK-NOT: dist.reshard
// CHECK: nn.tanh {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
// CHECK-NOT: dist.reshard
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @open_annotate(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}) -> tensor<8x16xf32> {
  %0 = nn.relu %x : tensor<8x16xf32>
  %1 = dist.annotate %0 <@m, [{"dp"}, {?}]> : tensor<8x16xf32>
  %2 = nn.tanh %1 : tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func @open_result
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"{{.*}}
// CHECK-NOT: dist.reshard
// CHECK: return
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @open_result(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {?}]>}) {
  %0 = nn.relu %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
