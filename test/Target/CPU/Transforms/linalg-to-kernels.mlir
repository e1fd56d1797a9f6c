// RUN: loom-opt %s -loom-cpu-linalg-to-kernels -split-input-file --mlir-print-local-scope | FileCheck %s

// f32/f64 matmuls on buffers become calls to the runtime's BLAS kernels:
// each operand is cast to a fully dynamic strided view, a first i32 says
// whether B is transposed ([N, K]) and a second whether the kernel
// accumulates into C (1) or overwrites it (0). The kernel is declared once
// per module, private, with llvm.emit_c_interface. Without a zero fill of C
// right before it, a matmul accumulates.

// CHECK:       func.func private @loom_kernel_gemm_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-NOT:   func.func private @loom_kernel_gemm_f32
// CHECK-LABEL: func.func @matmul_f32(
// CHECK-SAME:    %[[A:[^:]+]]: memref<32x16xf32>, %[[B:[^:]+]]: memref<16x8xf32>, %[[C:[^:]+]]: memref<32x8xf32>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<32x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[CB:.+]] = memref.cast %[[B]] : memref<16x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[CC:.+]] = memref.cast %[[C]] : memref<32x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%[[CA]], %[[CB]], %[[CC]], %[[NT]], %[[ACC]]) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) -> ()
// A second matmul reuses the declaration.
// CHECK:         %[[ACC2:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ACC2]])
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
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%[[CA]], %[[CB]], %[[CC]], %[[T]], %[[ACC]])
// CHECK-NOT:     linalg.matmul_transpose_b
func.func @matmul_transpose_b_f32(%a: memref<4x16xf32, strided<[32, 1], offset: 8>>, %b: memref<8x16xf32>, %c: memref<4x8xf32>) {
  linalg.matmul_transpose_b ins(%a, %b : memref<4x16xf32, strided<[32, 1], offset: 8>>, memref<8x16xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// f64, and dynamic shapes.
// CHECK:       func.func private @loom_kernel_gemm_f64(memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<?x?xf64, strided<[?, ?], offset: ?>>, memref<?x?xf64, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_f64_dynamic(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x?xf64>, %[[B:[^:]+]]: memref<?x?xf64>, %[[C:[^:]+]]: memref<?x?xf64>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<?x?xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
// CHECK:         %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f64(%[[CA]], %{{.+}}, %{{.+}}, %[[NT]], %[[ACC]])
func.func @matmul_f64_dynamic(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return
}

// -----

// Batched forms call the batch kernels with rank-3 views.
// CHECK-DAG:   func.func private @loom_kernel_batch_gemm_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @loom_kernel_batch_gemm_f64(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @batched(
// CHECK-SAME:    %[[A:[^:]+]]: memref<3x4x16xf32>, %[[B:[^:]+]]: memref<3x16x8xf32>, %[[C:[^:]+]]: memref<3x4x8xf32>,
// CHECK-SAME:    %[[D:[^:]+]]: memref<2x4x16xf64>, %[[E:[^:]+]]: memref<2x8x16xf64>, %[[F:[^:]+]]: memref<2x4x8xf64>)
// CHECK:         %[[CA:.+]] = memref.cast %[[A]] : memref<3x4x16xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CB:.+]] = memref.cast %[[B]] : memref<3x16x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CC:.+]] = memref.cast %[[C]] : memref<3x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_batch_gemm_f32(%[[CA]], %[[CB]], %[[CC]], %[[NT]], %[[ACC]])
// CHECK:         %[[CD:.+]] = memref.cast %[[D]] : memref<2x4x16xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CE:.+]] = memref.cast %[[E]] : memref<2x8x16xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[CF:.+]] = memref.cast %[[F]] : memref<2x4x8xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[T:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[ACC2:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_batch_gemm_f64(%[[CD]], %[[CE]], %[[CF]], %[[T]], %[[ACC2]])
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
// CHECK:         call @loom_kernel_gemm_f32(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) -> ()
func.func private @loom_kernel_gemm_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
func.func @existing_declaration(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

// A zero fill of C that is the last thing to touch C before the matmul is
// folded into the call: the fill goes and the kernel overwrites C
// (accumulate 0). Ops on other buffers in between do not matter. A second
// matmul into the same C still accumulates onto the first one's result.
// CHECK-LABEL: func.func @zero_fill_removed(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4x16xf32>, %[[B:[^:]+]]: memref<16x8xf32>, %[[X:[^:]+]]: memref<4x8xf32>, %[[Y:[^:]+]]: memref<4x8xf32>)
// CHECK-NOT:     linalg.fill
// CHECK:         %[[C:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         memref.copy %[[X]], %[[Y]]
// CHECK-NOT:     linalg.fill
// CHECK:         %[[CC:.+]] = memref.cast %[[C]] : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[OVERWRITE:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%{{.+}}, %{{.+}}, %[[CC]], %[[NT]], %[[OVERWRITE]])
// CHECK-NOT:     linalg.fill
// CHECK:         %[[CC2:.+]] = memref.cast %[[C]]
// CHECK-NEXT:    %[[NT2:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%{{.+}}, %{{.+}}, %[[CC2]], %[[NT2]], %[[ACC]])
// CHECK-NOT:     linalg.fill
// CHECK:         return %[[C]]
func.func @zero_fill_removed(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %x: memref<4x8xf32>, %y: memref<4x8xf32>) -> memref<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  memref.copy %x, %y : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return %c : memref<4x8xf32>
}

// -----

// The zeroed C is read before the matmul: the fill stays and the kernel
// accumulates.
// CHECK-LABEL: func.func @zero_fill_then_read(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4x16xf32>, %[[B:[^:]+]]: memref<16x8xf32>, %[[C:[^:]+]]: memref<4x8xf32>, %[[D:[^:]+]]: memref<4x8xf32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT:    memref.copy %[[C]], %[[D]]
// CHECK:         %[[CC:.+]] = memref.cast %[[C]]
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%{{.+}}, %{{.+}}, %[[CC]], %[[NT]], %[[ACC]])
func.func @zero_fill_then_read(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>, %d: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  memref.copy %c, %d : memref<4x8xf32> to memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A fill with anything but zero stays, and the kernel accumulates onto it.
// CHECK-LABEL: func.func @nonzero_fill(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4x16xf32>, %[[B:[^:]+]]: memref<16x8xf32>, %[[C:[^:]+]]: memref<4x8xf32>)
// CHECK:         %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[ONE]] : f32) outs(%[[C]] : memref<4x8xf32>)
// CHECK:         %[[CC:.+]] = memref.cast %[[C]]
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%{{.+}}, %{{.+}}, %[[CC]], %[[NT]], %[[ACC]])
func.func @nonzero_fill(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// A zero fill of another buffer is not the matmul's: it stays, and the
// kernel accumulates.
// CHECK-LABEL: func.func @zero_fill_other_buffer(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4x16xf32>, %[[B:[^:]+]]: memref<16x8xf32>, %[[C:[^:]+]]: memref<4x8xf32>, %[[D:[^:]+]]: memref<4x8xf32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill ins(%[[ZERO]] : f32) outs(%[[D]] : memref<4x8xf32>)
// CHECK:         %[[CC:.+]] = memref.cast %[[C]]
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[ACC:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    call @loom_kernel_gemm_f32(%{{.+}}, %{{.+}}, %[[CC]], %[[NT]], %[[ACC]])
func.func @zero_fill_other_buffer(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>, %d: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%d : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// -----

// The batched kernels take the zero fill the same way (f32 here, and f64
// with B transposed).
// CHECK-LABEL: func.func @batched_zero_fill(
// CHECK-SAME:    %[[A:[^:]+]]: memref<3x4x16xf32>, %[[B:[^:]+]]: memref<3x16x8xf32>, %[[C:[^:]+]]: memref<3x4x8xf32>,
// CHECK-SAME:    %[[D:[^:]+]]: memref<2x4x16xf64>, %[[E:[^:]+]]: memref<2x8x16xf64>, %[[F:[^:]+]]: memref<2x4x8xf64>)
// CHECK-NOT:     linalg.fill
// CHECK:         %[[CC:.+]] = memref.cast %[[C]] : memref<3x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[NT:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[OVERWRITE:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    call @loom_kernel_batch_gemm_f32(%{{.+}}, %{{.+}}, %[[CC]], %[[NT]], %[[OVERWRITE]])
// CHECK-NOT:     linalg.fill
// CHECK:         %[[CF:.+]] = memref.cast %[[F]] : memref<2x4x8xf64> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT:    %[[T:.+]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[OVERWRITE2:.+]] = arith.constant 0 : i32
// CHECK-NEXT:    call @loom_kernel_batch_gemm_f64(%{{.+}}, %{{.+}}, %[[CF]], %[[T]], %[[OVERWRITE2]])
// CHECK-NOT:     linalg.fill
// CHECK:         return
func.func @batched_zero_fill(%a: memref<3x4x16xf32>, %b: memref<3x16x8xf32>, %c: memref<3x4x8xf32>,
                             %d: memref<2x4x16xf64>, %e: memref<2x8x16xf64>, %f: memref<2x4x8xf64>) {
  %zero = arith.constant 0.0 : f32
  %zero64 = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f32) outs(%c : memref<3x4x8xf32>)
  linalg.batch_matmul ins(%a, %b : memref<3x4x16xf32>, memref<3x16x8xf32>) outs(%c : memref<3x4x8xf32>)
  linalg.fill ins(%zero64 : f64) outs(%f : memref<2x4x8xf64>)
  linalg.batch_matmul_transpose_b ins(%d, %e : memref<2x4x16xf64>, memref<2x8x16xf64>) outs(%f : memref<2x4x8xf64>)
  return
}

// -----

// A B operand that views an argument marked `nn.immutable` (a weight the
// CPU target passes in; it never changes while the program is loaded) goes
// to the kernel that may keep B packed between calls, through views too.
// Other arguments, and batched or f64 matmuls, use the plain kernels.
// CHECK-DAG:   func.func private @loom_kernel_gemm_const_b_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG:   func.func private @loom_kernel_gemm_f32(
// CHECK-LABEL: func.func @parameter_b(
// CHECK:         call @loom_kernel_gemm_const_b_f32(
// CHECK:         call @loom_kernel_gemm_const_b_f32(
// CHECK:         call @loom_kernel_gemm_f32(
// CHECK:         return
func.func @parameter_b(%w: memref<16x8xf32> {nn.immutable}, %x: memref<32x16xf32>, %c: memref<32x8xf32>, %d: memref<32x4xf32>, %e: memref<32x16xf32>) {
  linalg.matmul ins(%x, %w : memref<32x16xf32>, memref<16x8xf32>) outs(%c : memref<32x8xf32>)
  %half = memref.subview %w[0, 0] [16, 4] [1, 1] : memref<16x8xf32> to memref<16x4xf32, strided<[8, 1]>>
  linalg.matmul ins(%x, %half : memref<32x16xf32>, memref<16x4xf32, strided<[8, 1]>>) outs(%d : memref<32x4xf32>)
  %x2 = memref.subview %x[0, 0] [16, 16] [1, 1] : memref<32x16xf32> to memref<16x16xf32, strided<[16, 1]>>
  linalg.matmul ins(%x, %x2 : memref<32x16xf32>, memref<16x16xf32, strided<[16, 1]>>) outs(%e : memref<32x16xf32>)
  return
}
