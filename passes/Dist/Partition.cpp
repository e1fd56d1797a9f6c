//===- Partition.cpp - From the global program to the per-device one ------===//
//
// Rewrites a function whose values carry layouts (after -dist-insert-
// reshards) into the program one device runs: every value gets the type of
// its block, attributes that spell shapes follow, annotations disappear, and
// reshards keep their layouts but take per-device types (lowered to
// collectives by -dist-lower-reshards). Sources that hold global data
// (parameters, non-splat constants, ranges) stay global and are followed by
// `dist.take_shard`: the artifact writer turns a parameter's take_shard into
// a slice made once at load time.
//
// The function is marked `dist.spmd`; its arguments and results keep their
// `dist.sharding`, which now says which block of the global tensor a device
// holds.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace loom {
#define GEN_PASS_DEF_DISTPARTITION
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {

/// `value` (global, replicated) cut down to this device's block of
/// `sharding`, one take_shard per split dimension.
Value takeShards(OpBuilder &b, Location loc, Value value, ShardingAttr sharding,
                 MeshOp mesh) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    if (dim.getAxes().empty())
      continue;
    shape[d] /= mesh.getGroupSize(dim.getAxes());
    SmallVector<StringRef> axes;
    for (StringAttr a : dim.getAxes())
      axes.push_back(a.getValue());
    value =
        b.create<TakeShardOp>(loc, type.clone(shape), value, sharding.getMesh(),
                              b.getStrArrayAttr(axes), b.getI64IntegerAttr(d));
  }
  return value;
}

/// A rank-0 constant.
Value scalar(OpBuilder &b, Location loc, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  Attribute attr =
      isa<FloatType>(element)
          ? Attribute(b.getFloatAttr(element, value))
          : Attribute(b.getIntegerAttr(element, static_cast<int64_t>(value)));
  return b.create<nn::ConstantOp>(loc, DenseElementsAttr::get(type, attr));
}

/// Rewrites a lookup into this device's rows [lo, lo + rows) of a table
/// split along the gathered axis: indices are made non-negative against the
/// global extent, rebased, and clamped; rows elsewhere read as zero. The
/// devices' results then add up to the lookup (the result is partial).
void maskVocabularyLookup(nn::GatherOp gather, int64_t globalRows,
                          ArrayRef<StringAttr> axes,
                          FlatSymbolRefAttr meshRef) {
  OpBuilder b(gather);
  Location loc = gather.getLoc();
  Value idx = gather.getIndices();
  auto idxType = cast<RankedTensorType>(idx.getType());
  Type it = idxType.getElementType();
  int64_t rows = gather.getData().getType().getDimSize(gather.getAxis());
  auto cmp = [&](nn::CompareDirection d, Value l, Value r) -> Value {
    return b.create<nn::CompareOp>(
        loc, nn::CompareDirectionAttr::get(b.getContext(), d), l, r);
  };
  Value zero = scalar(b, loc, it, 0);
  Value norm = b.create<nn::WhereOp>(
      loc, cmp(nn::CompareDirection::LT, idx, zero),
      b.create<nn::AddOp>(loc, idx, scalar(b, loc, it, globalRows)), idx);
  // This device's first row: its block of [0, rows, 2 rows, ...].
  Value starts = b.create<nn::RangeOp>(loc, b.getIntegerAttr(it, 0),
                                       b.getIntegerAttr(it, globalRows),
                                       b.getIntegerAttr(it, rows));
  SmallVector<StringRef> names;
  for (StringAttr a : axes)
    names.push_back(a.getValue());
  Value start = b.create<TakeShardOp>(loc, RankedTensorType::get({1}, it),
                                      starts, meshRef, b.getStrArrayAttr(names),
                                      b.getI64IntegerAttr(0));
  Value local = b.create<nn::SubOp>(loc, norm, start);
  Value inRange = b.create<nn::WhereOp>(
      loc, cmp(nn::CompareDirection::GE, local, zero),
      cmp(nn::CompareDirection::LT, local, scalar(b, loc, it, rows)),
      scalar(b, loc, b.getI1Type(), 0));
  Value safe = b.create<nn::WhereOp>(loc, inRange, local, zero);
  gather.getIndicesMutable().assign(safe);

  b.setInsertionPointAfter(gather);
  auto resultType = gather.getResult().getType();
  SmallVector<int64_t> maskShape(resultType.getRank(), 1);
  for (int64_t d = 0; d < idxType.getRank(); ++d)
    maskShape[gather.getAxis() + d] = idxType.getDimSize(d);
  Value mask = b.create<nn::ReshapeOp>(loc, inRange, maskShape);
  Value masked =
      b.create<nn::WhereOp>(loc, mask, gather.getResult(),
                            scalar(b, loc, resultType.getElementType(), 0));
  gather.getResult().replaceAllUsesExcept(masked, masked.getDefiningOp());
}

bool isSplit(ShardingAttr s) {
  return s && llvm::any_of(s.getDims(), [](DimShardingAttr d) {
           return !d.getAxes().empty();
         });
}

LogicalResult partition(func::FuncOp fn, MeshOp mesh) {
  MLIRContext *ctx = fn.getContext();
  Block &body = fn.getBody().front();
  for (BlockArgument arg : body.getArguments())
    if (auto type = dyn_cast<RankedTensorType>(arg.getType()))
      arg.setType(localType(type, getRecordedSharding(arg), mesh));

  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  // Lookups into a table split along the gathered axis, with the table's
  // global rows and the axes splitting them (read before layouts go).
  SmallVector<std::tuple<nn::GatherOp, int64_t, AxisList>> lookups;
  for (Operation *op : ops)
    if (auto gather = dyn_cast<nn::GatherOp>(op)) {
      ShardingAttr layout = getRecordedSharding(gather.getData());
      ArrayRef<StringAttr> axes = dimAxes(layout, gather.getAxis());
      if (!axes.empty())
        lookups.push_back(
            {gather, gather.getData().getType().getDimSize(gather.getAxis()),
             AxisList(axes.begin(), axes.end())});
    }
  for (Operation *op : ops) {
    OpBuilder b(op);
    if (auto annotate = dyn_cast<AnnotateOp>(op)) {
      annotate.getResult().replaceAllUsesWith(annotate.getInput());
      annotate.erase();
      continue;
    }
    if (auto reshard = dyn_cast<ReshardOp>(op)) {
      reshard.getResult().setType(
          localType(reshard.getResult().getType(), reshard.getTo(), mesh));
      continue;
    }
    if (isa<func::ReturnOp>(op))
      continue;
    if (auto barrier = dyn_cast<RecomputeOp>(op)) {
      barrier.getResult().setType(barrier.getInput().getType());
      op->removeAttr(dist::kShardingsAttrName);
      continue;
    }
    if (auto recv = dyn_cast<RecvOp>(op)) {
      if (ShardingAttr layout = getRecordedSharding(recv.getResult()))
        recv.getResult().setType(
            localType(recv.getResult().getType(), layout, mesh));
      op->removeAttr(dist::kShardingsAttrName);
      continue;
    }
    if (!isa<ShardingRuleOpInterface>(op) ||
        llvm::any_of(op->getResultTypes(),
                     [](Type t) { return !isa<RankedTensorType>(t); })) {
      // -dist-insert-reshards gives such ops whole operands; they run as
      // they are if their results are whole too.
      bool whole = llvm::all_of(op->getResults(), [](Value r) {
        ShardingAttr s = getRecordedSharding(r);
        return !s || s.isReplicated();
      });
      if (!whole)
        return op->emitError("cannot partition '")
               << op->getName() << "': it has no sharding rule";
      op->removeAttr(dist::kShardingsAttrName);
      continue;
    }

    SmallVector<ShardingAttr> layouts;
    for (Value r : op->getResults())
      layouts.push_back(getRecordedSharding(r));
    op->removeAttr(dist::kShardingsAttrName);
    if (op->getNumResults() == 1 && isSplit(layouts[0]) &&
        isa<nn::ParameterOp, nn::ConstantOp, nn::RangeOp>(op)) {
      Value global = op->getResult(0);
      auto type = cast<RankedTensorType>(global.getType());
      auto constant = dyn_cast<nn::ConstantOp>(op);
      auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue())
                            : SplatElementsAttr();
      if (splat) {
        auto local = localType(type, layouts[0], mesh);
        constant.setValueAttr(splat.resizeSplat(local));
        global.setType(local);
        continue;
      }
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : global.getUses())
        uses.push_back(&use);
      b.setInsertionPointAfter(op);
      Value local = takeShards(b, op->getLoc(), global, layouts[0], mesh);
      for (OpOperand *use : uses)
        use->set(local);
      continue;
    }
    for (auto [r, layout] : llvm::zip(op->getResults(), layouts))
      r.setType(localType(cast<RankedTensorType>(r.getType()), layout, mesh));

    // Attributes that spell a shape follow the per-device types.
    auto resultShape = [&] {
      return cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    };
    if (auto reshape = dyn_cast<nn::ReshapeOp>(op)) {
      reshape.setShape(resultShape());
    } else if (auto broadcast = dyn_cast<nn::BroadcastToOp>(op)) {
      broadcast.setShape(resultShape());
    } else if (auto slice = dyn_cast<nn::SliceOp>(op)) {
      // Split dimensions are whole in the global slice (the rule), so
      // their size is the block's.
      SmallVector<int64_t> sizes(slice.getSizes());
      ShardingAttr layout = layouts[0];
      for (size_t d = 0; d < sizes.size(); ++d)
        if (!dimAxes(layout, d).empty())
          sizes[d] = resultShape()[d];
      slice.setSizes(sizes);
    }
  }
  for (auto &[gather, rows, axes] : lookups)
    maskVocabularyLookup(gather, rows, axes,
                         FlatSymbolRefAttr::get(mesh.getSymNameAttr()));
  // Convolution groups follow the (already local) channel counts.
  fn.walk([&](nn::Conv2dOp conv) {
    int64_t groups = conv.getGroups();
    int64_t perGroup = conv.getFilter().getType().getDimSize(1);
    int64_t channels = conv.getInput().getType().getDimSize(1);
    if (groups > 1 && perGroup > 0 && channels / perGroup != groups)
      conv.setGroups(channels / perGroup);
  });

  auto ret = cast<func::ReturnOp>(body.getTerminator());
  fn.setType(
      FunctionType::get(ctx, body.getArgumentTypes(), ret.getOperandTypes()));
  fn->setAttr(kSPMDAttrName, UnitAttr::get(ctx));
  return success();
}

struct DistPartitionPass : loom::impl::DistPartitionBase<DistPartitionPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn->hasAttr(kSPMDAttrName))
        continue;
      MeshOp mesh;
      auto consider = [&](ShardingAttr s) {
        if (s && !mesh)
          mesh = lookupMesh(fn, s.getMesh());
      };
      for (BlockArgument arg : fn.getArguments())
        consider(getRecordedSharding(arg));
      fn.walk([&](Operation *op) {
        for (Value r : op->getResults())
          if (isa<RankedTensorType>(r.getType()))
            consider(getRecordedSharding(r));
      });
      if (!mesh)
        continue;
      if (!fn.getBody().hasOneBlock()) {
        fn.emitError("partitioning needs a single-block function");
        return signalPassFailure();
      }
      if (failed(partition(fn, mesh)))
        return signalPassFailure();
    }
  }
};
} // namespace
