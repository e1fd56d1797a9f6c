//===- Passes.td - CPU target passes -----------------------*- tablegen -*-===//
//
// The passes only the CPU target runs, between bufferization and the LLVM
// dialect (the `loom-cpu-lowering` pipeline).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CPU_PASSES
#define LOOM_TARGET_CPU_PASSES

include "mlir/Pass/PassBase.td"

def LinalgToKernels : Pass<"loom-cpu-linalg-to-kernels", "mlir::ModuleOp"> {
  let summary = "Call the runtime's BLAS kernels for f32/f64 matmuls on buffers";
  let description = [{
    After bufferization, replaces `linalg.matmul`, `linalg.batch_matmul` and
    their `transpose_b` forms whose three operands are all f32 or all f64
    memrefs with calls to the runtime's `loom_kernel_gemm_*` /
    `loom_kernel_batch_gemm_*` functions (OpenBLAS underneath), declared
    with `llvm.emit_c_interface`. The operands are cast to fully dynamic
    strided views; two i32 flags say whether B is transposed and whether
    the call accumulates into C. A zero `linalg.fill` of C that nothing
    else touches before the matmul is dropped and the call overwrites C
    (accumulate = 0); otherwise it accumulates, as the linalg op does.
    Other element types stay linalg and become loops.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%c : memref<32x8xf32>)
    linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x8xf32>) outs(%c : memref<32x8xf32>)
    // becomes
    call @loom_kernel_gemm_f32(%a', %b', %c', %c0_i32, %c0_i32)
        : (memref<?x?xf32, strided<[?, ?], offset: ?>>, ..., i32, i32) -> ()
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect"
  ];
}

def OutlineKernels : Pass<"loom-cpu-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Outline each linalg op on buffers into a non-inlined function";
  let description = [{
    Moves every top-level linalg op on buffers into its own internal,
    `noinline` function `loom_opN_<op>`, called where the op was. One
    function per op keeps LLVM's loop analyses (quadratic in function size)
    fast on large models, and names each op in profiles. When the op's first
    loop is parallel, indexes each operand through a plain dimension, and
    the op has at least 2^15 iterations, the function takes the range
    `[lo, hi)` of that loop as two extra index arguments and works on
    subviews; the caller passes the whole range, and the function carries
    `loom-parallel-extent` in its LLVM `passthrough`, which the CPU target
    turns into a `loom_parallel_for` call over the runtime's thread pool.

    ```mlir
    // before
    linalg.generic {...} ins(%a : memref<256x256xf32>) outs(%b : memref<256x256xf32>) {...}
    // after
    call @loom_op0_generic(%a, %b, %c0, %c256) : (...) -> ()
    func.func private @loom_op0_generic(%a: ..., %b: ..., %lo: index, %hi: index)
        attributes {llvm.linkage = #llvm.linkage<internal>,
                    passthrough = ["noinline", ["loom-parallel-extent", "256"]]}
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ApproximateMath : Pass<"loom-cpu-approximate-math", "mlir::ModuleOp"> {
  let summary = "Replace f32 transcendental math with polynomial approximations";
  let description = [{
    Applies MLIR's polynomial approximations of `math` ops (exp, log, tanh,
    erf, ...) on f32, which LLVM vectorises; calls to libm would keep the
    loops that contain them scalar. Also expands bfloat16 `arith.extf` and
    `arith.truncf` into integer arithmetic (round to nearest even): on a
    host without AVX512-BF16 LLVM would call `__truncsfbf2`, which
    Debian 12's libgcc lacks.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect"];
}

#endif // LOOM_TARGET_CPU_PASSES
