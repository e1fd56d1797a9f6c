// RUN: loom-opt %s -nn-build-training-step="loss=l grad-accum=2" -verify-diagnostics

// State updated by the forward pass changes once per forward: a step of
// several microbatches is refused (PyTorch would update it once each).
// expected-error @+1 {{training: 'm' is updated by the forward pass (BatchNorm running statistics), once per forward; that needs one microbatch per step (no --grad-accum, --microbatches or pipeline stages)}}
func.func @main(%x: tensor<4x2xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "l"}, tensor<2xf32> {nn.name = "state:m"}) {
  %w = nn.parameter "w" = dense<1.0> : tensor<2xf32>
  %m = nn.parameter "m" = dense<0.0> : tensor<2xf32>
  %y = nn.mul %x, %w : tensor<4x2xf32>, tensor<2xf32>
  %l = nn.reduce_sum %y axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  %k = nn.constant dense<0.5> : tensor<f32>
  %n = nn.mul %m, %k : tensor<2xf32>, tensor<f32>
  return %l, %n : tensor<f32>, tensor<2xf32>
}
