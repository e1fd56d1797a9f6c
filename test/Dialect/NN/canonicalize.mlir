// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @shape_subgraph
// An exporter's Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain folds
// to a constant target shape.
func.func @shape_subgraph() -> tensor<2xi64> {
  %shape = nn.constant dense<[4, 16, 64]> : tensor<3xi64>
  %i0 = nn.constant dense<0> : tensor<i64>
  %b = nn.gather %shape[%i0] axis = 0 : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %b1 = nn.unsqueeze %b axes = [0] : tensor<i64> -> tensor<1xi64>
  %minus = nn.constant dense<[-1]> : tensor<1xi64>
  %cat = nn.concat %b1, %minus axis = 0 : tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
  // CHECK: %[[C:.*]] = nn.constant dense<[4, -1]> : tensor<2xi64>
  // CHECK-NEXT: return %[[C]]
  return %cat : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @integer_arithmetic
func.func @integer_arithmetic() -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %a = nn.constant dense<[7, -7, 9]> : tensor<3xi64>
  %b = nn.constant dense<2> : tensor<i64>
  %add = nn.add %a, %b : tensor<3xi64>, tensor<i64>
  %sub = nn.sub %a, %b : tensor<3xi64>, tensor<i64>
  %mul = nn.mul %a, %b : tensor<3xi64>, tensor<i64>
  // Division truncates toward zero.
  %div = nn.div %a, %b : tensor<3xi64>, tensor<i64>
  // CHECK-DAG: nn.constant dense<[9, -5, 11]>
  // CHECK-DAG: nn.constant dense<[5, -9, 7]>
  // CHECK-DAG: nn.constant dense<[14, -14, 18]>
  // CHECK-DAG: nn.constant dense<[3, -3, 4]>
  return %add, %sub, %mul, %div : tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// -----

// Integer powers wrap; negative exponents truncate 1 / x^-y, 0 unless
// |x| = 1 (and 0 for x = 0).
// CHECK-LABEL: func.func @integer_power
func.func @integer_power() -> (tensor<4xi8>, tensor<6xi32>) {
  %a = nn.constant dense<[3, -2, 2, 0]> : tensor<4xi8>
  %b = nn.constant dense<[4, 3, 8, 0]> : tensor<4xi8>
  %p = nn.pow %a, %b : tensor<4xi8>, tensor<4xi8>
  %c = nn.constant dense<[1, -1, -1, 2, 0, -3]> : tensor<6xi32>
  %d = nn.constant dense<[-5, -3, -4, -1, -2, 0]> : tensor<6xi32>
  %q = nn.pow %c, %d : tensor<6xi32>, tensor<6xi32>
  // CHECK-DAG: nn.constant dense<[81, -8, 0, 1]> : tensor<4xi8>
  // CHECK-DAG: nn.constant dense<[1, -1, 1, 0, 0, 1]> : tensor<6xi32>
  return %p, %q : tensor<4xi8>, tensor<6xi32>
}

// -----

// CHECK-LABEL: func.func @no_division_by_zero
func.func @no_division_by_zero() -> tensor<2xi32> {
  %a = nn.constant dense<[1, 2]> : tensor<2xi32>
  %z = nn.constant dense<[1, 0]> : tensor<2xi32>
  // CHECK: nn.div
  %d = nn.div %a, %z : tensor<2xi32>, tensor<2xi32>
  return %d : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @float_arithmetic
func.func @float_arithmetic() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xbf16>) {
  %a = nn.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = nn.constant dense<[10.0, 20.0]> : tensor<2xf32>
  // Broadcasting along the leading dimension.
  %add = nn.add %a, %b : tensor<2x2xf32>, tensor<2xf32>
  %x = nn.constant dense<[-1.0, 4.0]> : tensor<2xf32>
  %sqrt = nn.sqrt %x : tensor<2xf32>
  %relu = nn.relu %x : tensor<2xf32>
  %h = nn.constant dense<[1.0, 3.0]> : tensor<2xbf16>
  %half = nn.constant dense<0.5> : tensor<bf16>
  %m = nn.mul %h, %half : tensor<2xbf16>, tensor<bf16>
  // CHECK-DAG: nn.constant dense<{{\[}}[1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
  // CHECK-DAG: nn.constant dense<[0x{{[7F]}}FC00000, 2.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: nn.constant dense<[0.000000e+00, 4.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: nn.constant dense<[5.000000e-01, 1.500000e+00]> : tensor<2xbf16>
  return %add, %sqrt, %relu, %m : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xbf16>
}

// -----

// CHECK-LABEL: func.func @transcendental
func.func @transcendental() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %x = nn.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %e = nn.exp %x : tensor<3xf32>
  %g = nn.gelu %x : tensor<3xf32>
  %s = nn.sigmoid %x : tensor<3xf32>
  // CHECK-DAG: nn.constant dense<[1.000000e+00, 2.71828175, 0.36787945]>
  // CHECK-DAG: nn.constant dense<[0.000000e+00, 0.841344773, -0.158655256]>
  // CHECK-DAG: nn.constant dense<[5.000000e-01, 0.731058597, 0.268941432]>
  return %e, %g, %s : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @compare_where_cast
func.func @compare_where_cast() -> (tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) {
  %a = nn.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
  %b = nn.constant dense<2.0> : tensor<f32>
  // NaN compares false.
  %lt = nn.compare lt, %a, %b : tensor<3xf32>, tensor<f32>
  %w = nn.where %lt, %a, %b : tensor<3xi1>, tensor<3xf32>, tensor<f32>
  %f = nn.constant dense<[-2.7, 0.5, 3.9]> : tensor<3xf32>
  // Float to integer rounds toward zero.
  %i = nn.cast %f : tensor<3xf32> to i32
  %bools = nn.constant dense<[true, false, true]> : tensor<3xi1>
  // i1 true converts to 1, not -1.
  %one = nn.cast %bools : tensor<3xi1> to f32
  // CHECK-DAG: nn.constant dense<[true, false, false]> : tensor<3xi1>
  // CHECK-DAG: nn.constant dense<[1.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<3xf32>
  // CHECK-DAG: nn.constant dense<[-2, 0, 3]> : tensor<3xi32>
  // CHECK-DAG: nn.constant dense<[1.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<3xf32>
  return %lt, %w, %i, %one : tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @data_movement
func.func @data_movement() -> (tensor<3x2xi32>, tensor<2xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<3xi64>, tensor<3x3xf32>) {
  %m = nn.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = nn.transpose %m [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %s = nn.slice %m offsets = [1, 2] sizes = [1, 2] strides = [1, -2] : tensor<2x3xi32> -> tensor<1x2xi32>
  %r = nn.reshape %s [2] : tensor<1x2xi32> -> tensor<2xi32>
  %row = nn.constant dense<[7, 8, 9]> : tensor<3xi32>
  %bc = nn.broadcast_to %row [2, 3] : tensor<3xi32> -> tensor<2x3xi32>
  %idx = nn.constant dense<[1, -1]> : tensor<2xi64>
  %g = nn.gather %m[%idx] axis = 0 : tensor<2x3xi32>, tensor<2xi64> -> tensor<2x3xi32>
  %rng = nn.range 5 to 2 step -1 -> tensor<3xi64>
  %ones = nn.constant dense<1.0> : tensor<3x3xf32>
  %tri = nn.trilu %ones lower k = 0 : tensor<3x3xf32>
  // CHECK-DAG: nn.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
  // CHECK-DAG: nn.constant dense<[6, 4]> : tensor<2xi32>
  // CHECK-DAG: nn.constant dense<{{\[}}[7, 8, 9], [7, 8, 9]]> : tensor<2x3xi32>
  // CHECK-DAG: nn.constant dense<{{\[}}[4, 5, 6], [4, 5, 6]]> : tensor<2x3xi32>
  // CHECK-DAG: nn.constant dense<[5, 4, 3]> : tensor<3xi64>
  // CHECK-DAG: nn.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
  return %t, %r, %bc, %g, %rng, %tri : tensor<3x2xi32>, tensor<2xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<3xi64>, tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<2x3x4xf32>)
func.func @identities(%x: tensor<4x8xf32>, %y: tensor<2x3x4xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x3x2xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = nn.reshape %x [4, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = nn.transpose %x [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = nn.broadcast_to %x [4, 8] : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = nn.slice %x offsets = [0, 0] sizes = [4, 8] strides = [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = nn.cast %x : tensor<4x8xf32> to f32
  %n = nn.neg %x : tensor<4x8xf32>
  %5 = nn.neg %n : tensor<4x8xf32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %6 = nn.mul %x, %one : tensor<4x8xf32>, tensor<f32>
  // transpose(transpose(y)) composes into one transpose.
  %t1 = nn.transpose %y [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %7 = nn.transpose %t1 [2, 0, 1] : tensor<3x2x4xf32> -> tensor<4x3x2xf32>
  // reshape(reshape(x)) is one reshape.
  %r1 = nn.reshape %x [32] : tensor<4x8xf32> -> tensor<32xf32>
  %8 = nn.reshape %r1 [4, 8] : tensor<32xf32> -> tensor<4x8xf32>
  %9 = nn.reduce_sum %x axes = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: %[[T:.*]] = nn.transpose %[[Y]] [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  // CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[T]], %[[X]], %[[X]]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x3x2xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Large tensors are not folded (only splats are).
// CHECK-LABEL: func.func @fold_limit
func.func @fold_limit(%x: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %c = nn.constant dense<2.0> : tensor<512x512xf32>
  // CHECK: %[[E:.*]] = nn.constant dense<7.3890562> : tensor<512x512xf32>
  %e = nn.exp %c : tensor<512x512xf32>
  // CHECK: nn.add %{{.*}}, %[[E]]
  %a = nn.add %x, %e : tensor<512x512xf32>, tensor<512x512xf32>
  return %e, %a : tensor<512x512xf32>, tensor<512x512xf32>
}
