// RUN: loom-opt %s -nn-autodiff=wrt=arguments | FileCheck %s
// RUN: not loom-opt %s -nn-autodiff=wrt=inputs 2>&1 | FileCheck %s --check-prefix=BAD

// With wrt=arguments, the float arguments get gradients (integer ones do
// not), named after nn.name or their position.
// CHECK-LABEL: func.func @args
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32> {nn.name = "grad:x"}, tensor<4xf32> {nn.name = "grad:arg2"})
func.func @args(%x: tensor<4xf32> {nn.name = "x"}, %i: tensor<4xi64>, %y: tensor<4xf32>) -> tensor<f32> {
  %p = nn.mul %x, %y : tensor<4xf32>, tensor<4xf32>
  %l = nn.reduce_sum %p axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// BAD: -nn-autodiff: wrt must be parameters or arguments, not 'inputs'
