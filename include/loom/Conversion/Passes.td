//===- Passes.td - Loom conversion passes -------------------*- tablegen -*-===//

#ifndef LOOM_CONVERSION_PASSES
#define LOOM_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertNNToLinalg : Pass<"convert-nn-to-linalg"> {
  let summary = "Lower nn ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every `nn` op into upstream ops on tensors, ready for
    elementwise fusion and one-shot bufferization:

    - elementwise ops become parallel `linalg.generic`s whose indexing maps
      broadcast the operands (no broadcast is materialised), so linalg's
      elementwise fusion can merge whole chains into one loop; constant
      `i1` masks are read as `i8` (LLVM vectorises byte loads);
    - `nn.matmul` becomes `linalg.matmul` (batch dimensions folded into M
      when the right operand is 2-D) or `linalg.batch_matmul`, reading a
      transposed operand in place (`*_transpose_b`);
    - reductions become `linalg.reduce` whose adds carry `reassoc` so that
      LLVM vectorises them; softmax and log_softmax read their input three
      times (max, sum of exp computed on the fly, result) and layer_norm
      likewise (mean, sum of squares, result), writing nothing of the
      input's size in between; cross_entropy builds on log_softmax;
    - convolutions and pools become linalg's named NCHW (NCW) ops on a
      padded input, 3-D pools the same loops as a `linalg.generic`; average
      pools divide by per-dimension window counts computed at compile time;
    - gather, strided slices and reflect/edge/wrap pads read with
      `tensor.extract`, keeping indices in range so that bad data cannot
      read outside a buffer; scatter_add is an `scf.for` nest over its
      updates that adds each at its (likewise clamped) index;
    - f16/bf16 arithmetic is done in f32.

    ```mlir
    // nn.add %x, %b : tensor<4x8xf32>, tensor<8xf32> becomes
    %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>], ...}
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

def ConvertDistToRuntime : Pass<"convert-dist-to-runtime", "mlir::ModuleOp"> {
  let summary = "Call the runtime's collectives for dist ops on tensors";
  let description = [{
    In a partitioned (`dist.spmd`) program, replaces every collective and
    `dist.take_shard` with a call to the runtime's `loom_coll_*` symbol
    (Collectives.h, runtime ABI 3) on the operand's buffer and a fresh
    result buffer, before bufferization:

    ```mlir
    %y = dist.all_reduce sum %x over @m ["tp"] : tensor<4x10xf32>
    // becomes
    %src = bufferization.to_memref %x : memref<4x10xf32>
    %dst = memref.alloc() {alignment = 64 : i64} : memref<4x10xf32>
    call @loom_coll_all_reduce(%p_src, %p_dst, %c40, %c3_dtype, %c0_sum, %c0_group)
    %y = bufferization.to_tensor %dst restrict writable : memref<4x10xf32>
    ```

    Device groups are numbered in order of first use; the module records
    them (`loom.comm_groups`, lists of axis names) and every call in
    program order (`loom.collectives`: kind, group, input bytes) for the
    artifact's manifest, so that a run's communication log can be checked
    against what the program says it moves.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect", "mlir::memref::MemRefDialect"
  ];
}

#endif // LOOM_CONVERSION_PASSES
