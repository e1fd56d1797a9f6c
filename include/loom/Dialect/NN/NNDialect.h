//===- NNDialect.h - The nn dialect -----------------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_NN_NNDIALECT_H
#define LOOM_DIALECT_NN_NNDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/Operation.h"

#include "nn/NNEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nn/NNAttrs.h.inc"

#include "nn/NNDialect.h.inc"

namespace loom::nn {
/// The names of the dialect's discardable attributes (NNBase.td), for
/// function argument and result attributes, which the generated helpers do
/// not reach.
inline constexpr llvm::StringLiteral kNameAttrName =
    NNDialect::NameAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kUpdateAttrName =
    NNDialect::UpdateAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kZeroInitAttrName =
    NNDialect::ZeroInitAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kImmutableAttrName =
    NNDialect::ImmutableAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kTrainingAttrName =
    NNDialect::TrainingAttrHelper::getNameStr();
} // namespace loom::nn

#endif // LOOM_DIALECT_NN_NNDIALECT_H
