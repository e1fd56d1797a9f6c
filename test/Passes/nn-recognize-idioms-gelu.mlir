// RUN: loom-opt %s -nn-recognize-idioms -split-input-file | FileCheck %s

// PyTorch's exact GELU: (x * (1 + erf(x / sqrt 2))) * 0.5.
// CHECK-LABEL: func.func @pytorch_export
// CHECK-SAME: (%[[X:.*]]: tensor<4x64xf32>)
// CHECK-NEXT: %[[Y:.*]] = nn.gelu %[[X]] : tensor<4x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @pytorch_export(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %sqrt2 = nn.constant dense<1.41421354> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %s = nn.div %x, %sqrt2 : tensor<4x64xf32>, tensor<f32>
  %e = nn.erf %s : tensor<4x64xf32>
  %p = nn.add %e, %one : tensor<4x64xf32>, tensor<f32>
  %m = nn.mul %x, %p : tensor<4x64xf32>, tensor<4x64xf32>
  %y = nn.mul %m, %half : tensor<4x64xf32>, tensor<f32>
  return %y : tensor<4x64xf32>
}

// -----

// Other association and order: 0.5 * x first, multiply by 1/sqrt 2.
// CHECK-LABEL: func.func @reassociated
// CHECK: nn.gelu %{{.*}} : tensor<8xbf16>
// CHECK-NOT: nn.erf
func.func @reassociated(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %inv = nn.constant dense<0.707106769> : tensor<bf16>
  %one = nn.constant dense<1.0> : tensor<bf16>
  %half = nn.constant dense<0.5> : tensor<bf16>
  %hx = nn.mul %half, %x : tensor<bf16>, tensor<8xbf16>
  %s = nn.mul %inv, %x : tensor<bf16>, tensor<8xbf16>
  %e = nn.erf %s : tensor<8xbf16>
  %p = nn.add %one, %e : tensor<bf16>, tensor<8xbf16>
  %y = nn.mul %p, %hx : tensor<8xbf16>, tensor<8xbf16>
  return %y : tensor<8xbf16>
}

// -----

// Not a GELU: the erf argument is another value.
// CHECK-LABEL: func.func @different_argument
// CHECK-NOT: nn.gelu
func.func @different_argument(%x: tensor<8xf32>, %z: tensor<8xf32>) -> tensor<8xf32> {
  %sqrt2 = nn.constant dense<1.41421354> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %s = nn.div %z, %sqrt2 : tensor<8xf32>, tensor<f32>
  %e = nn.erf %s : tensor<8xf32>
  %p = nn.add %e, %one : tensor<8xf32>, tensor<f32>
  %m = nn.mul %x, %p : tensor<8xf32>, tensor<8xf32>
  %y = nn.mul %m, %half : tensor<8xf32>, tensor<f32>
  return %y : tensor<8xf32>
}

// -----

// Not a GELU: the scale is 0.25.
// CHECK-LABEL: func.func @wrong_constant
// CHECK-NOT: nn.gelu
func.func @wrong_constant(%x: tensor<8xf32>) -> tensor<8xf32> {
  %sqrt2 = nn.constant dense<1.41421354> : tensor<f32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %q = nn.constant dense<0.25> : tensor<f32>
  %s = nn.div %x, %sqrt2 : tensor<8xf32>, tensor<f32>
  %e = nn.erf %s : tensor<8xf32>
  %p = nn.add %e, %one : tensor<8xf32>, tensor<f32>
  %m = nn.mul %x, %p : tensor<8xf32>, tensor<8xf32>
  %y = nn.mul %m, %q : tensor<8xf32>, tensor<f32>
  return %y : tensor<8xf32>
}
