//===- DistDialect.h - The dist dialect -------------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_DIST_DISTDIALECT_H
#define LOOM_DIALECT_DIST_DISTDIALECT_H

#include "loom/Interfaces/LoomEnums.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "dist/DistEnums.h.inc"

namespace loom::dist {} // namespace loom::dist

#define GET_ATTRDEF_CLASSES
#include "dist/DistAttrs.h.inc"

#include "dist/DistDialect.h.inc"

namespace loom::dist {
/// The names of the dialect's discardable attributes (DistBase.td), for
/// function argument and result attributes and lookups without a dialect
/// instance.
inline constexpr llvm::StringLiteral kShardingAttrName =
    DistDialect::ShardingAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kShardingsAttrName =
    DistDialect::ShardingsAttrHelper::getNameStr();
/// Marks a function as partitioned (`-dist-partition`): its values have
/// per-device types, and the `dist.sharding` of its arguments and results
/// says which block of the global tensor each device holds.
inline constexpr llvm::StringLiteral kSPMDAttrName =
    DistDialect::SpmdAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kStageAttrName =
    DistDialect::StageAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kBackwardAttrName =
    DistDialect::BackwardAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPipelineAttrName =
    DistDialect::PipelineAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kPlanAttrName =
    DistDialect::PlanAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kCommGroupsAttrName =
    DistDialect::CommGroupsAttrHelper::getNameStr();
inline constexpr llvm::StringLiteral kCollectivesAttrName =
    DistDialect::CollectivesAttrHelper::getNameStr();
} // namespace loom::dist

#endif // LOOM_DIALECT_DIST_DISTDIALECT_H
