// RUN: loom-opt %s -nn-build-training-step="loss=l optimizer=sgd grad-accum=2" -canonicalize -cse | FileCheck %s --check-prefix=BUILD
// RUN: loom-opt %s -nn-build-training-step="loss=l optimizer=sgd grad-accum=2" -nn-expand-optimizers -dist-unroll-microbatches -canonicalize -cse | FileCheck %s

// The step builds a dist.microbatches loop over the input (twice the
// model's batch): its body is the model on one microbatch and its reverse
// pass, seeded with loss_scale / 2, and yields the gradient and the loss;
// the loop sums them, and the mean loss is the sum times 1/2.
// BUILD: grad_accum = 2, data_inputs = ["x"], batch = 16
// BUILD: func.func @main(%[[X:.*]]: tensor<16x4xf32> {nn.name = "x"}, %{{.*}}: tensor<f32> {nn.name = "train.lr"}, %[[SCALE:.*]]: tensor<f32> {nn.name = "train.loss_scale"})
// BUILD: %[[W:.*]] = nn.parameter "w"
// BUILD: %[[SEED:.*]] = nn.mul %[[SCALE]], %{{.*}} : tensor<f32>, tensor<f32>
// BUILD: %[[SUMS:.*]]:2 = dist.microbatches 2 (%[[XK:.*]] = %[[X]]) : (tensor<16x4xf32>) -> (tensor<4x2xf32>, tensor<f32>) {
// BUILD: nn.matmul %[[XK]], %[[W]] : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
// BUILD: %[[L:.*]] = nn.reduce_mean
// BUILD: nn.reshape %[[SEED]]
// BUILD: %[[G:.*]] = nn.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// BUILD: dist.yield %[[G]], %[[L]] : tensor<4x2xf32>, tensor<f32>
// BUILD: %[[LOSS:.*]] = nn.mul %[[SUMS]]#1, %{{.*}}
// BUILD: nn.mul %[[SUMS]]#0, %{{.*}} : tensor<4x2xf32>, tensor<f32>
// BUILD: nn.sgd_update
// BUILD: return %[[LOSS]]

// Unrolled: the input's microbatch k is rows k, k + 2, ... (so a split of
// the batch over devices stays local); each is differentiated on its own (its activations die before the next
// starts), the gradients add up with seeds loss_scale / 2, and the loss is
// the mean of the two. A sum grows after the unit that makes its value:
// losses after each forward unit, gradients after each backward unit.
// CHECK: grad_accum = 2, data_inputs = ["x"], batch = 16
// CHECK: func.func @main(%[[X:.*]]: tensor<16x4xf32> {nn.name = "x"}
// CHECK: %[[R:.*]] = nn.reshape %[[X]] [8, 2, 4] : tensor<16x4xf32> -> tensor<8x2x4xf32>
// CHECK: nn.slice %[[R]] offsets = [0, 0, 0] sizes = [8, 1, 4]
// CHECK: nn.slice %[[R]] offsets = [0, 1, 0] sizes = [8, 1, 4]
// CHECK: %[[L0:.*]] = nn.reduce_mean
// CHECK: %[[G0:.*]] = nn.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK: %[[L1:.*]] = nn.reduce_mean
// CHECK: %[[LS:.*]] = nn.add %[[L0]], %[[L1]]
// CHECK: %[[G1:.*]] = nn.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK: nn.add %[[G0]], %[[G1]]
// CHECK: %[[LOSS:.*]] = nn.mul %[[LS]], %{{.*}}
// CHECK: return %[[LOSS]]
func.func @main(%x: tensor<8x4xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "l"}) {
  %w = nn.parameter "w" = dense<0.5> : tensor<4x2xf32>
  %y = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %s = nn.mul %y, %y : tensor<8x2xf32>, tensor<8x2xf32>
  %l = nn.reduce_mean %s axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
