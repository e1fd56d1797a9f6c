//===- NNOps.h - nn dialect operations --------------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_NN_NNOPS_H
#define LOOM_DIALECT_NN_NNOPS_H

#include "loom/Dialect/NN/NNDialect.h"
#include "loom/Interfaces/Interfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nn/NNEnums.h.inc"

namespace loom::nn {

/// Infers the numpy/ONNX broadcast of `operandTypes` with `elementType`;
/// emits an error at `loc` (if given) when the shapes do not broadcast.
mlir::LogicalResult
inferBroadcastResult(std::optional<mlir::Location> loc,
                     mlir::TypeRange operandTypes, mlir::Type elementType,
                     llvm::SmallVectorImpl<mlir::Type> &results);

/// Infers the result of reducing `input` over `axes`.
mlir::LogicalResult
inferReduceResult(std::optional<mlir::Location> loc, mlir::Type input,
                  llvm::ArrayRef<int64_t> axes, bool keepdims,
                  llvm::SmallVectorImpl<mlir::Type> &results);

/// Checks that `axes` lie in [0, rank), are unique and (if asked) sorted.
mlir::LogicalResult verifyAxes(mlir::Operation *op,
                               llvm::ArrayRef<int64_t> axes, int64_t rank,
                               bool requireSorted);

/// The sharding rule of a reduction: reduced dimensions are reduction
/// factors of `kind`, the others parallel.
ShardingRule getReduceShardingRule(mlir::RankedTensorType input,
                                   llvm::ArrayRef<int64_t> axes, bool keepdims,
                                   ReductionKind kind);

/// The cost of reducing the operand to the result with `kind`.
mlir::FailureOr<OpCost> getReduceCost(mlir::TypeRange operandTypes,
                                      mlir::TypeRange resultTypes,
                                      ReductionKind kind);

} // namespace loom::nn

#define GET_OP_CLASSES
#include "nn/NNOps.h.inc"

#endif // LOOM_DIALECT_NN_NNOPS_H
