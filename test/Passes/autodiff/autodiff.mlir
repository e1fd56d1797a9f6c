// RUN: loom-opt %s -nn-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// Gradients of the parameters are appended as results named grad:NAME; a
// value used twice gets the sum of both gradients; a parameter the loss does
// not depend on gets zeros.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: -> (tensor<f32>, tensor<4x2xf32> {nn.name = "grad:w"}, tensor<2xf32> {nn.name = "grad:b"}, tensor<3xf32> {nn.name = "grad:unused"})
// CHECK: %[[W:.*]] = nn.parameter "w"
// CHECK: nn.matmul %arg0, %[[W]]
// CHECK: nn.constant dense<1.000000e+00> : tensor<f32>
// The two uses of %z in the product: their gradients add up.
// CHECK: %[[GZ:.*]] = nn.add %{{.*}}, %{{.*}} : tensor<8x2xf32>, tensor<8x2xf32>
// CHECK: %[[GB:.*]] = nn.reduce_sum %[[GZ]] axes = [0] {keepdims = true} : tensor<8x2xf32> -> tensor<1x2xf32>
// CHECK: %[[GB2:.*]] = nn.reshape %[[GB]] [2] : tensor<1x2xf32> -> tensor<2xf32>
// CHECK: %[[XT:.*]] = nn.transpose %arg0 [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: %[[GW:.*]] = nn.matmul %[[XT]], %[[GZ]] : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK: %[[Z:.*]] = nn.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: return %{{.*}}, %[[GW]], %[[GB2]], %[[Z]]
func.func @linear(%x: tensor<8x4xf32>) -> tensor<f32> {
  %w = nn.parameter "w" = dense<0.5> : tensor<4x2xf32>
  %b = nn.parameter "b" = dense<0.1> : tensor<2xf32>
  %u = nn.parameter "unused" = dense<1.0> : tensor<3xf32>
  %y = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %z = nn.add %y, %b : tensor<8x2xf32>, tensor<2xf32>
  %s = nn.mul %z, %z : tensor<8x2xf32>, tensor<8x2xf32>
  %l = nn.reduce_mean %s axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error@+1 {{cannot differentiate 'vector_loss': result 0 (the loss) must be a float scalar, not 'tensor<4xf32>'}}
func.func @vector_loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{cannot differentiate 'no_loss': it returns nothing (the loss is result 0)}}
func.func @no_loss() {
  return
}

// -----

func.func @no_rule(%x: tensor<1x1x4x4xf32>) -> tensor<f32> {
  %w = nn.parameter "w" = dense<1.0> : tensor<1x1x2x2xf32>
  // expected-error@+1 {{cannot differentiate through 'nn.conv2d': it has no gradient rule}}
  %y = nn.conv2d %x, %w : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x3x3xf32>
  %l = nn.reduce_sum %y axes = [0, 1, 2, 3] : tensor<1x1x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An embedding lookup: the table's gradient scatters the rows' gradients
// back to the rows they were read from, adding up repeated ids.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: -> (tensor<f32>, tensor<8x2xf32> {nn.name = "grad:table"})
// CHECK: %[[T:.*]] = nn.parameter "table"
// CHECK: nn.gather %[[T]][%arg0] axis = 0
// CHECK: %[[G:.*]] = nn.broadcast_to %{{.*}} [4, 2] : tensor<1x1xf32> -> tensor<4x2xf32>
// CHECK: %[[GT:.*]] = nn.scatter_add %[[G]][%arg0] axis = 0 size = 8 : tensor<4x2xf32>, tensor<4xi64> -> tensor<8x2xf32>
// CHECK: return %{{.*}}, %[[GT]]
func.func @embedding(%ids: tensor<4xi64>) -> tensor<f32> {
  %t = nn.parameter "table" = dense<1.0> : tensor<8x2xf32>
  %e = nn.gather %t[%ids] axis = 0 : tensor<8x2xf32>, tensor<4xi64> -> tensor<4x2xf32>
  %l = nn.reduce_sum %e axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// scatter_add's gradient gathers the rows its updates went to.
// CHECK-LABEL: func.func @scatter
// CHECK: %[[P:.*]] = nn.parameter "u"
// CHECK: %[[S:.*]] = nn.scatter_add %[[P]][%arg0] axis = 1 size = 5 : tensor<2x3xf32>, tensor<3xi32> -> tensor<2x5xf32>
// CHECK: %[[GU:.*]] = nn.gather %{{.*}}[%arg0] axis = 1 : tensor<2x5xf32>, tensor<3xi32> -> tensor<2x3xf32>
// CHECK: return %{{.*}}, %[[GU]]
func.func @scatter(%ids: tensor<3xi32>) -> tensor<f32> {
  %u = nn.parameter "u" = dense<1.0> : tensor<2x3xf32>
  %s = nn.scatter_add %u[%ids] axis = 1 size = 5 : tensor<2x3xf32>, tensor<3xi32> -> tensor<2x5xf32>
  %q = nn.mul %s, %s : tensor<2x5xf32>, tensor<2x5xf32>
  %l = nn.reduce_sum %q axes = [0, 1] : tensor<2x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Mixed precision: the gradient of a cast is cast back.
// CHECK-LABEL: func.func @mixed
// CHECK: nn.cast %{{.*}} : tensor<4xbf16> to f32
func.func @mixed(%x: tensor<4xf32>) -> tensor<bf16> {
  %w = nn.parameter "w" = dense<1.0> : tensor<4xf32>
  %p = nn.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %h = nn.cast %p : tensor<4xf32> to bf16
  %l = nn.reduce_sum %h axes = [0] : tensor<4xbf16> -> tensor<bf16>
  return %l : tensor<bf16>
}

// -----

func.func @strided(%x: tensor<8xf32>) -> tensor<f32> {
  %w = nn.parameter "w" = dense<1.0> : tensor<8xf32>
  %p = nn.mul %x, %w : tensor<8xf32>, tensor<8xf32>
  // expected-error@+2 {{has no gradient rule for strides other than 1 yet}}
  // expected-error@+1 {{the gradient rule of 'nn.slice' failed}}
  %s = nn.slice %p offsets = [0] sizes = [4] strides = [2] : tensor<8xf32> -> tensor<4xf32>
  %l = nn.reduce_sum %s axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
