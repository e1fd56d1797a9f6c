//===- LowerReshards.cpp - Reshards into collectives ----------------------===//
//
// Turns each per-device `dist.reshard` (after -dist-partition) into the
// collectives that realise it, in three steps:
//   1. partial axes the target does not keep: a reduce-scatter when the
//      target splits a dimension by exactly those axes next, else an
//      all-reduce;
//   2. axes a dimension loses (minor first): an all-to-all when another
//      dimension takes the axis next, else an all-gather;
//   3. axes a dimension gains: `dist.take_shard`, which needs no
//      communication since the value is whole along them by then.
// -dist-simplify-collectives then merges and cancels what follows.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace loom {
#define GEN_PASS_DEF_DISTLOWERRESHARDS
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {

class Lowering {
public:
  Lowering(ReshardOp op, MeshOp mesh)
      : op(op), mesh(mesh), b(op), loc(op.getLoc()) {
    ShardingAttr from = op.getFrom();
    for (DimShardingAttr d : from.getDims())
      dims.emplace_back(d.getAxes().begin(), d.getAxes().end());
    partial.assign(from.getPartialAxes().begin(), from.getPartialAxes().end());
    RankedTensorType in = op.getInput().getType();
    global.assign(in.getShape().begin(), in.getShape().end());
    for (size_t d = 0; d < dims.size(); ++d)
      global[d] *= mesh.getGroupSize(dims[d]);
    element = in.getElementType();
    value = op.getInput();
  }

  Value run() {
    ShardingAttr to = op.getTo();
    SmallVector<AxisList> target;
    for (DimShardingAttr d : to.getDims())
      target.emplace_back(d.getAxes().begin(), d.getAxes().end());

    // 1. Partial axes that go away.
    AxisList reduce;
    for (StringAttr a : partial)
      if (!llvm::is_contained(to.getPartialAxes(), a))
        reduce.push_back(a);
    if (!reduce.empty()) {
      ReductionKind kind = op.getFrom().getPartialKind();
      bool scattered = false;
      for (size_t d = 0; d < dims.size() && !scattered; ++d) {
        size_t have = dims[d].size();
        if (target[d].size() < have + reduce.size() ||
            !std::equal(dims[d].begin(), dims[d].end(), target[d].begin()))
          continue;
        AxisList next(target[d].begin() + have,
                      target[d].begin() + have + reduce.size());
        if (!llvm::all_of(next, [&](StringAttr a) {
              return llvm::is_contained(reduce, a);
            }))
          continue;
        llvm::append_range(dims[d], next);
        value = b.create<ReduceScatterOp>(loc, type(), kindAttr(kind), value,
                                          meshRef(), names(next),
                                          b.getI64IntegerAttr(d));
        scattered = true;
      }
      if (!scattered)
        value = b.create<AllReduceOp>(loc, value.getType(), kindAttr(kind),
                                      value, meshRef(), names(reduce));
    }

    // 2. Axes dimensions lose, minor first.
    for (size_t d = 0; d < dims.size(); ++d) {
      size_t keep = 0;
      while (keep < dims[d].size() && keep < target[d].size() &&
             dims[d][keep] == target[d][keep])
        ++keep;
      while (dims[d].size() > keep) {
        StringAttr axis = dims[d].back();
        dims[d].pop_back();
        std::optional<size_t> into;
        for (size_t j = 0; j < dims.size() && !into; ++j) {
          if (j == d || dims[j].size() >= target[j].size() ||
              !std::equal(dims[j].begin(), dims[j].end(), target[j].begin()))
            continue;
          if (target[j][dims[j].size()] == axis)
            into = j;
        }
        if (into) {
          dims[*into].push_back(axis);
          value = b.create<AllToAllOp>(
              loc, type(), value, meshRef(), names({axis}),
              b.getI64IntegerAttr(*into), b.getI64IntegerAttr(d));
        } else {
          value = b.create<AllGatherOp>(loc, type(), value, meshRef(),
                                        names({axis}), b.getI64IntegerAttr(d));
        }
      }
    }

    // 3. Axes dimensions gain.
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].size() >= target[d].size())
        continue;
      AxisList add(target[d].begin() + dims[d].size(), target[d].end());
      llvm::append_range(dims[d], add);
      value = b.create<TakeShardOp>(loc, type(), value, meshRef(), names(add),
                                    b.getI64IntegerAttr(d));
    }
    return value;
  }

private:
  RankedTensorType type() {
    SmallVector<int64_t> shape(global);
    for (size_t d = 0; d < dims.size(); ++d)
      shape[d] /= mesh.getGroupSize(dims[d]);
    return RankedTensorType::get(shape, element);
  }
  FlatSymbolRefAttr meshRef() { return op.getFrom().getMesh(); }
  ReductionKindAttr kindAttr(ReductionKind kind) {
    return ReductionKindAttr::get(b.getContext(), kind);
  }
  ArrayAttr names(ArrayRef<StringAttr> axes) {
    SmallVector<Attribute> list(axes.begin(), axes.end());
    return b.getArrayAttr(list);
  }

  ReshardOp op;
  MeshOp mesh;
  OpBuilder b;
  Location loc;
  SmallVector<AxisList> dims;
  AxisList partial;
  SmallVector<int64_t> global;
  Type element;
  Value value;
};

struct DistLowerReshardsPass
    : loom::impl::DistLowerReshardsBase<DistLowerReshardsPass> {
  void runOnOperation() override {
    SmallVector<ReshardOp> reshards;
    getOperation().walk([&](ReshardOp op) { reshards.push_back(op); });
    for (ReshardOp op : reshards) {
      auto fn = op->getParentOfType<func::FuncOp>();
      if (!fn || !fn->hasAttr(kSPMDAttrName)) {
        op.emitError("reshards are lowered after -dist-partition");
        return signalPassFailure();
      }
      MeshOp mesh = lookupMesh(op, op.getFrom().getMesh());
      if (!mesh) {
        op.emitError("unknown mesh ") << op.getFrom().getMesh();
        return signalPassFailure();
      }
      Value lowered = Lowering(op, mesh).run();
      if (lowered.getType() != op.getType()) {
        op.emitError("internal error: lowered to ")
            << lowered.getType() << ", expected " << op.getType();
        return signalPassFailure();
      }
      op.replaceAllUsesWith(lowered);
      op.erase();
    }
  }
};
} // namespace
