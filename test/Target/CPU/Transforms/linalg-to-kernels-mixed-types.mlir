// RUN: loom-opt %s -loom-cpu-linalg-to-kernels -split-input-file | FileCheck %s

// linalg allows mixed element types in a matmul (the inputs are cast to
// the accumulator's type), e.g. f32 inputs accumulating into f64, or
// f32 x f16. BLAS cannot: such a matmul stays linalg; only matmuls whose
// three operands share f32 or f64 become kernel calls.

// CHECK-NOT:   @loom_kernel
// CHECK-LABEL: func.func @f32_into_f64(
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<4x16xf32>, memref<16x8xf32>) outs(%{{.+}} : memref<4x8xf64>)
// CHECK-NOT:     call
// CHECK:         return
func.func @f32_into_f64(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf64>) {
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf64>)
  return
}

// -----

// CHECK-NOT:   @loom_kernel
// CHECK-LABEL: func.func @f32_times_f16(
// CHECK:         linalg.batch_matmul ins(%{{.+}}, %{{.+}} : memref<2x4x16xf32>, memref<2x16x8xf16>) outs(%{{.+}} : memref<2x4x8xf32>)
// CHECK-NOT:     call
// CHECK:         return
func.func @f32_times_f16(%a: memref<2x4x16xf32>, %b: memref<2x16x8xf16>, %c: memref<2x4x8xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x16xf32>, memref<2x16x8xf16>) outs(%c : memref<2x4x8xf32>)
  return
}
