// RUN: loom-opt %s -nn-build-training-step="loss=l optimizer=sgd lr=0.5" 2>&1 | FileCheck %s

// What a training step trains. BatchNorm's scale and bias are trained. A
// running statistic that only an inference-mode nn.batch_norm reads is a
// buffer: no gradient, no update. A parameter whose new value is a result
// named "state:NAME" (BatchNorm in training mode) is updated to that value,
// not by the optimizer. A parameter the loss does not depend on is left
// alone, with a warning, as PyTorch leaves a parameter without a gradient.
// CHECK: warning: parameter 'unused' does not affect the loss: it is not trained
// CHECK: func.func @main
// CHECK-SAME: {nn.name = "update:bn.weight"}
// CHECK-SAME: {nn.name = "update:bn.bias"}
// CHECK-SAME: {nn.name = "update:bn.running_mean"}
// CHECK-NOT: update:bn.running_var
// CHECK-NOT: update:unused
// CHECK-DAG: nn.parameter "bn.running_var" = dense
// CHECK-DAG: nn.parameter "unused" = dense
// CHECK-DAG: %[[M:.*]] = nn.parameter "bn.running_mean" {nn.update = "update:bn.running_mean"}
// CHECK: %[[NEW:.*]] = nn.mul %[[M]], %{{.*}} : tensor<2xf32>, tensor<f32>
// CHECK-NOT: nn.sgd_update %[[M]]
// CHECK: return {{.*}}, %[[NEW]] :
func.func @main(%x: tensor<4x2x3xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "l"}, tensor<2xf32> {nn.name = "state:bn.running_mean"}, tensor<3xf32> {nn.name = "other"}) {
  %g = nn.parameter "bn.weight" = dense<[1.0, 2.0]> : tensor<2xf32>
  %b = nn.parameter "bn.bias" = dense<[0.5, 0.25]> : tensor<2xf32>
  %m = nn.parameter "bn.running_mean" = dense<[0.0, 0.5]> : tensor<2xf32>
  %v = nn.parameter "bn.running_var" = dense<[1.0, 2.0]> : tensor<2xf32>
  %u = nn.parameter "unused" = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = nn.batch_norm %x, %g, %b, %m, %v {epsilon = 1.0e-05 : f64} : tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  %s = nn.mul %y, %y : tensor<4x2x3xf32>, tensor<4x2x3xf32>
  %l = nn.reduce_mean %s axes = [0, 1, 2] : tensor<4x2x3xf32> -> tensor<f32>
  %k = nn.constant dense<0.9> : tensor<f32>
  %new = nn.mul %m, %k : tensor<2xf32>, tensor<f32>
  %o = nn.add %u, %u : tensor<3xf32>, tensor<3xf32>
  return %l, %new, %o : tensor<f32>, tensor<2xf32>, tensor<3xf32>
}
