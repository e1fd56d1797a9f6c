// RUN: loom-opt %s -loom-untie-inits | FileCheck %s

// Two generics write one (CSE-merged) zero fill: each gets its own fill of
// its own empty tensor, so that bufferization need not copy before either
// writes.
// CHECK-LABEL: func.func @shared_fill(
// CHECK-DAG:     %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-DAG:     %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-DAG:     %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4xf32>)
// CHECK-DAG:     %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4xf32>)
// CHECK-DAG:     linalg.generic {{.*}} outs(%[[F1]] : tensor<4xf32>)
// CHECK-DAG:     linalg.generic {{.*}} outs(%[[F2]] : tensor<4xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @shared_fill(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
