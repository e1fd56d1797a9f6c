// RUN: loom-opt %s -split-input-file -verify-diagnostics -o /dev/null
func.func @no_broadcast(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{operand shapes [4, 8] and [4] do not broadcast}}
  %0 = nn.add %a, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @element_types_differ(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error@+1 {{requires the same element type for all operands and results}}
  %0 = nn.mul %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @wrong_result(%a: tensor<8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  %0 = "nn.broadcast_to"(%a) <{shape = array<i64: 4, 8>}> : (tensor<8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @float_only(%a: tensor<4xi32>) {
  // expected-error@+1 {{must be ranked tensor of floating-point values}}
  %0 = nn.exp %a : tensor<4xi32>
  return
}

// -----

func.func @range_types() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{start, limit and delta must have the same type}}
  %0 = "nn.range"() <{start = 0 : i64, limit = 4 : i32, delta = 1 : i64}> : () -> tensor<4xi64>
  return
}

// -----

func.func @range_kind() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{start, limit and delta must be integers or floats}}
  %0 = "nn.range"() <{start = dense<0> : tensor<i64>, limit = dense<4> : tensor<i64>, delta = dense<1> : tensor<i64>}> : () -> tensor<4xi64>
  return
}

// -----

func.func @range_zero_step() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{delta must not be zero}}
  %0 = nn.range 0 to 4 step 0 -> tensor<4xi64>
  return
}

// -----

func.func @range_unsigned() {
  // expected-error@+1 {{result #0 must be ranked tensor of floating-point or signless integer values, but got 'tensor<4xui8>'}}
  %0 = "nn.range"() <{start = 0 : ui8, limit = 4 : ui8, delta = 1 : ui8}> : () -> tensor<4xui8>
  return
}

// -----

func.func @range_zero_float_step() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{delta must not be zero}}
  %0 = nn.range 0.0 to 4.0 step 0.0 -> tensor<4xf32>
  return
}

// -----

func.func @range_overflow() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{range bounds overflow}}
  %0 = nn.range -9223372036854775807 to 9223372036854775807 step 1 -> tensor<4xi64>
  return
}

// -----

func.func @range_int_overflow() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{range bounds overflow}}
  %0 = nn.range 0 to -9223372036854775808 step -1 -> tensor<4xi64>
  return
}

// -----

func.func @range_int_too_long() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{range has more than 2^48 elements}}
  %0 = nn.range 0 to 1000000000000000 step 1 -> tensor<4xi64>
  return
}

// -----

func.func @range_too_long() {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{range has more than 2^48 elements}}
  %0 = nn.range 0.0 to 1.0e30 step 1.0 -> tensor<4xf32>
  return
}

// -----

func.func @range_float_bounds_for_int() {
  // expected-error@+1 {{integer range bounds expected for 'i64'}}
  %0 = nn.range 0.5 to 4 step 1 -> tensor<4xi64>
  return
}

// -----

func.func @range_not_number() {
  // expected-error@+1 {{range bounds must be numbers}}
  %0 = nn.range "a" to 4 step 1 -> tensor<4xi64>
  return
}

// -----

func.func @range_element_type() {
  // expected-error@+1 {{range element type must be an integer or float type, got 'index'}}
  %0 = nn.range 0 to 4 step 1 -> tensor<4xindex>
  return
}

// -----

func.func @cast_target(%a: tensor<4xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of floating-point or 8- to 64-bit integer or 1-bit signless integer or 8-bit float or 4-bit integer values, but got 'tensor<4xindex>'}}
  %0 = nn.cast %a : tensor<4xf32> to index
  return
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{operands must have rank 2 or more, got ranks 1 and 2}}
  %0 = nn.matmul %a, %b : tensor<4xf32>, tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @matmul_k(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{contracting dimensions differ: lhs [4, 8] has 8, rhs [4, 8] has 4}}
  %0 = nn.matmul %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{batch dimensions [2] and [3] do not broadcast}}
  %0 = nn.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @conv_rank(%a: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input (NCHW) and filter (OIHW) must have rank 4}}
  %0 = nn.conv2d %a, %w : tensor<3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_strides(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{strides must hold one positive integer per spatial dimension (2), got [0, 1]}}
  %0 = nn.conv2d %a, %w {strides = array<i64: 0, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{padding must hold two non-negative integers per spatial dimension, all begins then all ends (4), got [1, 1]}}
  %0 = nn.conv2d %a, %w {padding = array<i64: 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_dilations(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{dilations must hold one positive integer per spatial dimension (2), got [1, -1]}}
  %0 = nn.conv2d %a, %w {dilations = array<i64: 1, -1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{groups must be positive, got 0}}
  %0 = nn.conv2d %a, %w {groups = 0 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_channels(%a: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input has 4 channels but the filter expects 3 per group x 1 groups}}
  %0 = nn.conv2d %a, %w : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_out_channels(%a: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{filter has 3 output channels, not divisible by 2 groups}}
  %0 = nn.conv2d %a, %w {groups = 2 : i64} : tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @conv_window(%a: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{window of extent 3 is larger than the padded input extent 2}}
  %0 = nn.conv2d %a, %w : tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv_bias(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{bias must have shape [4], got 'tensor<3xf32>'}}
  %0 = nn.conv2d %a, %w, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @pool_rank(%a: tensor<8x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input must have rank 3 to 5 (N, C and 1 to 3 spatial dimensions), got rank 2}}
  %0 = nn.max_pool %a {kernel = array<i64: 2>} : tensor<8x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @pool_rank_high(%a: tensor<1x1x2x2x2x2xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input must have rank 3 to 5 (N, C and 1 to 3 spatial dimensions), got rank 6}}
  %0 = nn.max_pool %a {kernel = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x2x2x2xf32> -> tensor<1x1x2x2x2x2xf32>
  return
}

// -----

func.func @pool_strides(%a: tensor<1x3x8x8x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{strides must hold one positive integer per spatial dimension (3), got [2, 2]}}
  %0 = nn.max_pool %a {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x8x8x8xf32> -> tensor<1x3x4x4x4xf32>
  return
}

// -----

func.func @pool_padding(%a: tensor<1x3x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{padding must hold two non-negative integers per spatial dimension, all begins then all ends (2), got [1, -1]}}
  %0 = nn.avg_pool %a {kernel = array<i64: 2>, padding = array<i64: 1, -1>} : tensor<1x3x8xf32> -> tensor<1x3x8xf32>
  return
}

// -----

func.func @pool_dilations(%a: tensor<1x3x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{dilations must hold one positive integer per spatial dimension (1), got [0]}}
  %0 = nn.avg_pool %a {kernel = array<i64: 2>, dilations = array<i64: 0>} : tensor<1x3x8xf32> -> tensor<1x3x7xf32>
  return
}

// -----

func.func @pool_kernel(%a: tensor<1x3x8x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{kernel must hold one positive integer per spatial dimension (2), got [2]}}
  %0 = nn.avg_pool %a {kernel = array<i64: 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @max_pool_padding(%a: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{padding must be smaller than the window extent}}
  %0 = nn.max_pool %a {kernel = array<i64: 2, 2>, padding = array<i64: 2, 0, 0, 0>} : tensor<1x3x8x8xf32> -> tensor<1x3x11x8xf32>
  return
}

// -----

// With dilation the window's extent is (kernel - 1) * dilation + 1 = 4, not
// kernel * dilation = 6: a top padding of 4 makes the first window all
// padding.
func.func @max_pool_dilated_padding(%a: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{padding must be smaller than the window extent}}
  %0 = nn.max_pool %a {kernel = array<i64: 2, 1>, dilations = array<i64: 3, 1>, padding = array<i64: 4, 0, 0, 0>} : tensor<1x3x8x8xf32> -> tensor<1x3x9x8xf32>
  return
}

// -----

// nn.max_pool_with_indices checks its window as nn.max_pool does.
func.func @max_pool_with_indices_padding(%a: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{padding must be smaller than the window extent}}
  %0:2 = nn.max_pool_with_indices %a {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x7x9xf32>, tensor<1x3x7x9xi64>
  return
}

// -----

func.func @max_pool_with_indices_rank(%a: tensor<8x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input must have rank 3 to 5 (N, C and 1 to 3 spatial dimensions), got rank 2}}
  %0:2 = nn.max_pool_with_indices %a {kernel = array<i64: 2>} : tensor<8x8xf32> -> tensor<8x4xf32>, tensor<8x4xi64>
  return
}

// -----

// The indices are i64.
func.func @max_pool_with_indices_i32(%a: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<1x3x4x4xi32>'}}
  %0:2 = nn.max_pool_with_indices %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>
  return
}

// -----

// The end padding counts too, along every spatial dimension.
func.func @avg_pool_padding(%a: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{padding must be smaller than the window extent}}
  %0 = nn.avg_pool %a {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x7x9xf32>
  return
}

// -----

func.func @global_pool_rank(%a: tensor<3x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input must have rank 4 (NCHW), got rank 2}}
  %0 = nn.global_avg_pool2d %a : tensor<3x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @reduce_axis_range(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.reduce_sum %a axes = [2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_axis_repeated(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{axis 1 is repeated}}
  %0 = nn.reduce_max %a axes = [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_axes_sorted(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{axes must be sorted}}
  %0 = nn.reduce_mean %a axes = [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return
}

// -----

func.func @softmax_axis(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.softmax %a axis = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_axis(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{axis -1 is out of range for rank 2}}
  %0 = nn.log_softmax %a axis = -1 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_axis(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.layer_norm %a axis = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_scale(%a: tensor<4x8xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{scale must have the normalized shape [8], got [4]}}
  %0 = nn.layer_norm %a scale(%g : tensor<4xf32>) axis = 1 : tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{epsilon must be non-negative}}
  %0 = nn.layer_norm %a axis = 1 {epsilon = -1.0 : f64} : tensor<4x8xf32>
  return
}

// -----

func.func @batch_norm_rank(%a: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error@+1 {{input must have rank 2 or more (N, C, ...)}}
  %0 = nn.batch_norm %a, %c, %c, %c, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_params(%a: tensor<2x4x8x8xf32>, %c: tensor<4xf32>, %v: tensor<3xf32>) {
  // expected-error@+1 {{variance must have shape [4], got 'tensor<3xf32>'}}
  %0 = nn.batch_norm %a, %c, %c, %c, %v : tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_epsilon(%a: tensor<2x4xf32>, %c: tensor<4xf32>) {
  // expected-error@+1 {{epsilon must be non-negative}}
  %0 = nn.batch_norm %a, %c, %c, %c, %c {epsilon = -1.0 : f64} : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @cross_entropy_axis(%l: tensor<4x10xf32>, %t: tensor<4xi64>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{class_axis 2 is out of range for rank 2}}
  %0 = nn.cross_entropy %l, %t class_axis = 2 : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_labels(%l: tensor<4x10xf32>, %t: tensor<10xi64>) {
  // expected-error@+1 {{labels must have the logits' shape without the class axis, [4], got [10]}}
  %0 = nn.cross_entropy %l, %t class_axis = 1 : tensor<4x10xf32>, tensor<10xi64> -> tensor<f32>
  return
}

// -----

func.func @gather_axis(%d: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.gather %d[%i] axis = 2 : tensor<4x8xf32>, tensor<2xi64> -> tensor<4x8xf32>
  return
}

// -----

func.func @gather_constant_index(%d: tensor<4x8xf32>) {
  %i = nn.constant dense<[0, 4]> : tensor<2xi64>
  // expected-error@+1 {{'nn.gather' op index 4 (element 1 of the constant indices) is out of range [-4, 3] for axis 0 of size 4}}
  %0 = nn.gather %d[%i] axis = 0 : tensor<4x8xf32>, tensor<2xi64> -> tensor<2x8xf32>
  return
}

// -----

func.func @gather_constant_negative_index(%d: tensor<4x8xf32>) {
  %i = nn.constant dense<-9> : tensor<3xi32>
  // expected-error@+1 {{index -9 (element 0 of the constant indices) is out of range [-8, 7] for axis 1 of size 8}}
  %0 = nn.gather %d[%i] axis = 1 : tensor<4x8xf32>, tensor<3xi32> -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_add_constant_index(%u: tensor<2x8xf32>) {
  %i = nn.constant dense<[1, -11]> : tensor<2xi64>
  // expected-error@+1 {{'nn.scatter_add' op index -11 (element 1 of the constant indices) is out of range [-10, 9] for axis 0 of size 10}}
  %0 = nn.scatter_add %u[%i] axis = 0 size = 10 : tensor<2x8xf32>, tensor<2xi64> -> tensor<10x8xf32>
  return
}

// -----

func.func @gather_float_indices(%d: tensor<4x8xf32>, %i: tensor<2xf32>) {
  // expected-error@+1 {{must be ranked tensor of 32- or 64-bit integer values}}
  %0 = nn.gather %d[%i] axis = 0 : tensor<4x8xf32>, tensor<2xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @scatter_add_axis(%u: tensor<4x8xf32>, %i: tensor<4x8xi64>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{axis 1 is out of range for rank 1}}
  %0 = nn.scatter_add %u[%i] axis = 1 size = 10 : tensor<4x8xf32>, tensor<4x8xi64> -> tensor<10xf32>
  return
}

// -----

func.func @scatter_add_size(%u: tensor<4x8xf32>, %i: tensor<4xi64>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{size -1 must be non-negative}}
  %0 = nn.scatter_add %u[%i] axis = 0 size = -1 : tensor<4x8xf32>, tensor<4xi64> -> tensor<?x8xf32>
  return
}

// -----

func.func @scatter_add_indices_shape(%u: tensor<4x8xf32>, %i: tensor<8xi64>) {
  // expected-error@+1 {{'nn.scatter_add' op updates must have the indices' shape [8] at dimension 0, got [4]}}
  %0 = nn.scatter_add %u[%i] axis = 0 size = 10 : tensor<4x8xf32>, tensor<8xi64> -> tensor<10x8xf32>
  return
}

// -----

func.func @scatter_add_integer(%u: tensor<4xi32>, %i: tensor<4xi64>) {
  // expected-error@+1 {{must be ranked tensor of floating-point values}}
  %0 = nn.scatter_add %u[%i] axis = 0 size = 10 : tensor<4xi32>, tensor<4xi64> -> tensor<10xi32>
  return
}

// -----

func.func @reshape_negative(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{target shape [-1, 8] must be static and non-negative}}
  %0 = nn.reshape %a [-1, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{cannot reshape [4, 8] (32 elements) to [4, 4] (16 elements)}}
  %0 = nn.reshape %a [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_length(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{permutation [0] must have 2 entries}}
  %0 = nn.transpose %a [0] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @transpose_perm(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{[0, 0] is not a permutation of [0, 2)}}
  %0 = nn.transpose %a [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<4xf32>, %b: tensor<4x1xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input #1 has rank 2, expected 1}}
  %0 = nn.concat %a, %b axis = 0 : tensor<4xf32>, tensor<4x1xf32> -> tensor<8xf32>
  return
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{input #1 has shape [3, 3], which differs from input #0 [2, 3] outside the concatenation axis}}
  %0 = nn.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.concat %a axis = 2 : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_lengths(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{offsets, sizes and strides must have 2 entries each}}
  %0 = nn.slice %a offsets = [0] sizes = [4] strides = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_zero_stride(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{stride of dimension 1 is zero}}
  %0 = nn.slice %a offsets = [0, 0] sizes = [4, 4] strides = [1, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @slice_negative_size(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{size of dimension 0 is negative}}
  %0 = nn.slice %a offsets = [0, 0] sizes = [-1, 4] strides = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @slice_bounds(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{dimension 1 reads indices 6 to 9, outside [0, 8)}}
  %0 = nn.slice %a offsets = [0, 6] sizes = [4, 4] strides = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @split_axis(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{axis 3 is out of range for rank 2}}
  %0:2 = nn.split %a axis = 3 sizes = [2, 2] : tensor<4x8xf32> -> tensor<2x8xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @split_negative(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{split sizes must be non-negative}}
  %0:2 = nn.split %a axis = 0 sizes = [6, -2] : tensor<4x8xf32> -> tensor<6x8xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @split_none(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{needs at least one split size}}
  "nn.split"(%a) <{axis = 0 : i64, sizes = array<i64>}> : (tensor<4x8xf32>) -> ()
  return
}

// -----

func.func @split_sum(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{split sizes add up to 3 but dimension 0 has 4}}
  %0:2 = nn.split %a axis = 0 sizes = [1, 2] : tensor<4x8xf32> -> tensor<1x8xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @broadcast_negative(%a: tensor<8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{target shape [-1, 8] must be static and non-negative}}
  %0 = nn.broadcast_to %a [-1, 8] : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{cannot broadcast rank 2 to the lower rank 1}}
  %0 = nn.broadcast_to %a [8] : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @broadcast_shape(%a: tensor<3xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{cannot broadcast [3] to [4, 8]}}
  %0 = nn.broadcast_to %a [4, 8] : tensor<3xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @squeeze_axis(%a: tensor<1x8xf32>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.squeeze %a axes = [2] : tensor<1x8xf32> -> tensor<1x8xf32>
  return
}

// -----

func.func @squeeze_size(%a: tensor<1x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{cannot squeeze dimension 1 of size 8}}
  %0 = nn.squeeze %a axes = [1] : tensor<1x8xf32> -> tensor<1xf32>
  return
}

// -----

func.func @squeeze_sorted(%a: tensor<1x1xf32>) {
  // expected-error@+1 {{axes must be sorted}}
  %0 = nn.squeeze %a axes = [1, 0] : tensor<1x1xf32> -> tensor<f32>
  return
}

// -----

func.func @unsqueeze_axis(%a: tensor<8xf32>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = nn.unsqueeze %a axes = [2] : tensor<8xf32> -> tensor<8x1xf32>
  return
}

// -----

func.func @unsqueeze_repeated(%a: tensor<8xf32>) {
  // expected-error@+1 {{axis 0 is repeated}}
  %0 = nn.unsqueeze %a axes = [0, 0] : tensor<8xf32> -> tensor<1x1x8xf32>
  return
}

// -----

func.func @unsqueeze_sorted(%a: tensor<8xf32>) {
  // expected-error@+1 {{axes must be sorted}}
  %0 = nn.unsqueeze %a axes = [2, 0] : tensor<8xf32> -> tensor<1x8x1xf32>
  return
}

// -----

func.func @pad_lengths(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{low and high must have 2 entries each}}
  %0 = nn.pad %a low = [0] high = [0, 1] : tensor<4x8xf32> -> tensor<4x9xf32>
  return
}

// -----

func.func @pad_negative(%a: tensor<4x8xf32>) {
  // expected-error@+2 {{failed to infer returned types}}
  // expected-error@+1 {{padding of dimension 1 is negative (use nn.slice to crop)}}
  %0 = nn.pad %a low = [0, -1] high = [0, 0] : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @pad_value_mode(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{a padding value is only allowed in constant mode}}
  %0 = nn.pad %a low = [0, 1] high = [0, 1] mode = edge value = 1.0 : f32 : tensor<4x8xf32> -> tensor<4x10xf32>
  return
}

// -----

func.func @pad_reflect(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{reflect padding of dimension 0 must be smaller than its size 4}}
  %0 = nn.pad %a low = [4, 0] high = [0, 0] mode = reflect : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @pad_edge_empty(%a: tensor<0x8xf32>) {
  // expected-error@+1 {{cannot edge-pad the empty dimension 0}}
  %0 = nn.pad %a low = [1, 0] high = [0, 0] mode = edge : tensor<0x8xf32> -> tensor<1x8xf32>
  return
}

// -----

func.func @pad_wrap_empty(%a: tensor<4x0xi32>) {
  // expected-error@+1 {{cannot wrap-pad the empty dimension 1}}
  %0 = nn.pad %a low = [0, 0] high = [0, 2] mode = wrap : tensor<4x0xi32> -> tensor<4x2xi32>
  return
}

// -----

func.func @pad_value_type(%a: tensor<4x8xf32>) {
  // expected-error@+1 {{padding value type 'i32' differs from the element type 'f32'}}
  %0 = nn.pad %a low = [0, 1] high = [0, 1] value = 0 : i32 : tensor<4x8xf32> -> tensor<4x10xf32>
  return
}

// -----

func.func @trilu_rank(%a: tensor<8xf32>) {
  // expected-error@+1 {{input must have rank 2 or more}}
  %0 = nn.trilu %a lower k = 0 : tensor<8xf32>
  return
}

// -----

func.func @trilu_kind(%a: tensor<8x8xf32>) {
  // expected-error@+1 {{expected 'upper' or 'lower'}}
  %0 = nn.trilu %a diagonal k = 0 : tensor<8x8xf32>
  return
}

// -----

func.func @where_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error@+1 {{on_true and on_false must have the same element type}}
  %0 = nn.where %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @compare_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error@+1 {{requires the same element type for all operands}}
  %0 = nn.compare lt, %a, %b : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @parameter_name() {
  // expected-error@+1 {{needs a non-empty name}}
  %0 = nn.parameter "" = dense<1.0> : tensor<2xf32>
  return
}

// -----

func.func @parameter_int() {
  // expected-error@+1 {{result #0 must be ranked tensor of floating-point values}}
  %0 = nn.parameter "steps" = dense<1> : tensor<2xi64>
  return
}

// -----

// expected-error@+1 {{'nn.name' on argument #0 must be a string}}
func.func @name_kind(%x: tensor<4xf32> {nn.name = 3}) {
  return
}

// -----

// expected-error@+1 {{unknown nn attribute 'nn.label' on result #0}}
func.func private @name_unknown() -> (tensor<4xf32> {nn.label = "y"})

// -----

// expected-error@+1 {{'nn.parameter' on argument #1 must be a string}}
func.func private @weightless_kind(tensor<4xf32>, tensor<4xf32> {nn.parameter = 3})

// -----

// expected-error@+1 {{'nn.parameter' on argument #0 needs a non-empty name}}
func.func @weightless_empty(%w: tensor<4xf32> {nn.parameter = ""}) {
  return
}

// -----

// expected-error@+1 {{parameter 'steps' (argument #0) must be a ranked tensor of f16, bf16, f32 or f64, not 'tensor<2xi64>'}}
func.func @weightless_int(%w: tensor<2xi64> {nn.parameter = "steps"}) {
  return
}

// -----

// expected-error@+1 {{parameter 'w' (argument #0) must be a ranked tensor of f16, bf16, f32 or f64, not 'tensor<*xf32>'}}
func.func @weightless_unranked(%w: tensor<*xf32> {nn.parameter = "w"}) {
  return
}

// -----

// expected-error@+1 {{'nn.parameter' on argument #0 applies to func.func arguments only}}
llvm.func @weightless_llvm(f32 {nn.parameter = "w"})

// -----

// expected-error@+1 {{unknown nn attribute 'nn.parameter' on result #0}}
func.func private @weightless_result() -> (tensor<4xf32> {nn.parameter = "w"})

// -----

// expected-error@+1 {{'nn.immutable' on argument #0 is a unit attribute}}
func.func private @immutable_kind(tensor<4xf32> {nn.immutable = 1})

// -----

func.func @update_misplaced(%x: tensor<4xf32>) {
  // expected-error@+1 {{'nn.update' belongs on nn.parameter ops}}
  %0 = nn.relu %x {nn.update = "update:x"} : tensor<4xf32>
  return
}

// -----

func.func @update_empty() {
  // expected-error@+1 {{'nn.update' must name the result that replaces the parameter}}
  %0 = nn.parameter "w" {nn.update = ""} = dense<0.0> : tensor<4xf32>
  return
}

// -----

func.func @zero_init_misplaced(%x: tensor<4xf32>) {
  // expected-error@+1 {{'nn.zero_init' belongs on nn.parameter ops}}
  %0 = nn.relu %x {nn.zero_init} : tensor<4xf32>
  return
}

// -----

func.func @zero_init_kind() {
  // expected-error@+1 {{'nn.zero_init' is a unit attribute}}
  %0 = nn.parameter "m" {nn.zero_init = "zeros"} = dense<0.0> : tensor<4xf32>
  return
}

// -----

// expected-error@+1 {{'nn.training' belongs on the module}}
func.func @training_on_function() attributes {nn.training = #nn.training<loss = "loss", grad_norm = "n", optimizer = sgd, lr = 0.1, lr_schedule = constant, data_inputs = []>} {
  return
}

// -----

// expected-error@+1 {{'nn.training' must be a #nn.training}}
module attributes {nn.training = {loss = "loss"}} {
}

// -----

// expected-error@+1 {{the learning rate must be positive}}
module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "n", optimizer = sgd, lr = 0, lr_schedule = constant, data_inputs = []>} {
}

// -----

// expected-error@+1 {{a training step names its loss and gradient-norm results}}
module attributes {nn.training = #nn.training<loss = "", grad_norm = "n", optimizer = sgd, lr = 0.1, lr_schedule = constant, data_inputs = []>} {
}

// -----

// expected-error@+1 {{grad_accum must be positive and zero in [0, 3]}}
module attributes {nn.training = #nn.training<loss = "l", grad_norm = "n", optimizer = adamw, lr = 0.1, lr_schedule = constant, grad_accum = 0, data_inputs = []>} {
}

// -----

// expected-error@+1 {{data_inputs must be an array of input names}}
module attributes {nn.training = #nn.training<loss = "l", grad_norm = "n", optimizer = adamw, lr = 0.1, lr_schedule = constant, data_inputs = [1]>} {
}

// -----

func.func @name_on_op(%x: tensor<4xf32>) {
  // expected-error@+1 {{'nn.name' belongs on function arguments or results}}
  %0 = nn.relu %x {nn.name = "y"} : tensor<4xf32>
  return
}

// -----

func.func @unknown_op_attr(%x: tensor<4xf32>) {
  // expected-error@+1 {{unknown nn attribute 'nn.colour'}}
  %0 = nn.relu %x {nn.colour = "red"} : tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum_range(%w: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{momentum must be in [0, 1), not 1.0}}
  %0, %1 = nn.sgd_update %w, %w momentum_buffer(%w) lr(%lr) momentum = 1.0 : tensor<4xf32>
  return
}

// -----

func.func @sgd_buffer_without_momentum(%w: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{takes a momentum buffer exactly when momentum > 0 (momentum = 0.0)}}
  %0, %1 = nn.sgd_update %w, %w momentum_buffer(%w) lr(%lr) : tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum_without_buffer(%w: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{takes a momentum buffer exactly when momentum > 0 (momentum = 0.5)}}
  %0 = nn.sgd_update %w, %w lr(%lr) momentum = 0.5 : tensor<4xf32>
  return
}

// -----

func.func @sgd_weight_decay(%w: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{weight_decay must not be negative, not -0.1}}
  %0 = nn.sgd_update %w, %w lr(%lr) weight_decay = -0.1 : tensor<4xf32>
  return
}

// -----

func.func @sgd_grad_type(%w: tensor<4xf32>, %g: tensor<2x2xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{failed to verify that the gradient has the parameter's type}}
  %0 = "nn.sgd_update"(%w, %g, %lr) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_lr_type(%w: tensor<4xf32>, %lr: tensor<1xf32>) {
  // expected-error@+1 {{failed to verify that lr is a scalar of the parameter's element type}}
  %0 = "nn.sgd_update"(%w, %w, %lr) <{operandSegmentSizes = array<i32: 1, 1, 0, 1, 0>}> : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @adamw_betas(%w: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{beta1 and beta2 must be in [0, 1), not 0.9 and 1.0}}
  %0, %1, %2 = nn.adamw_update %w, %w state(%w, %w) lr(%s) bias_correction(%s, %s) beta2 = 1.0 : tensor<4xf32>
  return
}

// -----

func.func @adamw_eps(%w: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{eps must be positive, not 0.0}}
  %0, %1, %2 = nn.adamw_update %w, %w state(%w, %w) lr(%s) bias_correction(%s, %s) eps = 0.0 : tensor<4xf32>
  return
}

// -----

func.func @adamw_weight_decay(%w: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{weight_decay must not be negative, not -1}}
  %0, %1, %2 = nn.adamw_update %w, %w state(%w, %w) lr(%s) bias_correction(%s, %s) weight_decay = -1.0 : tensor<4xf32>
  return
}

// -----

func.func @adamw_state_type(%w: tensor<4xf32>, %m: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error@+1 {{failed to verify that all of {param, exp_avg, exp_avg_sq} have same type}}
  %0:3 = "nn.adamw_update"(%w, %w, %m, %w, %s, %s, %s) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
