// RUN: loom-opt %s -canonicalize -split-input-file | FileCheck %s

// Constant folds of unsigned integers use unsigned order, division and
// conversion: 200 > 100 as ui8, though its bits read -56 as i8.

// CHECK-LABEL: func.func @max_min_div_ui8
// CHECK-DAG:     nn.constant dense<200> : tensor<ui8>
// CHECK-DAG:     nn.constant dense<100> : tensor<ui8>
// CHECK-DAG:     nn.constant dense<2> : tensor<ui8>
// CHECK-DAG:     nn.constant dense<true> : tensor<i1>
// CHECK-DAG:     nn.constant dense<2.000000e+02> : tensor<f32>
// CHECK-DAG:     nn.constant dense<200> : tensor<i32>
// CHECK-NOT:     nn.max
// CHECK-NOT:     nn.cast
func.func @max_min_div_ui8() -> (tensor<ui8>, tensor<ui8>, tensor<ui8>, tensor<i1>, tensor<f32>, tensor<i32>) {
  %a = nn.constant dense<200> : tensor<ui8>
  %b = nn.constant dense<100> : tensor<ui8>
  %max = nn.max %a, %b : tensor<ui8>, tensor<ui8>
  %min = nn.min %a, %b : tensor<ui8>, tensor<ui8>
  %div = nn.div %a, %b : tensor<ui8>, tensor<ui8>
  %gt = nn.compare gt, %a, %b : tensor<ui8>, tensor<ui8>
  %f = nn.cast %a : tensor<ui8> to f32
  %i = nn.cast %a : tensor<ui8> to i32
  return %max, %min, %div, %gt, %f, %i : tensor<ui8>, tensor<ui8>, tensor<ui8>, tensor<i1>, tensor<f32>, tensor<i32>
}

// -----

// abs and relu of unsigned values are the values.
// CHECK-LABEL: func.func @abs_relu_ui16(
// CHECK-SAME:    %[[X:.+]]: tensor<4xui16>)
// CHECK-NEXT:    return %[[X]], %[[X]]
func.func @abs_relu_ui16(%x: tensor<4xui16>) -> (tensor<4xui16>, tensor<4xui16>) {
  %a = nn.abs %x : tensor<4xui16>
  %r = nn.relu %x : tensor<4xui16>
  return %a, %r : tensor<4xui16>, tensor<4xui16>
}

// -----

// 8-bit float and 4-bit integer conversions are left to the lowering,
// which rounds and saturates as ONNX says.
// CHECK-LABEL: func.func @storage_casts_stay
// CHECK:         nn.cast %{{.+}} : tensor<2xf32> to f8E4M3FN
// CHECK:         nn.cast %{{.+}} : tensor<2xf32> to i4
func.func @storage_casts_stay() -> (tensor<2xf8E4M3FN>, tensor<2xi4>) {
  %c = nn.constant dense<[1000.0, 0.3]> : tensor<2xf32>
  %f8 = nn.cast %c : tensor<2xf32> to f8E4M3FN
  %i4 = nn.cast %c : tensor<2xf32> to i4
  return %f8, %i4 : tensor<2xf8E4M3FN>, tensor<2xi4>
}
