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

namespace loom::nn {

/// Whether `t` is a storage-only element type (an 8-bit float or a 4-bit
/// integer): nn.cast converts it and the data-movement ops move it, nothing
/// computes on it.
bool isStorageOnlyType(mlir::Type t);

/// The signless type that stores element type `t` once
/// -nn-legalize-storage-types has run: i8 for the storage-only types, the
/// signless integer of the same width for unsigned ones, else `t` itself.
mlir::Type getStorageType(mlir::Type t);

/// Infers the numpy/ONNX broadcast of `operandTypes` with `elementType`;
/// emits an error at `loc` (if given) when the shapes do not broadcast.
mlir::LogicalResult
inferBroadcastResult(std::optional<mlir::Location> loc,
                     mlir::TypeRange operandTypes, mlir::Type elementType,
                     llvm::SmallVectorImpl<mlir::Type> &results);

/// The window of a pooling op over `kernel.size()` spatial dimensions, with
/// absent attributes filled in: strides and dilations 1, padding 0.
/// `padding` is [begin..., end...].
struct PoolWindow {
  PoolWindow(llvm::ArrayRef<int64_t> kernel,
             std::optional<llvm::ArrayRef<int64_t>> strides,
             std::optional<llvm::ArrayRef<int64_t>> padding,
             std::optional<llvm::ArrayRef<int64_t>> dilations);
  size_t rank() const { return kernel.size(); }
  /// The span of the window along spatial dimension `i`,
  /// (kernel - 1) * dilation + 1.
  int64_t extent(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  /// For each of `outputs` positions along spatial dimension `i` of an
  /// input of `inputExtent`, what an average divides by: the kernel's size,
  /// or (without `countIncludePad`) how many of its window's positions lie
  /// inside the input.
  llvm::SmallVector<int64_t> averageCounts(size_t i, int64_t outputs,
                                           int64_t inputExtent,
                                           bool countIncludePad) const;
  llvm::SmallVector<int64_t> kernel, strides, padding, dilations;
};

/// Infers the result of pooling `input` over `window`.
mlir::LogicalResult inferPoolResult(std::optional<mlir::Location> loc,
                                    mlir::Type input, const PoolWindow &window,
                                    bool ceilMode,
                                    llvm::SmallVectorImpl<mlir::Type> &results);

/// Checks that no padding is as wide as the window's extent (which would
/// create windows of padding only).
mlir::LogicalResult verifyPoolPadding(mlir::Operation *op,
                                      const PoolWindow &window);

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

/// `value` as a float literal in the shortest form that reads back exactly:
/// `0.9`, `1.0`, `1.0E-8` (the hyper-parameters of the optimizer updates).
std::string formatFloatLiteral(const llvm::APFloat &value);

} // namespace loom::nn

#include "nn/NNOptimizerInterface.h.inc"

#define GET_OP_CLASSES
#include "nn/NNOps.h.inc"

#endif // LOOM_DIALECT_NN_NNOPS_H
