//===- NNParameterArgs.h - Weightless parameters ----------------*- C++ -*-===//
//
// A weightless parameter is a `func.func` argument carrying the argument
// attribute `nn.parameter = "NAME"`: it names a weight as an `nn.parameter`
// op would, and has its type (a ranked float tensor), but the module holds
// no data for it. Models too large to materialise (a 175B GPT) are imported
// this way (loomc --parameter-inputs). Such a module can be priced,
// propagated and planned; what needs the weights' data (training,
// compilation) refuses it.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_NN_NNPARAMETERARGS_H
#define LOOM_DIALECT_NN_NNPARAMETERARGS_H

#include "loom/Dialect/NN/NNDialect.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace loom::nn {

/// The argument attribute that makes a func.func argument a weightless
/// parameter (a non-empty StringAttr: the parameter's name).
inline constexpr llvm::StringLiteral kParameterArgAttrName =
    NNDialect::ParameterAttrHelper::getNameStr();

/// The parameter name argument `argIndex` of `fn` carries in `nn.parameter`,
/// or "" when it is not a weightless parameter.
llvm::StringRef getArgumentParameterName(mlir::func::FuncOp fn,
                                         unsigned argIndex);

/// Fails, with an error at the first weightless parameter argument of `fn`
/// naming it, when `fn` has one: for what needs the weights' data (training,
/// compilation).
mlir::LogicalResult checkHasWeightData(mlir::func::FuncOp fn);

} // namespace loom::nn

#endif // LOOM_DIALECT_NN_NNPARAMETERARGS_H
