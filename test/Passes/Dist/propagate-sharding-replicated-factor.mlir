// RUN: loom-opt %s -dist-propagate-sharding -split-input-file -verify-diagnostics | FileCheck %s
// Bug: "Factors the rule marks replicated are never split" does not hold
// for layouts that reach an op's result from its users. A function result
// layout or a dist.annotate after a softmax (layer_norm alike) is offered
// to the softmax result as is, so its recorded dist.shardings splits the
// softmax axis. (-dist-insert-reshards repairs it afterwards by recording
// the natural layout and resharding after the op, but the layout
// propagation records is one the op cannot compute.)
// The same happens to a factor a conflict leaves whole: the remark says the
// factor is kept whole, yet the recorded result layout splits it.

// CHECK-LABEL: func.func @softmax_result_layout
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
// CHECK: nn.softmax {{.*}} axis = 1 {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @softmax_result_layout(%x: tensor<8x16xf32>)
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}) {
  %0 = nn.softmax %x axis = 1 : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_then_annotate
// CHECK: nn.layer_norm {{.*}} axis = 1 {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
// CHECK: dist.annotate %{{.*}} <@m, [{"dp"}, {"tp"}]>
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @layer_norm_then_annotate(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = nn.layer_norm %x axis = 1 : tensor<8x16xf32>
  %1 = dist.annotate %0 <@m, [{"dp"}, {"tp"}]> : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// The user closed dimension 1 of the argument whole and annotated the relu
// result with tp there: the operand's user layout wins, so the relu result
// is not split along dimension 1 (the annotate gets a reshard instead).
// CHECK-LABEL: func.func @conflict_result_agrees_with_remark
// CHECK: nn.relu {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @conflict_result_agrees_with_remark(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<8x16xf32> {
  %0 = nn.relu %x : tensor<8x16xf32>
  %1 = dist.annotate %0 <@m, [{}, {"tp"}]> : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
