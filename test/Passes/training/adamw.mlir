// RUN: loom-opt %s -nn-build-training-step="loss=cross_entropy logits=logits labels=y optimizer=adamw weight-decay=0.1 clip-grad-norm=1.0 lr-schedule=cosine warmup=10 decay-steps=100" -canonicalize -cse | FileCheck %s --check-prefix=BUILD
// RUN: loom-opt %s -nn-build-training-step="loss=cross_entropy logits=logits labels=y optimizer=adamw weight-decay=0.1 clip-grad-norm=1.0 lr-schedule=cosine warmup=10 decay-steps=100" -nn-expand-optimizers -canonicalize -cse | FileCheck %s

// Cross entropy against a new integer input, clipping by the global norm and
// AdamW as torch.optim.AdamW computes it: the step reads the unscaled
// gradient, its state, the step's scalars and the clipping coefficient in
// one nn.adamw_update, which -nn-expand-optimizers turns into the formula.
// BUILD: func.func @main(%{{.*}}: tensor<8x4xf32> {nn.name = "x"}, %{{.*}}: tensor<8xi64> {nn.name = "y"}, %[[LR:.*]]: tensor<f32> {nn.name = "train.lr"}, %[[SCALE:.*]]: tensor<f32> {nn.name = "train.loss_scale"}, %[[BC1:.*]]: tensor<f32> {nn.name = "train.bias_correction1"}, %[[BC2:.*]]: tensor<f32> {nn.name = "train.bias_correction2"})
// BUILD-DAG: %[[W:.*]] = nn.parameter "w" {nn.update = "update:w"}
// BUILD-DAG: %[[V:.*]] = nn.parameter "adamw.v:w" {nn.update = "update:adamw.v:w", nn.zero_init}
// BUILD-DAG: %[[M:.*]] = nn.parameter "adamw.m:w" {nn.update = "update:adamw.m:w", nn.zero_init}
// BUILD: %[[INV:.*]] = nn.div %{{.*}}, %[[SCALE]]
// BUILD: %[[G:.*]] = nn.mul %{{.*}}, %[[INV]] : tensor<4x3xf32>, tensor<f32>
// BUILD: %[[NORM:.*]] = nn.sqrt
// BUILD: %[[COEF:.*]] = nn.min
// BUILD: %[[NW:.*]], %[[NM:.*]], %[[NV:.*]] = nn.adamw_update %[[W]], %[[G]] state(%[[M]], %[[V]]) lr(%[[LR]]) bias_correction(%[[BC1]], %[[BC2]]) clip(%[[COEF]]) weight_decay = 0.1 : tensor<4x3xf32>
// BUILD: return %{{.*}}, %[[NORM]], %[[NM]], %[[NV]], %[[NW]]
// CHECK: nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = adamw, lr = 0.001, weight_decay = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1.0E-8, lr_schedule = cosine, warmup = 10, decay_steps = 100, clip_grad_norm = 1, data_inputs = ["x", "y"], labels = "y", num_classes = 3, batch = 8, flops_per_step = {{[0-9]+}}>
// CHECK: func.func @main(%[[X:.*]]: tensor<8x4xf32> {nn.name = "x"}, %[[Y:.*]]: tensor<8xi64> {nn.name = "y"}, %[[LR:.*]]: tensor<f32> {nn.name = "train.lr"}, %{{.*}}: tensor<f32> {nn.name = "train.loss_scale"}, %[[BC1:.*]]: tensor<f32> {nn.name = "train.bias_correction1"}, %[[BC2:.*]]: tensor<f32> {nn.name = "train.bias_correction2"})
// CHECK-SAME: tensor<4x3xf32> {nn.name = "update:adamw.m:w"}, tensor<4x3xf32> {nn.name = "update:adamw.v:w"}, tensor<4x3xf32> {nn.name = "update:w"})
// CHECK-DAG: %[[M:.*]] = nn.parameter "adamw.m:w" {nn.update = "update:adamw.m:w", nn.zero_init}
// CHECK-DAG: %[[V:.*]] = nn.parameter "adamw.v:w" {nn.update = "update:adamw.v:w", nn.zero_init}
// CHECK-DAG: %[[W:.*]] = nn.parameter "w" {nn.update = "update:w"}
// The loss: sums over the positions whose label is not -100.
// CHECK: %[[LOGP:.*]] = nn.log_softmax %{{.*}} axis = 1
// CHECK: nn.compare eq
// CHECK: nn.compare ne, %[[Y]]
// Clipping: coef = min(1, max_norm / (norm + 1e-6)).
// CHECK: %[[NORM:.*]] = nn.sqrt
// CHECK: %[[D:.*]] = nn.add %[[NORM]], %{{.*}}
// CHECK: %[[Q:.*]] = nn.div %{{.*}}, %[[D]]
// CHECK: %[[COEF:.*]] = nn.min %[[Q]], %{{.*}}
// CHECK: %[[G:.*]] = nn.mul %{{.*}}, %[[COEF]]
// p *= 1 - lr * wd
// CHECK: %[[LRWD:.*]] = nn.mul %[[LR]], %{{.*}}
// CHECK: %[[KEEP:.*]] = nn.sub %{{.*}}, %[[LRWD]]
// CHECK: %[[PW:.*]] = nn.mul %[[W]], %[[KEEP]]
// m.lerp_(g, 1 - beta1); v = beta2 * v + (1 - beta2) * g * g
// CHECK: %[[GM:.*]] = nn.sub %[[G]], %[[M]]
// CHECK: %[[GM1:.*]] = nn.mul %[[GM]], %{{.*}}
// CHECK: %[[NM:.*]] = nn.add %[[M]], %[[GM1]]
// CHECK: %[[GG:.*]] = nn.mul %[[G]], %[[G]]
// CHECK: %[[GG1:.*]] = nn.mul %[[GG]], %{{.*}}
// CHECK: %[[VB:.*]] = nn.mul %[[V]], %{{.*}}
// CHECK: %[[NV:.*]] = nn.add %[[VB]], %[[GG1]]
// p -= (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps)
// CHECK: %[[SS:.*]] = nn.div %[[LR]], %[[BC1]]
// CHECK: %[[SB:.*]] = nn.sqrt %[[BC2]]
// CHECK: %[[SV:.*]] = nn.sqrt %[[NV]]
// CHECK: %[[DV:.*]] = nn.div %[[SV]], %[[SB]]
// CHECK: %[[DEN:.*]] = nn.add %[[DV]], %{{.*}}
// CHECK: %[[R:.*]] = nn.div %[[NM]], %[[DEN]]
// CHECK: %[[U:.*]] = nn.mul %[[R]], %[[SS]]
// CHECK: %[[NW:.*]] = nn.sub %[[PW]], %[[U]]
// CHECK: return %{{.*}}, %[[NORM]], %[[NM]], %[[NV]], %[[NW]]
func.func @main(%x: tensor<8x4xf32> {nn.name = "x"}) -> (tensor<8x3xf32> {nn.name = "logits"}) {
  %w = nn.parameter "w" = dense<0.5> : tensor<4x3xf32>
  %y = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  return %y : tensor<8x3xf32>
}
