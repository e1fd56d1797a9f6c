// RUN: loom-opt %s -loom-fuse-elementwise | FileCheck %s --check-prefix=ALL
// RUN: loom-opt %s "-loom-fuse-elementwise=max-body-ops=4" | FileCheck %s --check-prefix=CAP

// A chain of four elementwise ops fuses into one kernel by default. With the
// fused body capped at 4 operations (two ops and the yield of 2-op bodies
// make 3; a third op would make 5), the chain becomes two kernels of two
// ops each: fusing long chains stays linear in their length.
// ALL-LABEL: func.func @chain(
// ALL:         linalg.generic
// ALL:           math.exp
// ALL:           arith.addf
// ALL:           math.exp
// ALL:           arith.mulf
// ALL-NOT:     linalg.generic
// ALL:         return

// CAP-LABEL: func.func @chain(
// CAP:         %[[A:.*]] = linalg.generic
// CAP:           math.exp
// CAP-NEXT:      arith.addf
// CAP-NEXT:      linalg.yield
// CAP:         linalg.generic {{.*}} ins(%[[A]], %{{.*}} :
// CAP:           math.exp
// CAP-NEXT:      arith.mulf
// CAP-NEXT:      linalg.yield
// CAP-NOT:     linalg.generic
// CAP:         return

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %c : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in1: f32, %out: f32):
    %r = arith.addf %in, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %c : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e3 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in1: f32, %out: f32):
    %r = arith.mulf %in, %in1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
