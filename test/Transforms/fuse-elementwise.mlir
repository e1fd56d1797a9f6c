// RUN: loom-opt %s -loom-fuse-elementwise | FileCheck %s

// An elementwise producer read once per element fuses into its consumer:
// exp is computed inside the sum.
// CHECK-LABEL: func.func @exp_then_sum(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf32>)
// CHECK:           %[[E:.*]] = math.exp
// CHECK:           arith.addf %[[E]]
// CHECK-NOT:     linalg.generic
// CHECK:         return

// A matmul keeps its operands: fusing exp into it would recompute exp for
// every output column and take the product away from the GEMM kernel.
// CHECK-LABEL: func.func @exp_then_matmul(
// CHECK:         %[[EXP:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.matmul ins(%[[EXP]],

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @exp_then_sum(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<4xf32>
  %s1 = linalg.fill ins(%z : f32) outs(%s0 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x8xf32>) outs(%s1 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @exp_then_matmul(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<4x2xf32>
  %c1 = linalg.fill ins(%z : f32) outs(%c0 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %m = linalg.matmul ins(%e, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c1 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %m : tensor<4x2xf32>
}
