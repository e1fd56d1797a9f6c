//===- Passes.td - Loom conversion passes -------------------*- tablegen -*-===//

#ifndef LOOM_CONVERSION_PASSES
#define LOOM_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def NNLegalizeStorageTypes : Pass<"nn-legalize-storage-types"> {
  let summary = "Store unsigned, 8-bit float and 4-bit types as signless integers";
  let description = [{
    arith computes on signless integers and LLVM has no 8-bit floats, so
    before nn is lowered every tensor of unsigned integers becomes one of
    signless integers of the same width, and every tensor of 8-bit floats
    or 4-bit integers one of `i8` (the raw bits; the value, sign- or
    zero-extended): in function signatures, calls, returns and the results
    of every op. Constant data is rewritten to match.

    An nn op whose meaning depended on an erased type records it: an op
    with unsigned operands gets `nn.unsigned`, and a cast that reads or
    writes a stored type gets `nn.cast_from`, its source element type, and
    then yields `to` in its storage type.

    ```mlir
    func.func @f(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xi1>, tensor<4xf8E4M3FN>) {
      %lt = nn.compare lt, %a, %b : tensor<4xui8>, tensor<4xui8>
      %q = nn.cast %a : tensor<4xui8> to f8E4M3FN
      return %lt, %q : tensor<4xi1>, tensor<4xf8E4M3FN>
    }
    // becomes
    func.func @f(%a: tensor<4xi8>, %b: tensor<4xi8>) -> (tensor<4xi1>, tensor<4xi8>) {
      %lt = nn.compare lt, %a, %b {nn.unsigned} : tensor<4xi8>, tensor<4xi8>
      %q = nn.cast %a {nn.cast_from = ui8} : tensor<4xi8> to f8E4M3FN
      return %lt, %q : tensor<4xi1>, tensor<4xi8>
    }
    ```

    Constant data held in a resource blob whose width changes (4-bit
    integers) cannot be rewritten and is reported. `-convert-nn-to-linalg`
    runs this legalisation first.
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "loom::nn::NNDialect"];
}

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
      updates that adds each at its (likewise clamped) index; with
      `check-indices`, a gather or scatter_add index out of range stops the
      program (a message on stderr naming the index, the op's location and
      the range, then `abort`) instead;
    - f16/bf16 arithmetic is done in f32;
    - unsigned, 8-bit float and 4-bit integer tensors are first stored as
      signless ones (`-nn-legalize-storage-types`, run as part of this pass).

    ```mlir
    // nn.add %x, %b : tensor<4x8xf32>, tensor<8xf32> becomes
    %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>], ...}
    ```
  }];
  let options = [
    Option<"checkIndices", "check-indices", "bool", /*default=*/"false",
           "Stop the program at a gather or scatter_add index out of range "
           "instead of clamping it (a debugging aid: it costs a compare per "
           "index)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect"
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
