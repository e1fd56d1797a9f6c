//===- Passes.h - Loom passes -----------------------------------*- C++ -*-===//

#ifndef LOOM_PASSES_PASSES_H
#define LOOM_PASSES_PASSES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "Passes.h.inc"

std::unique_ptr<mlir::Pass> createNNRecognizeIdioms();

/// Appends at `b`'s insertion point the reverse pass over `ops` (in program
/// order), starting from `seed`, the gradient of `loss`, and returns in
/// `grads` the gradient of each of `targets` (null where none flows). Ops
/// without a gradient rule on the way are an error naming them.
mlir::LogicalResult buildGradients(mlir::OpBuilder &b, mlir::Location loc,
                                   llvm::ArrayRef<mlir::Operation *> ops,
                                   mlir::Value loss, mlir::Value seed,
                                   llvm::ArrayRef<mlir::Value> targets,
                                   llvm::SmallVectorImpl<mlir::Value> &grads);

#define GEN_PASS_REGISTRATION
#include "Passes.h.inc"

} // namespace loom

#endif // LOOM_PASSES_PASSES_H
