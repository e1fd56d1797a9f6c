//===- Math.h - Float arithmetic as nn ops ----------------------*- C++ -*-===//
//
// What the training passes build their formulas from: nn ops on tensors and
// scalar constants, one op per operation, so that the expression written
// here is the order of evaluation (PyTorch's, for the optimizers).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_TRAINING_MATH_H
#define LOOM_PASSES_TRAINING_MATH_H

#include "loom/Dialect/NN/NNOps.h"
#include "mlir/IR/Builders.h"

namespace loom::training {

/// Builds float arithmetic with scalars broadcast against tensors.
struct Math {
  mlir::OpBuilder &b;
  mlir::Location loc;
  /// The element type of the scalar constants.
  mlir::FloatType elem;

  mlir::Value scalar(double v) {
    auto type = mlir::RankedTensorType::get({}, elem);
    return b.create<nn::ConstantOp>(
        loc, mlir::DenseElementsAttr::get(type, b.getFloatAttr(elem, v)));
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return b.create<nn::AddOp>(loc, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return b.create<nn::SubOp>(loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return b.create<nn::MulOp>(loc, x, y);
  }
  mlir::Value div(mlir::Value x, mlir::Value y) {
    return b.create<nn::DivOp>(loc, x, y);
  }
  mlir::Value sqrt(mlir::Value x) { return b.create<nn::SqrtOp>(loc, x); }
  mlir::Value min(mlir::Value x, mlir::Value y) {
    return b.create<nn::MinOp>(loc, x, y);
  }
  mlir::Value mul(mlir::Value x, double c) { return mul(x, scalar(c)); }
  /// The sum of all elements, as a scalar.
  mlir::Value sumAll(mlir::Value x) {
    auto type = mlir::cast<mlir::RankedTensorType>(x.getType());
    if (type.getRank() == 0)
      return x;
    llvm::SmallVector<int64_t> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      axes.push_back(d);
    return b.create<nn::ReduceSumOp>(loc, x, b.getDenseI64ArrayAttr(axes),
                                     b.getBoolAttr(false));
  }
};

} // namespace loom::training

#endif // LOOM_PASSES_TRAINING_MATH_H
