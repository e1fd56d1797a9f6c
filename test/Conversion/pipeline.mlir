// RUN: loomc %s --emit=llvm | FileCheck %s --implicit-check-not=linalg. --implicit-check-not=memref. --implicit-check-not=tensor. --implicit-check-not=arith. --implicit-check-not=math. --implicit-check-not=func.func --implicit-check-not=nn.

// End-to-end smoke test of the CPU lowering: nn -> linalg on tensors ->
// bufferized -> the matmul as a BLAS kernel call -> loops -> LLVM dialect.
// Nothing but the LLVM dialect is left (the implicit negative checks). The
// loops are scalar at this level (vectorisation is LLVM's job, later), so
// no vector types appear.

// The kernel: declared through its C interface (a wrapper passing
// descriptors by pointer to _mlir_ciface_loom_kernel_gemm_f32).
// CHECK-NOT:   vector<
// CHECK:       llvm.func private @loom_kernel_gemm_f32(
// CHECK:         llvm.call @_mlir_ciface_loom_kernel_gemm_f32({{.+}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK:       llvm.func @_mlir_ciface_loom_kernel_gemm_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32) attributes {llvm.emit_c_interface, sym_visibility = "private"}

// The entry calls the kernel first: the zero fill of the matmul's
// accumulator is folded into the call, which overwrites C (transB 0,
// accumulate 0, one shared i32 zero). Then one outlined function per linalg
// op: the bias add, then softmax's maximum (after its -inf fill), exp and
// sum; buffers come from the runtime's allocator.
// CHECK-LABEL: llvm.func @main(
// CHECK:         %[[I32_0:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NOT:     llvm.call @loom_op{{[0-9]+}}_
// CHECK:         llvm.call @loom_kernel_gemm_f32({{.+}}, %[[I32_0]], %[[I32_0]]) : ({{.+}}, i32, i32) -> ()
// CHECK:         llvm.call @loom_op0_generic(
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc(
// CHECK:         llvm.call @loom_op1_fill(
// CHECK:         llvm.call @loom_op2_reduce(
// CHECK:         llvm.call @_mlir_memref_to_llvm_free(
// CHECK:         llvm.return

// Outlined ops are internal and never inlined (LLVM compiles them one by
// one); the bias add, the row maximum, exp (polynomial approximation with
// fma), the reassociable sum and the division.
// CHECK:       llvm.func internal @loom_op0_generic({{.+}}) attributes {passthrough = ["noinline"]
// CHECK:         llvm.fadd %{{.+}}, %{{.+}} : f32
// CHECK:       llvm.func internal @loom_op1_fill({{.+}}) attributes {passthrough = ["noinline"]
// CHECK:       llvm.func internal @loom_op2_reduce(
// CHECK:         llvm.intr.maximum(%{{.+}}, %{{.+}}) : (f32, f32) -> f32
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fadd %{{.+}}, %{{.+}} {fastmathFlags = #llvm.fastmath<contract, reassoc>} : f32
// CHECK:         llvm.fdiv %{{.+}}, %{{.+}} : f32
// CHECK:         llvm.return
// CHECK-NOT:     vector<
func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = nn.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %z = nn.add %y, %b : tensor<4x8xf32>, tensor<8xf32>
  %p = nn.softmax %z axis = 1 : tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}
