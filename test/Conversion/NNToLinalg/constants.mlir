// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.constant and nn.parameter (parameters still in the body are inference
// constants) become arith.constant with the same elements.

// CHECK-LABEL: func.func @constant(
// CHECK:         %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]] : tensor<2xf32>
func.func @constant() -> tensor<2xf32> {
  %c = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_bool(
// CHECK:         %[[C:.+]] = arith.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT:    return %[[C]]
func.func @constant_bool() -> tensor<3xi1> {
  %c = nn.constant dense<[true, false, true]> : tensor<3xi1>
  return %c : tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @constant_splat_i64(
// CHECK:         %[[C:.+]] = arith.constant dense<-7> : tensor<2x3xi64>
// CHECK-NEXT:    return %[[C]]
func.func @constant_splat_i64() -> tensor<2x3xi64> {
  %c = nn.constant dense<-7> : tensor<2x3xi64>
  return %c : tensor<2x3xi64>
}

// -----

// Resource-backed elements (how the ONNX importer stores weights) keep
// their resource.
// CHECK-LABEL: func.func @constant_resource(
// CHECK:         %[[C:.+]] = arith.constant dense_resource<w> : tensor<2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @constant_resource() -> tensor<2xf32> {
  %c = nn.constant dense_resource<w> : tensor<2xf32>
  return %c : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// CHECK-LABEL: func.func @parameter(
// CHECK:         %[[W:.+]] = arith.constant dense<5.000000e-01> : tensor<16x8xf32>
// CHECK-NEXT:    return %[[W]]
// CHECK-NOT:     fc1.weight
func.func @parameter() -> tensor<16x8xf32> {
  %w = nn.parameter "fc1.weight" = dense<0.5> : tensor<16x8xf32>
  return %w : tensor<16x8xf32>
}

// -----

// A constant feeding an op: the constant is lowered and the op reads it.
// (Small constant expressions fold first, so the other operand is an
// argument.)
// CHECK-LABEL: func.func @constant_operand(
// CHECK-SAME:    %[[X:.+]]: tensor<4xbf16>)
// CHECK:         %[[C:.+]] = arith.constant dense<{{.+}}> : tensor<4xbf16>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[C]] : tensor<4xbf16>, tensor<4xbf16>)
func.func @constant_operand(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %c = nn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xbf16>
  %y = nn.mul %x, %c : tensor<4xbf16>, tensor<4xbf16>
  return %y : tensor<4xbf16>
}
