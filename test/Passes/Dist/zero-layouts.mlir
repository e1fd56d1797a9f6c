// RUN: loom-opt %s -dist-zero-layouts=stage=0 -split-input-file | FileCheck %s --check-prefixes=ALL,Z0
// RUN: loom-opt %s -dist-zero-layouts=stage=1 -split-input-file | FileCheck %s --check-prefixes=ALL,Z1
// RUN: loom-opt %s -dist-zero-layouts=stage=2 -split-input-file | FileCheck %s --check-prefixes=ALL,Z2
// RUN: loom-opt %s -dist-zero-layouts=stage=3 -split-input-file | FileCheck %s --check-prefixes=ALL,Z3
// RUN: not loom-opt %s -dist-zero-layouts=stage=4 -split-input-file 2>&1 | FileCheck %s --check-prefix=STAGE

// STAGE: error: training: --zero must be 0, 1, 2 or 3

// The data axes are the axes that split the data inputs' dimension 0,
// whatever their names ("batch"; "one" has size 1 and splits nothing), and
// the mesh has no other axis: the gradient is made replicated (all-reduced
// where it is made, before the norm); from stage 1 the optimizer state is
// split and the update reads blocks of the parameter and (below stage 2)
// of the gradient, which stage 2 reduce-scatters where it is made; stage 3
// splits the parameter and gathers it for every use but the update.
// ALL-LABEL: module attributes
// Z0-NOT: zero =
// Z1-SAME: zero = 1
// Z2-SAME: zero = 2
// Z3-SAME: zero = 3
// ALL-LABEL: func.func @step
// Z0: %[[W:.*]] = nn.parameter "w" {nn.update = "update:w"}
// Z1: %[[W:.*]] = nn.parameter "w" {dist.shardings = [#dist.sharding<@m, [{}, {}]>], nn.update = "update:w"}
// Z2: %[[W:.*]] = nn.parameter "w" {dist.shardings = [#dist.sharding<@m, [{}, {}]>], nn.update = "update:w"}
// Z3: %[[W:.*]] = nn.parameter "w" {dist.shardings = [#dist.sharding<@m, [{"batch"}, {}]>], nn.update = "update:w"}
// Z0: %[[V:.*]] = nn.parameter "adamw.v:w" {nn.update
// Z1: %[[V:.*]] = nn.parameter "adamw.v:w" {dist.shardings = [#dist.sharding<@m, [{"batch"}, {}]>]
// Z2: %[[V:.*]] = nn.parameter "adamw.v:w" {dist.shardings = [#dist.sharding<@m, [{"batch"}, {}]>]
// Z3: %[[V:.*]] = nn.parameter "adamw.v:w" {dist.shardings = [#dist.sharding<@m, [{"batch"}, {}]>]
// ALL: %[[M:.*]] = nn.parameter "adamw.m:w"
// Z3: %[[WALL:.*]] = dist.annotate %[[W]] <@m, [{}, {}]> : tensor<4x3xf32>
// Z3: nn.matmul %{{.*}}, %[[WALL]]
// Z0: nn.matmul %{{.*}}, %[[W]]
// ALL: %[[GW:.*]] = nn.mul
// Z0: %[[G:.*]] = dist.annotate %[[GW]] <@m, [{}, {}]> : tensor<4x3xf32>
// Z1: %[[G:.*]] = dist.annotate %[[GW]] <@m, [{}, {}]> : tensor<4x3xf32>
// Z2: %[[G:.*]] = dist.annotate %[[GW]] <@m, [{"batch"}, {}]> : tensor<4x3xf32>
// Z3: %[[G:.*]] = dist.annotate %[[GW]] <@m, [{"batch"}, {}]> : tensor<4x3xf32>
// ALL: nn.mul %[[G]], %[[G]]
// Z1: %[[WS:.*]] = dist.annotate %[[W]] <@m, [{"batch"}, {}]>
// Z1: %[[GS:.*]] = dist.annotate %[[G]] <@m, [{"batch"}, {}]>
// Z1: nn.adamw_update %[[WS]], %[[GS]] state(%[[M]], %[[V]])
// Z2: %[[WS:.*]] = dist.annotate %[[W]] <@m, [{"batch"}, {}]>
// Z2: nn.adamw_update %[[WS]], %[[G]] state(%[[M]], %[[V]])
// Z0: nn.adamw_update %[[W]], %[[G]] state(%[[M]], %[[V]])
// Z3: nn.adamw_update %[[W]], %[[G]] state(%[[M]], %[[V]])
module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = adamw, lr = 0.001, beta1 = 0.9, beta2 = 0.999, eps = 1.0E-8, lr_schedule = constant, data_inputs = ["x"]>} {
  dist.mesh @m axes [<"batch" = 2, intra_node>, <"one" = 1, intra_node>]
  func.func @step(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@m, [{"batch", "one"}, {}]>, nn.name = "x"}, %lr: tensor<f32>, %bc1: tensor<f32>, %bc2: tensor<f32>, %dy: tensor<4x3xf32>) -> (tensor<8x3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
    %w = nn.parameter "w" {nn.update = "update:w"} = dense<0.5> : tensor<4x3xf32>
    %v = nn.parameter "adamw.v:w" {nn.update = "update:adamw.v:w", nn.zero_init} = dense<0.0> : tensor<4x3xf32>
    %m = nn.parameter "adamw.m:w" {nn.update = "update:adamw.m:w", nn.zero_init} = dense<0.0> : tensor<4x3xf32>
    %y = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
    %g = nn.mul %dy, %lr : tensor<4x3xf32>, tensor<f32>
    %sq = nn.mul %g, %g : tensor<4x3xf32>, tensor<4x3xf32>
    %n = nn.reduce_sum %sq axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
    %w1, %m1, %v1 = nn.adamw_update %w, %g state(%m, %v) lr(%lr) bias_correction(%bc1, %bc2) : tensor<4x3xf32>
    return %y, %n, %m1, %v1, %w1 : tensor<8x3xf32>, tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
  }
}

// -----

// A model axis ("cols" splits no data input): only the reduce-scatter of
// stage 2 and 3 is pinned, and a parameter below stage 3 keeps whatever
// layout propagation gives it.
// ALL-LABEL: func.func @model_axis
// ALL: %[[W:.*]] = nn.parameter "w"
// Z1-SAME: {nn.update = "update:w"}
// Z3-SAME: {dist.shardings = [#dist.sharding<@m, [{"rows"}]>], nn.update = "update:w"}
// Z0-NOT: dist.annotate
// Z1: %[[G:.*]] = nn.mul
// Z1-NOT: dist.annotate %[[G]] <@m, [{}]>
// Z1: %[[WS:.*]] = dist.annotate %[[W]] <@m, [{"rows"}]>
// Z1: %[[GS:.*]] = dist.annotate %[[G]] <@m, [{"rows"}]>
// Z1: nn.sgd_update %[[WS]], %[[GS]] lr
// Z2: %[[G:.*]] = nn.mul
// Z2: %[[GR:.*]] = dist.annotate %[[G]] <@m, [{"rows"}]>
// Z2: nn.sgd_update %{{.*}}, %[[GR]] lr
// Z3: %[[G:.*]] = nn.mul
// Z3: %[[GR:.*]] = dist.annotate %[[G]] <@m, [{"rows"}]>
// Z3: nn.sgd_update %[[W]], %[[GR]] lr
module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = sgd, lr = 0.001, lr_schedule = constant, data_inputs = ["x"]>} {
  dist.mesh @m axes [<"rows" = 2, intra_node>, <"cols" = 2, intra_node>]
  func.func @model_axis(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@m, [{"rows"}, {}]>, nn.name = "x"}, %lr: tensor<f32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
    %w = nn.parameter "w" {nn.update = "update:w"} = dense<0.5> : tensor<4xf32>
    %g = nn.mul %dy, %lr : tensor<4xf32>, tensor<f32>
    %w1 = nn.sgd_update %w, %g lr(%lr) : tensor<4xf32>
    return %w1 : tensor<4xf32>
  }
}

// -----

// No data input is split: nothing to lay out.
// ALL-LABEL: func.func @no_data_axes
// ALL-NOT: dist.annotate
// ALL-NOT: dist.shardings
module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = sgd, lr = 0.001, lr_schedule = constant, data_inputs = ["x"]>} {
  dist.mesh @m axes [<"rows" = 2, intra_node>]
  func.func @no_data_axes(%x: tensor<8x4xf32> {nn.name = "x"}, %lr: tensor<f32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
    %w = nn.parameter "w" {nn.update = "update:w"} = dense<0.5> : tensor<4xf32>
    %g = nn.mul %dy, %lr : tensor<4xf32>, tensor<f32>
    %w1 = nn.sgd_update %w, %g lr(%lr) : tensor<4xf32>
    return %w1 : tensor<4xf32>
  }
}

// -----

// With clipping, stage 1 splits the clipped gradient: the multiplication
// the update would start with moves out of it, before the annotation.
// ALL-LABEL: func.func @clipped
// ALL: %[[G:.*]] = nn.mul %{{.*}}, %[[LR:.*]] : tensor<4xf32>, tensor<f32>
// Z1: %[[GR:.*]] = dist.annotate %[[G]] <@m, [{}]>
// Z1: %[[GC:.*]] = nn.mul %[[GR]], %{{.*}} : tensor<4xf32>, tensor<f32>
// Z1: %[[GS:.*]] = dist.annotate %[[GC]] <@m, [{"rows"}]>
// Z1: nn.sgd_update %{{.*}}, %[[GS]] lr(%[[LR]]) : tensor<4xf32>
// Z0: nn.sgd_update %{{.*}}, %{{.*}} lr(%[[LR]]) clip(%{{.*}}) : tensor<4xf32>
// Z2: nn.sgd_update %{{.*}}, %{{.*}} lr(%[[LR]]) clip(%{{.*}}) : tensor<4xf32>
// Z3: nn.sgd_update %{{.*}}, %{{.*}} lr(%[[LR]]) clip(%{{.*}}) : tensor<4xf32>
module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = sgd, lr = 0.001, lr_schedule = constant, clip_grad_norm = 1, data_inputs = ["x"]>} {
  dist.mesh @m axes [<"rows" = 2, intra_node>]
  func.func @clipped(%x: tensor<8x4xf32> {dist.sharding = #dist.sharding<@m, [{"rows"}, {}]>, nn.name = "x"}, %lr: tensor<f32>, %c: tensor<f32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
    %w = nn.parameter "w" {nn.update = "update:w"} = dense<0.5> : tensor<4xf32>
    %g = nn.mul %dy, %lr : tensor<4xf32>, tensor<f32>
    %w1 = nn.sgd_update %w, %g lr(%lr) clip(%c) : tensor<4xf32>
    return %w1 : tensor<4xf32>
  }
}
