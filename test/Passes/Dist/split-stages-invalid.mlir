// RUN: loom-opt %s -split-input-file -dist-split-stages="stages=2 stage=0" -verify-diagnostics

// A trained parameter two stages use (a tied embedding) keeps a copy on
// each, equal through the update every stage returns: a step that returns
// no update for it cannot keep them equal.
dist.mesh @m axes [<"pp" = 2, intra_node>]
func.func @tied(%x: tensor<8x4xf32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error@+1 {{parameter 'w' is used by pipeline stages 0 and 1, but the step returns no update 'update:w' to keep their copies equal}}
  %w = nn.parameter "w" {nn.update = "update:w"} = dense<0.5> : tensor<4x4xf32>
  %s = dist.microbatches 2 (%xk = %x) : (tensor<8x4xf32>) -> (tensor<f32>) {
    %h = nn.matmul %xk, %w {dist.stage = 0 : i64} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %y = nn.matmul %h, %w {dist.stage = 1 : i64} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %l = nn.reduce_mean %y axes = [0, 1] : tensor<4x4xf32> -> tensor<f32>
    dist.yield %l : tensor<f32>
  }
  return %s, %s : tensor<f32>, tensor<f32>
}

// -----

// Stages come from the microbatch loop.
dist.mesh @m axes [<"pp" = 2, intra_node>]
// expected-error@+1 {{cannot split 'main' into pipeline stages: it has no microbatch loop (build the training step with microbatches)}}
func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  return %x, %x : tensor<f32>, tensor<f32>
}

// -----

// A stage marker beyond the stages.
dist.mesh @m axes [<"pp" = 2, intra_node>]
func.func @marked(%x: tensor<8x4xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = dist.microbatches 2 (%xk = %x) : (tensor<8x4xf32>) -> (tensor<f32>) {
    // expected-error@+1 {{op is marked for pipeline stage 3 but the step has 2 (virtual) stages}}
    %l = nn.reduce_mean %xk axes = [0, 1] {dist.stage = 3 : i64} : tensor<4x4xf32> -> tensor<f32>
    dist.yield %l : tensor<f32>
  }
  return %s, %s : tensor<f32>, tensor<f32>
}

// -----

// The stages are the coordinates of the mesh's "pp" axis.
// expected-error@+1 {{-dist-split-stages: the mesh needs an axis "pp" of size 2}}
module {
  dist.mesh @m axes [<"dp" = 2, intra_node>]
}

