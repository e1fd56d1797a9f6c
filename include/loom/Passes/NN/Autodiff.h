//===- Autodiff.h - Reverse-mode differentiation over nn --------*- C++ -*-===//

#ifndef LOOM_PASSES_NN_AUTODIFF_H
#define LOOM_PASSES_NN_AUTODIFF_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace loom {

/// Told of each op the reverse pass builds, with the op whose gradient it
/// computes (null for what is built outside any op's gradient rule).
using GradientOpHook =
    llvm::function_ref<void(mlir::Operation *built, mlir::Operation *of)>;

/// Appends at `b`'s insertion point the reverse pass over `ops` (in program
/// order), starting from `seed`, the gradient of `loss`, and returns in
/// `grads` the gradient of each of `targets` (null where none flows). Ops
/// without a gradient rule on the way are an error naming them. `onBuilt`,
/// when given, sees every op built (a pipeline marks them with the stage of
/// the op they differentiate).
mlir::LogicalResult buildGradients(mlir::OpBuilder &b, mlir::Location loc,
                                   llvm::ArrayRef<mlir::Operation *> ops,
                                   mlir::Value loss, mlir::Value seed,
                                   llvm::ArrayRef<mlir::Value> targets,
                                   llvm::SmallVectorImpl<mlir::Value> &grads,
                                   GradientOpHook onBuilt = nullptr);

} // namespace loom

#endif // LOOM_PASSES_NN_AUTODIFF_H
