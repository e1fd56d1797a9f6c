//===- Sharding.cpp - Shardings seen through sharding rules ---------------===//

#include "loom/Dialect/Dist/Sharding.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace loom;
using namespace loom::dist;

ShardingAttr loom::dist::getRecordedSharding(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!fn || arg.getOwner() != &fn.getFunctionBody().front())
      return {};
    return fn.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(),
                                             kShardingAttrName);
  }
  Operation *op = value.getDefiningOp();
  if (auto annotate = dyn_cast<AnnotateOp>(op))
    return annotate.getSharding();
  if (auto reshard = dyn_cast<ReshardOp>(op))
    return reshard.getTo();
  auto list = op->getAttrOfType<ArrayAttr>(kShardingsAttrName);
  unsigned index = cast<OpResult>(value).getResultNumber();
  if (!list || list.size() != op->getNumResults())
    return {};
  return dyn_cast<ShardingAttr>(list[index]);
}

void loom::dist::setRecordedSharding(Value value, ShardingAttr sharding) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto fn = cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    fn.setArgAttr(arg.getArgNumber(), kShardingAttrName, sharding);
    return;
  }
  Operation *op = value.getDefiningOp();
  if (isa<AnnotateOp, ReshardOp>(op))
    return;
  SmallVector<Attribute> list;
  if (auto old = op->getAttrOfType<ArrayAttr>(kShardingsAttrName);
      old && old.size() == op->getNumResults())
    list.assign(old.begin(), old.end());
  else
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      list.push_back(ShardingAttr::getReplicated(
          op->getContext(), sharding.getMesh(), type ? type.getRank() : 0));
    }
  list[cast<OpResult>(value).getResultNumber()] = sharding;
  op->setAttr(kShardingsAttrName, ArrayAttr::get(op->getContext(), list));
}

MeshOp loom::dist::lookupMesh(Operation *from, FlatSymbolRefAttr mesh) {
  return SymbolTable::lookupNearestSymbolFrom<MeshOp>(from, mesh);
}

FailureOr<FactorAxes> loom::dist::axesToFactors(ArrayRef<StringAttr> axes,
                                                const DimFactors &factors,
                                                const ShardingRule &rule,
                                                MeshOp mesh) {
  FactorAxes result(factors.size());
  size_t f = 0;
  int64_t remaining = factors.empty() ? 1 : rule.getFactor(factors[0]).size;
  for (StringAttr axis : axes) {
    MeshAxisAttr attr = mesh.getAxis(axis.getValue());
    if (!attr)
      return failure();
    int64_t size = attr.getSize();
    // An axis of size 1 splits nothing; keep it on the current factor.
    while (size > 1 && remaining == 1 && f + 1 < factors.size())
      remaining = rule.getFactor(factors[++f]).size;
    if (f >= factors.size() || ShapedType::isDynamic(remaining) ||
        remaining % size != 0)
      return failure();
    result[f].push_back(axis);
    remaining /= size;
  }
  return result;
}

void loom::dist::dropInexpressible(FactorAxes &factorAxes,
                                   const ShardingRule &rule, MeshOp mesh) {
  bool changed = true;
  auto sweep = [&](ArrayRef<TensorFactors> tensors) {
    for (const TensorFactors &dims : tensors)
      for (const DimFactors &dim : dims) {
        bool whole = true;
        for (int f : dim) {
          if (!whole && !factorAxes[f].empty()) {
            factorAxes[f].clear();
            changed = true;
          }
          int64_t left = rule.getFactor(f).size /
                         mesh.getGroupSize(ArrayRef<StringAttr>(factorAxes[f]));
          whole &= left == 1;
        }
      }
  };
  while (changed) {
    changed = false;
    sweep(rule.getOperands());
    sweep(rule.getResults());
  }
}

ShardingAttr loom::dist::factorsToSharding(MLIRContext *ctx,
                                           FlatSymbolRefAttr mesh,
                                           const TensorFactors &dims,
                                           const FactorAxes &factorAxes,
                                           ArrayRef<StringAttr> partial,
                                           ReductionKind kind) {
  SmallVector<DimShardingAttr> out;
  for (const DimFactors &dim : dims) {
    SmallVector<StringAttr> axes;
    for (int f : dim)
      llvm::append_range(axes, factorAxes[f]);
    out.push_back(DimShardingAttr::get(ctx, axes, /*open=*/false));
  }
  return ShardingAttr::get(ctx, mesh, out, partial,
                           partial.empty() ? ReductionKind::Sum : kind);
}

ShardingAttr loom::dist::normalize(ShardingAttr sharding) {
  if (!sharding)
    return sharding;
  MLIRContext *ctx = sharding.getContext();
  SmallVector<DimShardingAttr> dims;
  for (DimShardingAttr dim : sharding.getDims())
    dims.push_back(DimShardingAttr::get(ctx, dim.getAxes(), false));
  ArrayRef<StringAttr> partial = sharding.getPartialAxes();
  return ShardingAttr::get(ctx, sharding.getMesh(), dims, partial,
                           partial.empty() ? ReductionKind::Sum
                                           : sharding.getPartialKind());
}

ShardingAttr loom::dist::withoutPartial(ShardingAttr sharding) {
  return ShardingAttr::get(sharding.getContext(), sharding.getMesh(),
                           sharding.getDims(), {}, ReductionKind::Sum);
}

RankedTensorType loom::dist::localType(RankedTensorType global,
                                       ShardingAttr sharding, MeshOp mesh) {
  if (!sharding)
    return global;
  SmallVector<int64_t> shape(global.getShape());
  for (auto [d, dim] : llvm::enumerate(sharding.getDims()))
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] /= mesh.getGroupSize(dim.getAxes());
  return global.clone(shape);
}

ArrayRef<StringAttr> loom::dist::dimAxes(ShardingAttr sharding, size_t d) {
  if (!sharding || d >= sharding.getDims().size())
    return {};
  return sharding.getDims()[d].getAxes();
}

std::string loom::dist::formatAxes(ArrayRef<StringAttr> axes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(
      axes, os, [&](StringAttr a) { os << '"' << a.getValue() << '"'; });
  os << ']';
  return text;
}
