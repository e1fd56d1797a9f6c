// RUN: loom-opt %s -nn-build-training-step="loss=l optimizer=sgd grad-accum=2" -canonicalize -cse | FileCheck %s

// Two microbatches: the input takes twice the model's batch, microbatch k is
// rows k, k + 2, ... (so a split of the batch over devices stays local);
// each is differentiated on its own (its activations die before the next
// starts), the gradients add up with seeds loss_scale / 2, and the loss is
// the mean of the two.
// CHECK: grad_accum = 2, data_inputs = ["x"], batch = 16
// CHECK: func.func @main(%[[X:.*]]: tensor<16x4xf32> {nn.name = "x"}
// CHECK: %[[R:.*]] = nn.reshape %[[X]] [8, 2, 4] : tensor<16x4xf32> -> tensor<8x2x4xf32>
// CHECK: nn.slice %[[R]] offsets = [0, 0, 0] sizes = [8, 1, 4]
// CHECK: nn.slice %[[R]] offsets = [0, 1, 0] sizes = [8, 1, 4]
// CHECK: %[[L0:.*]] = nn.reduce_mean
// CHECK: %[[G0:.*]] = nn.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK: %[[L1:.*]] = nn.reduce_mean
// CHECK: %[[G1:.*]] = nn.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
// CHECK: nn.add %[[G0]], %[[G1]]
// CHECK: %[[LS:.*]] = nn.add %[[L0]], %[[L1]]
// CHECK: %[[LOSS:.*]] = nn.mul %[[LS]], %{{.*}}
// CHECK: return %[[LOSS]]
func.func @main(%x: tensor<8x4xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "l"}) {
  %w = nn.parameter "w" = dense<0.5> : tensor<4x2xf32>
  %y = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %s = nn.mul %y, %y : tensor<8x2xf32>, tensor<8x2xf32>
  %l = nn.reduce_mean %s axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
