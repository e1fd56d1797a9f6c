//===- Megatron.h - Megatron's column-then-row pairing ----------*- C++ -*-===//

#ifndef LOOM_PASSES_DIST_MEGATRON_H
#define LOOM_PASSES_DIST_MEGATRON_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace loom::dist {

/// Rewrites split(matmul(x, W) [+ b]) along the last axis into one matmul
/// (and bias add) per part, on slices of W and b, so that splitting the
/// projection's columns keeps each part whole on a device (GPT-2's c_attn).
void unfuseSplitProjections(mlir::func::FuncOp fn);

/// Megatron's pairing of the matmuls against parameters in `fn`: column
/// then row, one all-reduce per pair. Maps each paired matmul to the
/// dimension of its right operand to split (1 for a column, 0 for a row).
llvm::DenseMap<mlir::Operation *, int>
megatronWeightDims(mlir::func::FuncOp fn);

} // namespace loom::dist

#endif // LOOM_PASSES_DIST_MEGATRON_H
