// RUN: loom-opt %s -nn-recognize-idioms -split-input-file | FileCheck %s

// PyTorch's decomposed LayerNorm, with scale and bias.
// CHECK-LABEL: func.func @pytorch_export
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x32xf32>, %[[G:.*]]: tensor<32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-NEXT: %[[Y:.*]] = nn.layer_norm %[[X]] scale(%[[G]] : tensor<32xf32>) bias(%[[B]] : tensor<32xf32>) axis = 2 {epsilon = 9.9999997473787516E-6 : f64} : tensor<2x8x32xf32>
// CHECK-NEXT: return %[[Y]]
func.func @pytorch_export(%x: tensor<2x8x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %two = nn.constant dense<2.0> : tensor<f32>
  %eps = nn.constant dense<1.0e-5> : tensor<f32>
  %mean = nn.reduce_mean %x axes = [2] {keepdims = true} : tensor<2x8x32xf32> -> tensor<2x8x1xf32>
  %d = nn.sub %x, %mean : tensor<2x8x32xf32>, tensor<2x8x1xf32>
  %sq = nn.pow %d, %two : tensor<2x8x32xf32>, tensor<f32>
  %var = nn.reduce_mean %sq axes = [2] {keepdims = true} : tensor<2x8x32xf32> -> tensor<2x8x1xf32>
  %ve = nn.add %var, %eps : tensor<2x8x1xf32>, tensor<f32>
  %std = nn.sqrt %ve : tensor<2x8x1xf32>
  %n = nn.div %d, %std : tensor<2x8x32xf32>, tensor<2x8x1xf32>
  %s = nn.mul %n, %g : tensor<2x8x32xf32>, tensor<32xf32>
  %y = nn.add %s, %b : tensor<2x8x32xf32>, tensor<32xf32>
  return %y : tensor<2x8x32xf32>
}

// -----

// The rsqrt form over two trailing axes, squares as d * d, a scale given
// with a leading unit dimension, and no bias.
// CHECK-LABEL: func.func @rsqrt_form
// CHECK: %[[G2:.*]] = nn.reshape %{{.*}} [4, 16] : tensor<1x4x16xf32> -> tensor<4x16xf32>
// CHECK: nn.layer_norm %{{.*}} scale(%[[G2]] : tensor<4x16xf32>) axis = 1 {epsilon = 9.9999999747524271E-7 : f64} : tensor<3x4x16xf32>
// CHECK-NOT: nn.rsqrt
func.func @rsqrt_form(%x: tensor<3x4x16xf32>, %g: tensor<1x4x16xf32>) -> tensor<3x4x16xf32> {
  %eps = nn.constant dense<1.0e-6> : tensor<f32>
  %mean = nn.reduce_mean %x axes = [1, 2] {keepdims = true} : tensor<3x4x16xf32> -> tensor<3x1x1xf32>
  %d = nn.sub %x, %mean : tensor<3x4x16xf32>, tensor<3x1x1xf32>
  %sq = nn.mul %d, %d : tensor<3x4x16xf32>, tensor<3x4x16xf32>
  %var = nn.reduce_mean %sq axes = [1, 2] {keepdims = true} : tensor<3x4x16xf32> -> tensor<3x1x1xf32>
  %ve = nn.add %eps, %var : tensor<f32>, tensor<3x1x1xf32>
  %r = nn.rsqrt %ve : tensor<3x1x1xf32>
  %n = nn.mul %r, %d : tensor<3x1x1xf32>, tensor<3x4x16xf32>
  %y = nn.mul %n, %g : tensor<3x4x16xf32>, tensor<1x4x16xf32>
  return %y : tensor<3x4x16xf32>
}

// -----

// Not a LayerNorm: the variance is taken of a different value.
// CHECK-LABEL: func.func @wrong_variance
// CHECK-NOT: nn.layer_norm
func.func @wrong_variance(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = nn.constant dense<1.0e-5> : tensor<f32>
  %mean = nn.reduce_mean %x axes = [1] {keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = nn.sub %x, %mean : tensor<4x8xf32>, tensor<4x1xf32>
  %sq = nn.mul %z, %z : tensor<4x8xf32>, tensor<4x8xf32>
  %var = nn.reduce_mean %sq axes = [1] {keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : tensor<4x1xf32>, tensor<f32>
  %std = nn.sqrt %ve : tensor<4x1xf32>
  %n = nn.div %d, %std : tensor<4x8xf32>, tensor<4x1xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Not a LayerNorm: the mean is over a leading axis.
// CHECK-LABEL: func.func @leading_axis
// CHECK-NOT: nn.layer_norm
func.func @leading_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = nn.constant dense<1.0e-5> : tensor<f32>
  %mean = nn.reduce_mean %x axes = [0] {keepdims = true} : tensor<4x8xf32> -> tensor<1x8xf32>
  %d = nn.sub %x, %mean : tensor<4x8xf32>, tensor<1x8xf32>
  %sq = nn.mul %d, %d : tensor<4x8xf32>, tensor<4x8xf32>
  %var = nn.reduce_mean %sq axes = [0] {keepdims = true} : tensor<4x8xf32> -> tensor<1x8xf32>
  %ve = nn.add %var, %eps : tensor<1x8xf32>, tensor<f32>
  %std = nn.sqrt %ve : tensor<1x8xf32>
  %n = nn.div %d, %std : tensor<4x8xf32>, tensor<1x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// A scale whose shape is not the normalised shape stays a multiply.
// CHECK-LABEL: func.func @scale_not_affine
// CHECK: %[[N:.*]] = nn.layer_norm %{{.*}} axis = 1
// CHECK: nn.mul %[[N]], %{{.*}} : tensor<4x8xf32>, tensor<4x1xf32>
func.func @scale_not_affine(%x: tensor<4x8xf32>, %g: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %eps = nn.constant dense<1.0e-5> : tensor<f32>
  %mean = nn.reduce_mean %x axes = [1] {keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = nn.sub %x, %mean : tensor<4x8xf32>, tensor<4x1xf32>
  %sq = nn.mul %d, %d : tensor<4x8xf32>, tensor<4x8xf32>
  %var = nn.reduce_mean %sq axes = [1] {keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %ve = nn.add %var, %eps : tensor<4x1xf32>, tensor<f32>
  %std = nn.sqrt %ve : tensor<4x1xf32>
  %n = nn.div %d, %std : tensor<4x8xf32>, tensor<4x1xf32>
  %y = nn.mul %n, %g : tensor<4x8xf32>, tensor<4x1xf32>
  return %y : tensor<4x8xf32>
}
