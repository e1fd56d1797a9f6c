//===- Passes.td - CUDA target passes ----------------------*- tablegen -*-===//
//
// The passes only the CUDA target runs, between bufferization and NVVM (the
// `loom-cuda-lowering` pipeline).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_PASSES
#define LOOM_TARGET_CUDA_PASSES

include "mlir/Pass/PassBase.td"

def MapToGPU : Pass<"loom-cuda-map-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turn linalg ops and loops on buffers into gpu.launch kernels";
  let description = [{
    After bufferization, every top-level op of a function that computes on
    device memory becomes a `gpu.launch`; what stays on the host is what the
    CUDA target's host schedule runs itself: allocations and views, GEMMs
    that cuBLASLt takes (see `matchLibraryGemm`), fills of a constant and
    copies between contiguous buffers, and calls of the runtime's
    collectives.

    - A `linalg` op (named ops are generalized first) gets one thread per
      element of its first output, numbered so that neighbouring threads
      write neighbouring addresses; the other loops (reductions) run in
      each thread. When a single output is reduced over at least
      `block-reduce-min` elements by a combiner that `gpu.all_reduce` knows
      (add, mul, min, max, and, or, xor on f32 or i32), each output element
      gets a block of `block-size` threads instead: each thread folds a
      strided share of the reduction, the block combines the shares with
      warp shuffles and shared memory, and thread 0 folds in the initial
      value.
    - Ops whose outputs are indexed by a reduction loop, and every other
      run of host-level loops, loads and stores (the scatter loops of
      gather gradients), run in a kernel of one thread.

    ```mlir
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>) {...}
    // becomes
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, ...) threads(%tx, ...) in (%sx = %c256, ...) {
      %i = ... %bx * 256 + %tx
      scf.if %i < 1024 { %x = memref.load %a[%i] ... memref.store %y, %b[%i] }
      gpu.terminator
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block">,
    Option<"blockReduceMin", "block-reduce-min", "int64_t", "256",
           "Reductions of at least this many elements per output get a "
           "block per output element">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels made">,
    Statistic<"numBlockReductions", "block-reductions",
              "Kernels reducing with a block per output element">,
    Statistic<"numSerial", "serial-kernels", "Kernels of one thread">,
  ];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::affine::AffineDialect"
  ];
}

def GatherKernels : Pass<"loom-cuda-gather-kernels", "mlir::ModuleOp"> {
  let summary = "Put every outlined kernel into one gpu.module for the chips";
  let description = [{
    After `gpu-kernel-outlining` (one `gpu.module` per kernel), moves every
    kernel into a single `gpu.module @loom_kernels` whose targets are
    `#nvvm.target`s of the listed chips, names them `k<N>_<what>` (N in
    program order, `what` from the launch's name location) and points the
    `gpu.launch_func` ops at them: one PTX module, one cubin per chip.
  }];
  let options = [
    ListOption<"chips", "chips", "std::string",
               "The chips to build for (default: sm_80, sm_90)">,
    Option<"optLevel", "opt-level", "int", "3", "LLVM optimisation level">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect"];
}

def LegalizeMath : Pass<"loom-cuda-legalize-math", "mlir::gpu::GPUModuleOp"> {
  let summary = "Expand the math ops NVVM has no lowering for";
  let description = [{
    In the kernels, before `convert-gpu-to-nvvm`: `math.ipowi` becomes a
    square-and-multiply loop (negative exponents as `convert-math-to-funcs`
    defines them: 0, except for bases 1 and -1), `math.absi` a select, `math.copysign` bit operations, and
    `math.roundeven`, `math.round` and `math.fpowi` their arithmetic
    expansions. (Math on f16 and bf16 goes
    to f32 by `math-legalize-to-f32`: libdevice has no 16-bit functions.)
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::math::MathDialect"];
}

def EmulateLaunches : Pass<"loom-cuda-emulate-launches", "mlir::func::FuncOp"> {
  let summary = "Run -loom-cuda-map-to-gpu's kernels as host loops";
  let description = [{
    For checking the kernels -loom-cuda-map-to-gpu makes without a GPU:
    every `gpu.launch` becomes loops over its blocks and threads that run
    the body one thread after another, so the CPU target can compile and
    run it (`loomc --target=cpu --emulate-cuda-kernels`). A body with one
    `gpu.all_reduce` (a block reduction) runs in two passes per block: the
    part before it for every thread, combining the threads' values, then
    the whole body for every thread with the combined value. Other
    synchronisation (barriers, shuffles), a second reduction and writes
    before the reduction (they would run twice) are refused.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def PrintSchedule : Pass<"loom-cuda-print-schedule", "mlir::ModuleOp"> {
  let summary = "Print the host schedule of a lowered entry (for tests)";
  let description = [{
    Builds the `program.cuda.json` the CUDA target would write for the
    function `entry`, whose arguments are its buffers, and prints it to
    stdout; the module is unchanged. Errors are those of `loomc
    --target=cuda` at the same point. The kernel images are named for the
    chips of the module's `gpu.module` targets.
  }];
  let options = [
    Option<"entry", "entry", "std::string", "\"main\"",
           "The entry function">,
  ];
}

#endif // LOOM_TARGET_CUDA_PASSES
