// RUN: loom-opt %s -nn-expand-optimizers -split-input-file | FileCheck %s

// SGD with clipping, L2 weight decay and momentum, in torch.optim.SGD's
// order: d = g c + p wd; buf = buf momentum + d; p - buf lr.
// CHECK-LABEL: func.func @sgd
// CHECK-SAME: (%[[W:.*]]: tensor<4x2xf32>, %[[G:.*]]: tensor<4x2xf32>, %[[B:.*]]: tensor<4x2xf32>, %[[LR:.*]]: tensor<f32>, %[[C:.*]]: tensor<f32>)
// CHECK: %[[GC:.*]] = nn.mul %[[G]], %[[C]]
// CHECK: %[[WDC:.*]] = nn.constant dense<0.00999999977> : tensor<f32>
// CHECK: %[[WD:.*]] = nn.mul %[[W]], %[[WDC]]
// CHECK: %[[D:.*]] = nn.add %[[GC]], %[[WD]]
// CHECK: %[[MC:.*]] = nn.constant dense<0.899999976> : tensor<f32>
// CHECK: %[[MB:.*]] = nn.mul %[[B]], %[[MC]]
// CHECK: %[[NB:.*]] = nn.add %[[MB]], %[[D]]
// CHECK: %[[S:.*]] = nn.mul %[[NB]], %[[LR]]
// CHECK: %[[NW:.*]] = nn.sub %[[W]], %[[S]]
// CHECK-NOT: nn.sgd_update
// CHECK: return %[[NW]], %[[NB]]
func.func @sgd(%w: tensor<4x2xf32>, %g: tensor<4x2xf32>, %b: tensor<4x2xf32>, %lr: tensor<f32>, %c: tensor<f32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0, %1 = nn.sgd_update %w, %g momentum_buffer(%b) lr(%lr) clip(%c) momentum = 0.9 weight_decay = 0.01 : tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Plain SGD: p - g lr.
// CHECK-LABEL: func.func @plain_sgd
// CHECK-NEXT: %[[S:.*]] = nn.mul %arg1, %arg2
// CHECK-NEXT: %[[NW:.*]] = nn.sub %arg0, %[[S]]
// CHECK-NEXT: return %[[NW]]
func.func @plain_sgd(%w: tensor<8xf32>, %g: tensor<8xf32>, %lr: tensor<f32>) -> tensor<8xf32> {
  %0 = nn.sgd_update %w, %g lr(%lr) : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// AdamW as torch.optim.AdamW: p (1 - lr wd); m + (g - m)(1 - beta1);
// v beta2 + g g (1 - beta2); p - m / (sqrt(v) / sqrt(bc2) + eps) (lr / bc1).
// CHECK-LABEL: func.func @adamw
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf32>, %[[G:.*]]: tensor<4x3xf32>, %[[M:.*]]: tensor<4x3xf32>, %[[V:.*]]: tensor<4x3xf32>, %[[LR:.*]]: tensor<f32>, %[[BC1:.*]]: tensor<f32>, %[[BC2:.*]]: tensor<f32>)
// CHECK: %[[LRWD:.*]] = nn.mul %[[LR]], %{{.*}}
// CHECK: %[[KEEP:.*]] = nn.sub %{{.*}}, %[[LRWD]]
// CHECK: %[[PW:.*]] = nn.mul %[[W]], %[[KEEP]]
// CHECK: %[[GM:.*]] = nn.sub %[[G]], %[[M]]
// CHECK: %[[GM1:.*]] = nn.mul %[[GM]], %{{.*}}
// CHECK: %[[NM:.*]] = nn.add %[[M]], %[[GM1]]
// CHECK: %[[GG:.*]] = nn.mul %[[G]], %[[G]]
// CHECK: %[[GG1:.*]] = nn.mul %[[GG]], %{{.*}}
// CHECK: %[[VB:.*]] = nn.mul %[[V]], %{{.*}}
// CHECK: %[[NV:.*]] = nn.add %[[VB]], %[[GG1]]
// CHECK: %[[SS:.*]] = nn.div %[[LR]], %[[BC1]]
// CHECK: %[[SB:.*]] = nn.sqrt %[[BC2]]
// CHECK: %[[SV:.*]] = nn.sqrt %[[NV]]
// CHECK: %[[DV:.*]] = nn.div %[[SV]], %[[SB]]
// CHECK: %[[DEN:.*]] = nn.add %[[DV]], %{{.*}}
// CHECK: %[[R:.*]] = nn.div %[[NM]], %[[DEN]]
// CHECK: %[[U:.*]] = nn.mul %[[R]], %[[SS]]
// CHECK: %[[NW:.*]] = nn.sub %[[PW]], %[[U]]
// CHECK: return %[[NW]], %[[NM]], %[[NV]]
func.func @adamw(%w: tensor<4x3xf32>, %g: tensor<4x3xf32>, %m: tensor<4x3xf32>, %v: tensor<4x3xf32>, %lr: tensor<f32>, %bc1: tensor<f32>, %bc2: tensor<f32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0, %1, %2 = nn.adamw_update %w, %g state(%m, %v) lr(%lr) bias_correction(%bc1, %bc2) weight_decay = 0.1 : tensor<4x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}
