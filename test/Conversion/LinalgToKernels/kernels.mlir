// RUN: loom-opt %s -convert-linalg-to-kernels -split-input-file --mlir-print-local-scope | FileCheck %s

// f32/f64 matmuls on buffers become calls to the runtime's BLAS kernels:
// each operand is cast to a fully dynamic strided view, and an i32 says
// whether B is transposed ([N, K]). The kernel is declared once per module,
// private, with llvm.emit_c_interface.

// CHECK:       func.func private @loom_kernel_gemm_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) attributes {llvm.emit_c_interface}
// CHECK-NOT:   func.func private @loom_kernel_gemm_f32
// CHECK-LABEL: func.func @matmul_f32(
// CHECK-SAME:    %[[A:[^:]+]]: memref<32x16xf32>, %[[B:[^:]+]]: memref<16x8xf32>, %[[C:[^:]+]]: memref<32x8xf32>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<32x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[CB:.+]] = memref.cast %[[B]] : memref<16x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[CC:.+]] = memref.cast %[[C]] : memref<32x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%[[CA]], %[[CB]], %[[CC]], %[[NT]]) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) -> ()
// A second matmul reuses the declaration.
// CHECK:         call @loom_kernel_gemm_f32(
// CHECK-NOT:     linalg.matmul
// CHECK:         return
func.func @matmul_f32(%a: memref<32x16xf32>, %b: memref<16x8xf32>, %c: memref<32x8xf32>) {
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x8xf32>) outs(%c : memref<32x8xf32>)
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x8xf32>) outs(%c : memref<32x8xf32>)
  return
}

// -----

// matmul_transpose_b passes 1; a strided input view (a subview, say) is cast
// like any other.
// CHECK:       func.func private @loom_kernel_gemm_f32(
// CHECK-LABEL: func.func @matmul_transpose_b_f32(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4x16xf32, strided<[32, 1], offset: 8>>, %[[B:[^:]+]]: memref<8x16xf32>, %[[C:[^:]+]]: memref<4x8xf32>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<4x16xf32, strided<[32, 1], offset: 8>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[CB:.+]] = memref.cast %[[B]] : memref<8x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[CC:.+]] = memref.cast %[[C]]
// CHECK-NEXT:    %[[T:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%[[CA]], %[[CB]], %[[CC]], %[[T]])
// CHECK-NOT:     linalg.matmul_transpose_b
func.func @matmul_transpose_b_f32(%a: memref<4x16xf32, strided<[32, 1], offset: 8>>, %b: memref<8x16xf32>, %c: memref<4x8xf32>) {
  linalg.matmul_transpose_b ins(%a, %b : memref<4x16xf32, strided<[32, 1], offset: 8>>, memref<8x16xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// f64, and dynamic shapes.
// CHECK:       func.func private @loom_kernel_gemm_f64(memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<?x?xf64, strided<[?, ?], offset: ?>>, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_f64_dynamic(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x?xf64>, %[[B:[^:]+]]: memref<?x?xf64>, %[[C:[^:]+]]: memref<?x?xf64>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<?x?xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
// CHECK:         %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f64(%[[CA]], %{{.+}}, %{{.+}}, %[[NT]])
func.func @matmul_f64_dynamic(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return
}

// -----

// Batched forms call the batch kernels with rank-3 views.
// CHECK-DAG:   func.func private @loom_kernel_batch_gemm_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @loom_kernel_batch_gemm_f64(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @batched(
// CHECK-SAME:    %[[A:[^:]+]]: memref<3x4x16xf32>, %[[B:[^:]+]]: memref<3x16x8xf32>, %[[C:[^:]+]]: memref<3x4x8xf32>,
// CHECK-SAME:    %[[D:[^:]+]]: memref<2x4x16xf64>, %[[E:[^:]+]]: memref<2x8x16xf64>, %[[F:[^:]+]]: memref<2x4x8xf64>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<3x4x16xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CB:.+]] = memref.cast %[[B]] : memref<3x16x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CC:.+]] = memref.cast %[[C]] : memref<3x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    call @loom_kernel_batch_gemm_f32(%[[CA]], %[[CB]], %[[CC]], %[[NT]])
// CHECK:         %[[CD:.+]] = memref.cast %[[D]] : memref<2x4x16xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CE:.+]] = memref.cast %[[E]] : memref<2x8x16xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CF:.+]] = memref.cast %[[F]] : memref<2x4x8xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[T:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_batch_gemm_f64(%[[CD]], %[[CE]], %[[CF]], %[[T]])
// CHECK-NOT:     linalg.batch_matmul
func.func @batched(%a: memref<3x4x16xf32>, %b: memref<3x16x8xf32>, %c: memref<3x4x8xf32>,
                   %d: memref<2x4x16xf64>, %e: memref<2x8x16xf64>, %f: memref<2x4x8xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<3x4x16xf32>, memref<3x16x8xf32>) outs(%c : memref<3x4x8xf32>)
  linalg.batch_matmul_transpose_b ins(%d, %e : memref<2x4x16xf64>, memref<2x8x16xf64>) outs(%f : memref<2x4x8xf64>)
  return
}

// -----

// Left alone: integer and half matmuls (they become loops), matmuls on
// tensors (not bufferized yet), and other contractions.
// CHECK-NOT:   @loom_kernel
// CHECK-LABEL: func.func @left_alone(
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<4x16xi32>, memref<16x8xi32>) outs(%{{.+}} : memref<4x8xi32>)
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<4x16xf16>, memref<16x8xf16>) outs(%{{.+}} : memref<4x8xf16>)
// CHECK:         linalg.batch_matmul ins(%{{.+}}, %{{.+}} : memref<2x4x16xi8>, memref<2x16x8xi8>) outs(%{{.+}} : memref<2x4x8xi8>)
// CHECK:         %[[R:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<16x8xf32>) outs(%{{.+}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         linalg.matvec ins(%{{.+}}, %{{.+}} : memref<4x16xf32>, memref<16xf32>) outs(%{{.+}} : memref<4xf32>)
// CHECK-NOT:     call
// CHECK:         return %[[R]]
func.func @left_alone(%a: memref<4x16xi32>, %b: memref<16x8xi32>, %c: memref<4x8xi32>,
                      %h: memref<4x16xf16>, %hb: memref<16x8xf16>, %hc: memref<4x8xf16>,
                      %i: memref<2x4x16xi8>, %ib: memref<2x16x8xi8>, %ic: memref<2x4x8xi8>,
                      %x: tensor<4x16xf32>, %y: tensor<16x8xf32>, %z: tensor<4x8xf32>,
                      %m: memref<4x16xf32>, %v: memref<16xf32>, %w: memref<4xf32>) -> tensor<4x8xf32> {
  linalg.matmul ins(%a, %b : memref<4x16xi32>, memref<16x8xi32>) outs(%c : memref<4x8xi32>)
  linalg.matmul ins(%h, %hb : memref<4x16xf16>, memref<16x8xf16>) outs(%hc : memref<4x8xf16>)
  linalg.batch_matmul ins(%i, %ib : memref<2x4x16xi8>, memref<2x16x8xi8>) outs(%ic : memref<2x4x8xi8>)
  %r = linalg.matmul ins(%x, %y : tensor<4x16xf32>, tensor<16x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  linalg.matvec ins(%m, %v : memref<4x16xf32>, memref<16xf32>) outs(%w : memref<4xf32>)
  return %r : tensor<4x8xf32>
}

// -----

// A kernel declaration already in the module is reused, not duplicated.
// CHECK:       func.func private @loom_kernel_gemm_f32(
// CHECK-NOT:   func.func private @loom_kernel_gemm_f32(
// CHECK-LABEL: func.func @existing_declaration(
// CHECK:         call @loom_kernel_gemm_f32(
func.func private @loom_kernel_gemm_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) attributes {llvm.emit_c_interface}
func.func @existing_declaration(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}
