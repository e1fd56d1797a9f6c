//===- Autodiff.h - Reverse-mode differentiation over nn --------*- C++ -*-===//

#ifndef LOOM_PASSES_NN_AUTODIFF_H
#define LOOM_PASSES_NN_AUTODIFF_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace loom {

/// Appends at `b`'s insertion point the reverse pass over `ops` (in program
/// order), starting from `seed`, the gradient of `loss`, and returns in
/// `grads` the gradient of each of `targets` (null where none flows). Ops
/// without a gradient rule on the way are an error naming them.
mlir::LogicalResult buildGradients(mlir::OpBuilder &b, mlir::Location loc,
                                   llvm::ArrayRef<mlir::Operation *> ops,
                                   mlir::Value loss, mlir::Value seed,
                                   llvm::ArrayRef<mlir::Value> targets,
                                   llvm::SmallVectorImpl<mlir::Value> &grads);

} // namespace loom

#endif // LOOM_PASSES_NN_AUTODIFF_H
