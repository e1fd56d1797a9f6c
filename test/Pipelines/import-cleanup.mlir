// RUN: loom-opt %s --loom-import-cleanup | FileCheck %s

// What the ONNX importer runs on every model: idioms raised to single ops,
// then the module simplified (the erf-GELU decomposition of an export
// becomes nn.gelu; the duplicate constant goes).
// CHECK-LABEL: func.func @gelu(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>
// CHECK-NEXT:    %[[G:.*]] = nn.gelu %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %half = nn.constant dense<0.5> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %isqrt2 = nn.constant dense<0.707106769> : tensor<f32>
  %0 = nn.mul %x, %isqrt2 : tensor<4x8xf32>, tensor<f32>
  %1 = nn.erf %0 : tensor<4x8xf32>
  %2 = nn.add %1, %one : tensor<4x8xf32>, tensor<f32>
  %3 = nn.mul %x, %2 : tensor<4x8xf32>, tensor<4x8xf32>
  %4 = nn.mul %3, %half : tensor<4x8xf32>, tensor<f32>
  return %4 : tensor<4x8xf32>
}
