// RUN: loom-opt %s -split-input-file -dist-assign-stages=stages=3 -verify-diagnostics

// More stages than ops to cut.
// expected-error@+1 {{cannot cut 'main' into 3 pipeline stages: it has 2 ops}}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.tanh %x : tensor<4xf32>
  %b = nn.tanh %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// A marker the planner (or the user) left beyond the stages.
func.func @marked(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{op is marked for pipeline stage 5 but there are 3 stages}}
  %a = nn.tanh %x {dist.stage = 5 : i64} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// More stages than matrix products: a stage would only pass its input on.
// expected-error@+1 {{cannot cut 'mlp' into 3 pipeline stages: it has 2 matrix products and convolutions, and each stage needs one (use at most 2 stages, counting virtual stages)}}
func.func @mlp(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %w = nn.parameter "w" = dense<0.5> : tensor<4x4xf32>
  %h = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %a = nn.tanh %h : tensor<8x4xf32>
  %y = nn.matmul %a, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %b = nn.tanh %y : tensor<8x4xf32>
  return %b : tensor<8x4xf32>
}
