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

func.func @no_rule(%x: tensor<4xf32>) -> tensor<f32> {
  %w = nn.parameter "w" = dense<1.0> : tensor<4xf32>
  %p = nn.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  // expected-error@+1 {{cannot differentiate through 'arith.negf': it has no gradient rule}}
  %n = arith.negf %p : tensor<4xf32>
  %l = nn.reduce_sum %n axes = [0] : tensor<4xf32> -> tensor<f32>
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

// A strided, grouped, padded convolution. d input: g placed at the windows'
// strided starts (reshape, pad, reshape) and correlated with the filter
// transposed per group and flipped in space. d filter: the input, batch and
// channels swapped, correlated with g, strides and dilations swapped, cut to
// the kernel. d bias: g summed over all but the channels.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: -> (tensor<f32>, tensor<6x2x3x3xf32> {nn.name = "grad:w"}, tensor<6xf32> {nn.name = "grad:b"}, tensor<2x4x8x8xf32> {nn.name = "grad:x"})
// CHECK: %[[G:.*]] = nn.broadcast_to %{{.*}} [2, 6, 4, 4]
// CHECK: %[[G1:.*]] = nn.reshape %[[G]] [2, 6, 4, 1, 4, 1]
// CHECK: %[[G2:.*]] = nn.pad %[[G1]] low = [0, 0, 0, 0, 0, 0] high = [0, 0, 0, 1, 0, 1]
// CHECK: %[[G3:.*]] = nn.reshape %[[G2]] [2, 6, 8, 8]
// CHECK: %[[G4:.*]] = nn.pad %[[G3]] low = [0, 0, 1, 1] high = [0, 0, 1, 1] : tensor<2x6x8x8xf32> -> tensor<2x6x10x10xf32>
// CHECK: %[[W1:.*]] = nn.reshape %[[W:.*]] [2, 3, 2, 3, 3]
// CHECK: %[[W2:.*]] = nn.transpose %[[W1]] [0, 2, 1, 3, 4]
// CHECK: %[[W3:.*]] = nn.reshape %[[W2]] [4, 3, 3, 3]
// CHECK: %[[WF:.*]] = nn.slice %[[W3]] offsets = [0, 0, 2, 2] sizes = [4, 3, 3, 3] strides = [1, 1, -1, -1]
// CHECK: %[[DX:.*]] = nn.conv2d %[[G4]], %[[WF]] {groups = 2 : i64} : tensor<2x6x10x10xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
// CHECK: %[[X1:.*]] = nn.reshape %[[X:.*]] [2, 2, 2, 8, 8]
// CHECK: %[[X2:.*]] = nn.transpose %[[X1]] [2, 1, 0, 3, 4]
// CHECK: %[[X3:.*]] = nn.reshape %[[X2]] [2, 4, 8, 8]
// CHECK: %[[GT:.*]] = nn.transpose %[[G]] [1, 0, 2, 3] : tensor<2x6x4x4xf32> -> tensor<6x2x4x4xf32>
// CHECK: %[[C:.*]] = nn.conv2d %[[X3]], %[[GT]] {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x8xf32>, tensor<6x2x4x4xf32> -> tensor<2x6x4x4xf32>
// CHECK: %[[CK:.*]] = nn.slice %[[C]] offsets = [0, 0, 0, 0] sizes = [2, 6, 3, 3]
// CHECK: %[[DW:.*]] = nn.transpose %[[CK]] [1, 0, 2, 3] : tensor<2x6x3x3xf32> -> tensor<6x2x3x3xf32>
// CHECK: %[[DB:.*]] = nn.reduce_sum %[[G]] axes = [0, 2, 3] : tensor<2x6x4x4xf32> -> tensor<6xf32>
// CHECK: return %{{.*}}, %[[DW]], %[[DB]], %[[DX]]
func.func @conv() -> tensor<f32> {
  %w = nn.parameter "w" = dense<1.0> : tensor<6x2x3x3xf32>
  %b = nn.parameter "b" = dense<0.0> : tensor<6xf32>
  %x = nn.parameter "x" = dense<1.0> : tensor<2x4x8x8xf32>
  %y = nn.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<2x6x4x4xf32>
  %l = nn.reduce_sum %y axes = [0, 1, 2, 3] : tensor<2x6x4x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// avg_pool: g times each window's reciprocal count, placed at every window
// position and added up. max_pool: the pool again with the positions of the
// maxima, and g scattered there in the flattened input.
// CHECK-LABEL: func.func @pools
// CHECK: %[[G:.*]] = nn.broadcast_to %{{.*}} [1, 2, 2, 1]
// CHECK: %[[R:.*]] = nn.constant dense<{{\[}}[{{\[}}[5.000000e-01], [2.500000e-01]]]]> : tensor<1x1x2x1xf32>
// CHECK: %[[GS:.*]] = nn.mul %[[G]], %[[R]]
// CHECK-COUNT-4: nn.pad %[[GS]]
// CHECK: %[[GA:.*]] = nn.add
// CHECK: %{{.*}}, %[[I:.*]] = nn.max_pool_with_indices %[[X:.*]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
// CHECK: %[[P:.*]] = nn.range 0 to 32 step 16 -> tensor<2xi64>
// CHECK: %[[P1:.*]] = nn.reshape %[[P]] [1, 2, 1, 1]
// CHECK: %[[FI:.*]] = nn.add %[[I]], %[[P1]] : tensor<1x2x2x2xi64>, tensor<1x2x1x1xi64>
// CHECK: %[[FI1:.*]] = nn.reshape %[[FI]] [8]
// CHECK: %[[GA1:.*]] = nn.reshape %[[GA]] [8]
// CHECK: %[[S:.*]] = nn.scatter_add %[[GA1]][%[[FI1]]] axis = 0 size = 32 : tensor<8xf32>, tensor<8xi64> -> tensor<32xf32>
// CHECK: %[[DX:.*]] = nn.reshape %[[S]] [1, 2, 4, 4]
// CHECK: return %{{.*}}, %[[DX]]
func.func @pools() -> tensor<f32> {
  %x = nn.parameter "x" = dense<1.0> : tensor<1x2x4x4xf32>
  %m = nn.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2xf32>
  %a = nn.avg_pool %m {kernel = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 0>} : tensor<1x2x2x2xf32> -> tensor<1x2x2x1xf32>
  %l = nn.reduce_sum %a axes = [0, 1, 2, 3] : tensor<1x2x2x1xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A dilated max pool may have windows over no input (index -1): their
// gradients are dropped before the scatter.
// CHECK-LABEL: func.func @dilated_max_pool
// CHECK: %{{.*}}, %[[I:.*]] = nn.max_pool_with_indices
// CHECK: %[[Z:.*]] = nn.constant dense<0> : tensor<i64>
// CHECK: %[[K:.*]] = nn.compare ge, %[[I]], %[[Z]]
// CHECK: %[[G:.*]] = nn.where %[[K]]
// CHECK: nn.reshape %[[G]] [9]
// CHECK: nn.scatter_add
func.func @dilated_max_pool() -> tensor<f32> {
  %x = nn.parameter "x" = dense<1.0> : tensor<1x1x3x3xf32>
  %m = nn.max_pool %x {kernel = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 4, 4>} : tensor<1x1x3x3xf32> -> tensor<1x1x3x3xf32>
  %l = nn.reduce_sum %m axes = [0, 1, 2, 3] : tensor<1x1x3x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// trilu keeps the same triangle of g; a strided slice scatters g back to
// the rows it read and pads the unit-stride dimension; a reflect pad reads
// fixed positions along each dimension, so g scatters back along each.
// CHECK-LABEL: func.func @movement
// CHECK: %[[G:.*]] = nn.broadcast_to %{{.*}} [2, 3]
// CHECK: %[[T:.*]] = nn.trilu %[[G]] upper k = 1 : tensor<2x3xf32>
// CHECK: %[[ROWS:.*]] = nn.constant dense<[3, 1]> : tensor<2xi64>
// CHECK: %[[S:.*]] = nn.scatter_add %[[T]][%[[ROWS]]] axis = 0 size = 4 : tensor<2x3xf32>, tensor<2xi64> -> tensor<4x3xf32>
// CHECK: %[[P:.*]] = nn.pad %[[S]] low = [0, 1] high = [0, 2] : tensor<4x3xf32> -> tensor<4x6xf32>
// CHECK: %[[R0:.*]] = nn.constant dense<[1, 0, 1, 2]> : tensor<4xi64>
// CHECK: %[[D0:.*]] = nn.scatter_add %[[P]][%[[R0]]] axis = 0 size = 3 : tensor<4x6xf32>, tensor<4xi64> -> tensor<3x6xf32>
// CHECK: %[[R1:.*]] = nn.constant dense<[0, 1, 2, 3, 2, 1]> : tensor<6xi64>
// CHECK: %[[D1:.*]] = nn.scatter_add %[[D0]][%[[R1]]] axis = 1 size = 4 : tensor<3x6xf32>, tensor<6xi64> -> tensor<3x4xf32>
// CHECK: return %{{.*}}, %[[D1]]
func.func @movement() -> tensor<f32> {
  %x = nn.parameter "x" = dense<1.0> : tensor<3x4xf32>
  %p = nn.pad %x low = [1, 0] high = [0, 2] mode = reflect : tensor<3x4xf32> -> tensor<4x6xf32>
  %s = nn.slice %p offsets = [3, 1] sizes = [2, 3] strides = [-2, 1] : tensor<4x6xf32> -> tensor<2x3xf32>
  %t = nn.trilu %s upper k = 1 : tensor<2x3xf32>
  %l = nn.reduce_sum %t axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A constant pad: g's slice at the input; batch_norm (running statistics)
// gives gradients to the input, scale, bias, mean and variance.
// CHECK-LABEL: func.func @norm
// CHECK-SAME: -> (tensor<f32>, tensor<2x3x4x4xf32> {nn.name = "grad:x"}, tensor<3xf32> {nn.name = "grad:s"}, tensor<3xf32> {nn.name = "grad:b"}, tensor<3xf32> {nn.name = "grad:m"}, tensor<3xf32> {nn.name = "grad:v"})
// CHECK: %[[RSTD:.*]] = nn.rsqrt
// CHECK: %[[SC:.*]] = nn.mul %[[RSTD]], %[[S:.*]] : tensor<3xf32>, tensor<3xf32>
// CHECK: %[[GSUM:.*]] = nn.reduce_sum %[[GY:.*]] axes = [0, 2, 3] : tensor<2x3x6x6xf32> -> tensor<3xf32>
// CHECK: %[[SC1:.*]] = nn.reshape %[[SC]] [1, 3, 1, 1]
// CHECK: %[[GX:.*]] = nn.mul %[[GY]], %[[SC1]]
// CHECK: nn.neg
// CHECK: %[[DX:.*]] = nn.slice %[[GX]] offsets = [0, 0, 1, 0] sizes = [2, 3, 4, 4] strides = [1, 1, 1, 1] : tensor<2x3x6x6xf32> -> tensor<2x3x4x4xf32>
// CHECK: return %{{.*}}, %[[DX]], %{{.*}}, %[[GSUM]],
func.func @norm() -> tensor<f32> {
  %x = nn.parameter "x" = dense<1.0> : tensor<2x3x4x4xf32>
  %s = nn.parameter "s" = dense<1.0> : tensor<3xf32>
  %b = nn.parameter "b" = dense<0.0> : tensor<3xf32>
  %m = nn.parameter "m" = dense<0.0> : tensor<3xf32>
  %v = nn.parameter "v" = dense<1.0> : tensor<3xf32>
  %p = nn.pad %x low = [0, 0, 1, 0] high = [0, 0, 1, 2] value = 0.0 : f32 : tensor<2x3x4x4xf32> -> tensor<2x3x6x6xf32>
  %y = nn.batch_norm %p, %s, %b, %m, %v : tensor<2x3x6x6xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %l = nn.reduce_sum %y axes = [0, 1, 2, 3] : tensor<2x3x6x6xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// nn.max and nn.min give ties to the left operand, except to a constant
// bound: max(x, 0) and a Clip pass no gradient at the bound (PyTorch's relu,
// hardtanh and ReLU6), so the comparisons are strict there.
// CHECK-LABEL: func.func @bounds
// CHECK-DAG: %[[ZERO:.*]] = nn.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SIX:.*]] = nn.constant dense<6.000000e+00> : tensor<f32>
// CHECK: %[[LO:.*]] = nn.max %[[X:.*]], %[[ZERO]]
// CHECK: %[[C:.*]] = nn.min %[[LO]], %[[SIX]]
// CHECK: nn.max %[[C]], %[[Y:.*]] :
// CHECK: nn.compare ge, %[[C]], %[[Y]]
// CHECK: nn.compare lt, %[[LO]], %[[SIX]]
// CHECK: nn.compare gt, %[[X]], %[[ZERO]]
func.func @bounds() -> tensor<f32> {
  %x = nn.parameter "x" = dense<[-1.0, 0.0, 3.0, 6.0]> : tensor<4xf32>
  %y = nn.parameter "y" = dense<[0.0, 0.0, 3.0, 7.0]> : tensor<4xf32>
  %zero = nn.constant dense<0.0> : tensor<f32>
  %six = nn.constant dense<6.0> : tensor<f32>
  %lo = nn.max %x, %zero : tensor<4xf32>, tensor<f32>
  %c = nn.min %lo, %six : tensor<4xf32>, tensor<f32>
  %m = nn.max %c, %y : tensor<4xf32>, tensor<4xf32>
  %l = nn.reduce_sum %m axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
