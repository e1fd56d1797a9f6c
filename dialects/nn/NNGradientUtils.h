//===- NNGradientUtils.h - Helpers of the nn ops' VJPs ----------*- C++ -*-===//
//
// Private to dialects/nn: the builders NNGradients.cpp and
// NNLayerGradients.cpp share.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECTS_NN_NNGRADIENTUTILS_H
#define LOOM_DIALECTS_NN_NNGRADIENTUTILS_H

#include "loom/Dialect/NN/NNOps.h"

namespace loom::nn::vjp {

bool isFloatTensor(mlir::Value v);

/// A rank-0 constant of `element`'s type.
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type element,
                   double value);
mlir::Value scalarLike(mlir::OpBuilder &b, mlir::Location loc, mlir::Value like,
                       double value);

/// `g` summed over the dimensions `operand` was broadcast along.
mlir::Value grad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value g,
                 mlir::Value operand);

mlir::Value mul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                mlir::Value y);

/// `x d y ? onTrue : onFalse`.
mlir::Value select(mlir::OpBuilder &b, mlir::Location loc, CompareDirection d,
                   mlir::Value x, mlir::Value y, mlir::Value onTrue,
                   mlir::Value onFalse);

/// Max and min send the gradient to the extreme elements, shared equally
/// among ties.
mlir::LogicalResult
extremeVJP(mlir::Operation *op, mlir::OpBuilder &b, mlir::Value input,
           mlir::Value result, llvm::ArrayRef<int64_t> axes,
           mlir::ValueRange resultGradients,
           llvm::SmallVectorImpl<mlir::Value> &operandGradients);

} // namespace loom::nn::vjp

#endif // LOOM_DIALECTS_NN_NNGRADIENTUTILS_H
