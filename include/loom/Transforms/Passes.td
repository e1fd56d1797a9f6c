//===- Passes.td - Target-independent codegen passes -------*- tablegen -*-===//
//
// Passes on linalg and tensors shared by every target: what runs after
// -convert-nn-to-linalg and before a target bufferizes and lowers.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_PASSES
#define LOOM_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def FuseElementwise : Pass<"loom-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse elementwise linalg.generics into consumers that read "
                "each element once";
  let description = [{
    Fuses an elementwise producer with one use into a `linalg.generic`
    consumer that reads it through a permutation map (an elementwise op or a
    reduction), and erases operands and results that fusion left unused.
    Upstream's default control would also fuse into matmuls, recomputing the
    producer for every output column and taking the matmul away from the
    library GEMM a target calls.

    ```mlir
    // before
    %e = linalg.generic {...} ins(%x) outs(%t0) { math.exp }
    %s = linalg.generic {...} ins(%e) outs(%t1) { arith.addf }  // a sum
    // after: one generic reading %x, computing exp and summing
    ```

    A fused body is capped at `max-body-ops` operations: each fusion clones
    both bodies, so fusing a long chain without a cap is quadratic in its
    length. A longer chain becomes several kernels.
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "unsigned", /*default=*/"256",
           "The most operations in one fused body">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def UntieInits : Pass<"loom-untie-inits", "mlir::ModuleOp"> {
  let summary = "Give each user of a tensor.empty or zero fill its own copy";
  let description = [{
    CSE merges identical `tensor.empty` ops and `linalg.fill`s of them that
    different ops use as their outputs; bufferization then sees two ops
    writing one buffer and copies it before each write. This pass clones
    the init (a fill together with its own empty) for every use but the
    first, so that each op writes a buffer of its own.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def CopyAliasedResults : Pass<"loom-copy-aliased-results", "mlir::ModuleOp"> {
  let summary = "Give every result of a public function a buffer of its own";
  let description = [{
    A public function that returns one of its arguments, or one value twice,
    gets a `linalg.copy` into a fresh `tensor.empty` for each such result:
    MLIR 19's `buffer-results-to-out-params{hoist-static-allocs}` crashes on
    a returned argument, and two results must not share one out-parameter.
    Runs on linalg, after the canonicalisations that fold copies away.

    ```mlir
    // before
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      return %x, %x : tensor<4xf32>, tensor<4xf32>
    }
    // after: each result is a linalg.copy of %x into its own tensor.empty
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def FreeEarly : Pass<"loom-free-early", "mlir::ModuleOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    The ownership-based deallocation pipeline frees a block's buffers at
    the end of the block, so a training step (one block) would hold every
    intermediate of every microbatch at once: accumulation, pipeline
    schedules and recomputation could not lower its peak. This pass moves
    each `memref.dealloc` up to right after the last op in its block that
    uses the buffer or anything derived from it (views, casts, extracted
    pointers). Compiled code runs synchronously (runtime calls copy what
    they keep), so the buffer is free there. A dealloc whose buffer is used
    in another block stays where it is.

    ```mlir
    // before
    %a = memref.alloc() : memref<4xf32>
    linalg.generic ... outs(%a)
    linalg.generic ins(%a) ...
    ... // much more
    memref.dealloc %a : memref<4xf32>
    // after: memref.dealloc %a right after the second generic
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

#endif // LOOM_TRANSFORMS_PASSES
