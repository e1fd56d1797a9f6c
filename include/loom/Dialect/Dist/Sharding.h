//===- Sharding.h - Shardings seen through sharding rules -------*- C++ -*-===//
//
// What the distribution passes share: reading and writing the sharding of a
// value, and translating between a tensor's per-dimension mesh axes and an
// op's per-factor mesh axes (ShardingRule). A dimension made of several
// factors takes its axes major to minor: the first axes split the major
// factor until it is used up, the next ones the following factor.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_DIST_SHARDING_H
#define LOOM_DIALECT_DIST_SHARDING_H

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Interfaces/ShardingRule.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace loom::dist {

using AxisList = llvm::SmallVector<mlir::StringAttr, 2>;

/// Mesh axes per factor of a rule; empty where a factor is not split.
using FactorAxes = llvm::SmallVector<AxisList>;

/// The sharding recorded for `value`: a `dist.sharding` function argument
/// attribute, the `dist.shardings` entry of its defining op, or the layout a
/// `dist.annotate` / `dist.reshard` gives its result. Null if none.
ShardingAttr getRecordedSharding(mlir::Value value);

/// Records `sharding` where getRecordedSharding reads it (not for results of
/// dist.annotate / dist.reshard, whose layout is their attribute).
void setRecordedSharding(mlir::Value value, ShardingAttr sharding);

/// The mesh `sharding` names, or null.
MeshOp lookupMesh(mlir::Operation *from, mlir::FlatSymbolRefAttr mesh);

/// Splits the axes of one dimension over its factors (major to minor).
/// Fails when an axis straddles two factors or does not divide the factor.
mlir::FailureOr<FactorAxes> axesToFactors(llvm::ArrayRef<mlir::StringAttr> axes,
                                          const DimFactors &factors,
                                          const ShardingRule &rule,
                                          MeshOp mesh);

/// Clears the axes of factors that some tensor of the rule could not show:
/// a dimension lists its axes major to minor, so a factor may be split only
/// if every more major factor of the dimension is split completely
/// (`[4, 8] -> 32` split along the 8 alone is no block layout of the 32).
void dropInexpressible(FactorAxes &factorAxes, const ShardingRule &rule,
                       MeshOp mesh);

/// The layout of a tensor mapped by `dims` under `factorAxes`, with
/// `partial` axes of kind `kind`.
ShardingAttr factorsToSharding(mlir::MLIRContext *ctx,
                               mlir::FlatSymbolRefAttr mesh,
                               const TensorFactors &dims,
                               const FactorAxes &factorAxes,
                               llvm::ArrayRef<mlir::StringAttr> partial = {},
                               ReductionKind kind = ReductionKind::Sum);

/// `sharding` with every dimension closed and no empty partial list:
/// the form printed plans and equality checks use.
ShardingAttr normalize(ShardingAttr sharding);

/// `sharding` without its partial axes.
ShardingAttr withoutPartial(ShardingAttr sharding);

/// The per-device type of a `global` tensor under `sharding`.
mlir::RankedTensorType localType(mlir::RankedTensorType global,
                                 ShardingAttr sharding, MeshOp mesh);

/// Axes of `sharding`'s dimension `d`.
llvm::ArrayRef<mlir::StringAttr> dimAxes(ShardingAttr sharding, size_t d);

/// `a, b` as `["a", "b"]`, for messages.
std::string formatAxes(llvm::ArrayRef<mlir::StringAttr> axes);

} // namespace loom::dist

#endif // LOOM_DIALECT_DIST_SHARDING_H
