//===- BucketCollectives.cpp - Pack collectives into buckets --------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace loom {
#define GEN_PASS_DEF_DISTBUCKETCOLLECTIVES
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

/// What a collective is for bucketing: ops with equal keys can share one
/// call. `dim` is the gathered or scattered dimension, whose leading
/// dimensions are all 1 (so it is the outermost in memory).
struct Key {
  StringRef kind;
  Attribute mesh, axes, reduction;
  Type element;
  bool operator==(const Key &o) const {
    return kind == o.kind && mesh == o.mesh && axes == o.axes &&
           reduction == o.reduction && element == o.element;
  }
};

RankedTensorType inputType(Operation *op) {
  return cast<RankedTensorType>(op->getOperand(0).getType());
}

int64_t bytesOf(Operation *op) {
  RankedTensorType type = inputType(op);
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Whether dimensions before `dim` of `type` are all 1.
bool outermost(RankedTensorType type, int64_t dim) {
  for (int64_t d = 0; d < dim; ++d)
    if (type.getDimSize(d) != 1)
      return false;
  return true;
}

std::optional<Key> keyOf(Operation *op) {
  if (!op->getNumOperands())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Type element = type.getElementType();
  if (auto ar = dyn_cast<dist::AllReduceOp>(op))
    return Key{"all_reduce", ar.getMeshAttr(), ar.getMeshAxesAttr(),
               ar.getReductionAttr(), element};
  if (auto ag = dyn_cast<dist::AllGatherOp>(op))
    if (outermost(type, ag.getDim()))
      return Key{
          "all_gather", ag.getMeshAttr(), ag.getMeshAxesAttr(), {}, element};
  if (auto rs = dyn_cast<dist::ReduceScatterOp>(op))
    if (outermost(type, rs.getDim()))
      return Key{"reduce_scatter", rs.getMeshAttr(), rs.getMeshAxesAttr(),
                 rs.getReductionAttr(), element};
  return std::nullopt;
}

/// The ops after the bucket's first member and before `until` that use a
/// member's result, directly or not: they move after the bucket's call.
/// Fails when `until` itself needs one of them.
FailureOr<SmallVector<Operation *>> dependents(ArrayRef<Operation *> bucket,
                                               Operation *until) {
  llvm::SmallPtrSet<Operation *, 16> tainted(bucket.begin(), bucket.end());
  SmallVector<Operation *> moved;
  auto uses = [&](Operation *op) {
    bool found = false;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp())
          found |= tainted.contains(def);
    });
    return found;
  };
  for (Operation *op = bucket.front()->getNextNode(); op && op != until;
       op = op->getNextNode()) {
    if (tainted.contains(op) || !uses(op))
      continue;
    tainted.insert(op);
    moved.push_back(op);
  }
  if (uses(until))
    return failure();
  return moved;
}

Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  return b.create<nn::ReshapeOp>(loc, v, b.getDenseI64ArrayAttr(shape));
}

/// One call for the whole bucket, at its last member. Every member's input
/// is viewed as [rows, cols]: all_reduce and all_gather flatten it (rows 1);
/// reduce_scatter splits it into its `n` blocks (rows n), so that the
/// blocks of all members concatenate per device.
void emitBucket(SmallVector<Operation *> bucket) {
  if (bucket.size() < 2)
    return;
  llvm::sort(bucket,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  Operation *last = bucket.back();
  FailureOr<SmallVector<Operation *>> moved =
      dependents(ArrayRef(bucket).drop_back(), last);
  if (failed(moved))
    return;
  OpBuilder b(last);
  b.setInsertionPointAfter(last);
  Location loc = last->getLoc();
  auto scatter = dyn_cast<dist::ReduceScatterOp>(last);
  int64_t rows = 1, total = 0;
  if (scatter)
    rows =
        inputType(last).getNumElements() /
        cast<RankedTensorType>(last->getResult(0).getType()).getNumElements();
  SmallVector<Value> parts;
  SmallVector<int64_t> widths;
  for (Operation *op : bucket) {
    int64_t width = inputType(op).getNumElements() / rows;
    parts.push_back(reshape(b, loc, op->getOperand(0), {rows, width}));
    widths.push_back(width);
    total += width;
  }
  Value packed = reshape(
      b, loc, b.create<nn::ConcatOp>(loc, parts, b.getI64IntegerAttr(1)),
      {rows * total});
  auto packedType = cast<RankedTensorType>(packed.getType());
  Value combined;
  int64_t n = 1;
  if (auto ar = dyn_cast<dist::AllReduceOp>(last)) {
    combined = b.create<dist::AllReduceOp>(
        loc, packedType, ar.getReductionAttr(), packed, ar.getMeshAttr(),
        ar.getMeshAxesAttr());
  } else if (auto ag = dyn_cast<dist::AllGatherOp>(last)) {
    n = cast<RankedTensorType>(ag.getResult().getType()).getNumElements() /
        inputType(ag).getNumElements();
    combined = b.create<dist::AllGatherOp>(
        loc, packedType.clone({n * total}), packed, ag.getMeshAttr(),
        ag.getMeshAxesAttr(), b.getI64IntegerAttr(0));
  } else {
    combined = b.create<dist::ReduceScatterOp>(
        loc, packedType.clone({total}), scatter.getReductionAttr(), packed,
        scatter.getMeshAttr(), scatter.getMeshAxesAttr(),
        b.getI64IntegerAttr(0));
  }
  // Gathered results are [n][total]: member i's is columns of every row.
  Value grid = reshape(b, loc, combined, {n, total});
  int64_t offset = 0;
  Operation *end = nullptr;
  for (auto [op, width] : llvm::zip(bucket, widths)) {
    Value part = b.create<nn::SliceOp>(loc, grid, ArrayRef<int64_t>{0, offset},
                                       ArrayRef<int64_t>{n, width},
                                       ArrayRef<int64_t>{1, 1});
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value shaped = reshape(b, loc, part, resultType.getShape());
    op->getResult(0).replaceAllUsesWith(shaped);
    end = shaped.getDefiningOp();
    offset += width;
  }
  for (Operation *op : *moved) {
    op->moveAfter(end);
    end = op;
  }
  for (Operation *op : bucket)
    op->erase();
}

struct DistBucketCollectivesPass
    : loom::impl::DistBucketCollectivesBase<DistBucketCollectivesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      // Open buckets, one per key, and those closed so far.
      struct Open {
        Key key;
        SmallVector<Operation *> ops;
        int64_t bytes = 0;
      };
      SmallVector<Open> open;
      SmallVector<SmallVector<Operation *>> done;
      for (Operation &op : *block) {
        // A bucket never spans a transfer between pipeline stages: its call
        // would move a send after a receive the peer waits on.
        if (isa<dist::SendOp, dist::RecvOp>(op)) {
          for (Open &o : open)
            done.push_back(std::move(o.ops));
          open.clear();
          continue;
        }
        std::optional<Key> key = keyOf(&op);
        if (!key)
          continue;
        auto it =
            llvm::find_if(open, [&](const Open &o) { return o.key == *key; });
        if (it != open.end()) {
          bool fits = it->bytes + bytesOf(&op) <= bucketBytes &&
                      succeeded(dependents(it->ops, &op));
          if (fits) {
            it->ops.push_back(&op);
            it->bytes += bytesOf(&op);
            continue;
          }
          done.push_back(std::move(it->ops));
          open.erase(it);
        }
        open.push_back({*key, {&op}, bytesOf(&op)});
      }
      for (Open &o : open)
        done.push_back(std::move(o.ops));
      for (SmallVector<Operation *> &bucket : done)
        emitBucket(bucket);
    }
  }
};
} // namespace
