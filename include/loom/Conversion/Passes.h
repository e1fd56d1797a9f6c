//===- Passes.h - Loom conversion passes ------------------------*- C++ -*-===//

#ifndef LOOM_CONVERSION_PASSES_H
#define LOOM_CONVERSION_PASSES_H

#include "loom/Dialect/NN/NNDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "loom/Conversion/Passes.h.inc"

/// The nn -> linalg/tensor/arith/math patterns of -convert-nn-to-linalg;
/// `checkIndices` makes gather and scatter_add stop the program at an index
/// out of range rather than clamp it.
void populateNNToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                bool checkIndices = false);

/// Stores unsigned, 8-bit float and 4-bit integer types as signless integers
/// throughout `root`, marking the nn ops whose meaning depended on them
/// (-nn-legalize-storage-types; -convert-nn-to-linalg runs it first).
mlir::LogicalResult legalizeNNStorageTypes(mlir::Operation *root);

#define GEN_PASS_REGISTRATION
#include "loom/Conversion/Passes.h.inc"

} // namespace loom

#endif // LOOM_CONVERSION_PASSES_H
