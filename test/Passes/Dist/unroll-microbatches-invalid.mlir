// RUN: loom-opt %s -dist-unroll-microbatches -split-input-file -verify-diagnostics

// Strided views need the microbatch's shape.
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<f32> {
  // expected-error@+1 {{cannot unroll: input 'tensor<?x4xf32>' has no static shape}}
  %s = dist.microbatches 2 (%xk = %x) : (tensor<?x4xf32>) -> (tensor<f32>) {
    %0 = nn.reduce_sum %xk axes = [0, 1] : tensor<?x4xf32> -> tensor<f32>
    dist.yield %0 : tensor<f32>
  }
  return %s : tensor<f32>
}
