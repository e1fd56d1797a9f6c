// RUN: loom-opt %s -dist-tie-state-layouts | FileCheck %s

dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 2, intra_node>]

// Each update result takes its parameter's layout (a replicated one when
// the parameter has none); other results keep theirs.
// CHECK-LABEL: func.func @step
// CHECK-SAME: -> (tensor<f32> {nn.name = "loss"},
// CHECK-SAME: tensor<4x8xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>, nn.name = "update:w"},
// CHECK-SAME: tensor<8xf32> {dist.sharding = #dist.sharding<@m, [{}]>, nn.name = "update:b"})
func.func @step(%l: tensor<f32>, %gw: tensor<4x8xf32>, %gb: tensor<8xf32>) -> (tensor<f32> {nn.name = "loss"}, tensor<4x8xf32> {nn.name = "update:w"}, tensor<8xf32> {nn.name = "update:b"}) {
  %w = nn.parameter "w" {nn.update = "update:w", dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]} = dense<0.5> : tensor<4x8xf32>
  %b = nn.parameter "b" {nn.update = "update:b"} = dense<0.5> : tensor<8xf32>
  %nw = nn.sub %w, %gw : tensor<4x8xf32>, tensor<4x8xf32>
  %nb = nn.sub %b, %gb : tensor<8xf32>, tensor<8xf32>
  return %l, %nw, %nb : tensor<f32>, tensor<4x8xf32>, tensor<8xf32>
}
