// RUN: loom-opt %s -nn-build-training-step="loss=l optimizer=sgd lr=0.5 momentum=0.9 weight-decay=0.01 freeze=frozen" -canonicalize | FileCheck %s --check-prefix=BUILD
// RUN: loom-opt %s -nn-build-training-step="loss=l optimizer=sgd lr=0.5 momentum=0.9 weight-decay=0.01 freeze=frozen" -nn-expand-optimizers -canonicalize | FileCheck %s

// SGD with momentum and L2 weight decay, as torch.optim.SGD: the step takes
// the scalars lr and loss_scale, returns loss, grad norm and one update per
// trained tensor (the momentum buffer is new zero-initialised state); a
// frozen parameter gets no gradient and no update. The step builds one
// nn.sgd_update, which -nn-expand-optimizers turns into the formula.
// BUILD: func.func @main(%{{.*}}: tensor<8x4xf32> {nn.name = "x"}, %[[LR:.*]]: tensor<f32> {nn.name = "train.lr"}, %{{.*}}: tensor<f32> {nn.name = "train.loss_scale"})
// BUILD-DAG: %[[W:.*]] = nn.parameter "w" {nn.update = "update:w"}
// BUILD-DAG: %[[BUF:.*]] = nn.parameter "sgd.momentum:w" {nn.update = "update:sgd.momentum:w", nn.zero_init}
// BUILD: %[[G:.*]] = nn.mul %{{.*}}, %{{.*}} : tensor<4x2xf32>, tensor<f32>
// BUILD: %[[NORM:.*]] = nn.sqrt
// BUILD: %[[NW:.*]], %[[NB:.*]] = nn.sgd_update %[[W]], %[[G]] momentum_buffer(%[[BUF]]) lr(%[[LR]]) momentum = 0.9 weight_decay = 0.01 : tensor<4x2xf32>
// BUILD-NOT: nn.sgd_update
// BUILD: return %{{.*}}, %[[NORM]], %[[NB]], %[[NW]]
// CHECK: module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = sgd, lr = 0.5, weight_decay = 0.01, momentum = 0.9, lr_schedule = constant, data_inputs = ["x"], batch = 8, flops_per_step = {{[0-9]+}}>}
// CHECK: func.func @main(%[[X:.*]]: tensor<8x4xf32> {nn.name = "x"}, %[[LR:.*]]: tensor<f32> {nn.name = "train.lr"}, %[[SCALE:.*]]: tensor<f32> {nn.name = "train.loss_scale"})
// CHECK-SAME: -> (tensor<f32> {nn.name = "loss"}, tensor<f32> {nn.name = "train.grad_norm"}, tensor<4x2xf32> {nn.name = "update:sgd.momentum:w"}, tensor<4x2xf32> {nn.name = "update:w"})
// CHECK-DAG: %[[W:.*]] = nn.parameter "w" {nn.update = "update:w"}
// CHECK-DAG: %[[BUF:.*]] = nn.parameter "sgd.momentum:w" {nn.update = "update:sgd.momentum:w", nn.zero_init} = dense<0.000000e+00> : tensor<4x2xf32>
// CHECK-DAG: nn.parameter "frozen" = dense<1.000000e+00> : tensor<2xf32>
// The gradient, unscaled, then its norm.
// CHECK: %[[G:.*]] = nn.mul %{{.*}}, %{{.*}} : tensor<4x2xf32>, tensor<f32>
// CHECK: %[[SQ:.*]] = nn.mul %[[G]], %[[G]]
// CHECK: %[[SUM:.*]] = nn.reduce_sum %[[SQ]] axes = [0, 1]
// CHECK: %[[NORM:.*]] = nn.sqrt %[[SUM]]
// d_p = g + wd * p; buf = momentum * buf + d_p; p = p - lr * buf
// CHECK: %[[WD:.*]] = nn.mul %[[W]], %{{.*}} : tensor<4x2xf32>, tensor<f32>
// CHECK: %[[DP:.*]] = nn.add %[[G]], %[[WD]]
// CHECK: %[[MB:.*]] = nn.mul %[[BUF]], %{{.*}} : tensor<4x2xf32>, tensor<f32>
// CHECK: %[[NB:.*]] = nn.add %[[MB]], %[[DP]]
// CHECK: %[[STEP:.*]] = nn.mul %[[NB]], %[[LR]]
// CHECK: %[[NW:.*]] = nn.sub %[[W]], %[[STEP]]
// CHECK: return %{{.*}}, %[[NORM]], %[[NB]], %[[NW]]
func.func @main(%x: tensor<8x4xf32> {nn.name = "x"}) -> (tensor<8x2xf32> {nn.name = "y"}, tensor<f32> {nn.name = "l"}) {
  %w = nn.parameter "w" = dense<0.5> : tensor<4x2xf32>
  %f = nn.parameter "frozen" = dense<1.0> : tensor<2xf32>
  %y = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %z = nn.add %y, %f : tensor<8x2xf32>, tensor<2xf32>
  %s = nn.mul %z, %z : tensor<8x2xf32>, tensor<8x2xf32>
  %l = nn.reduce_mean %s axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %y, %l : tensor<8x2xf32>, tensor<f32>
}
