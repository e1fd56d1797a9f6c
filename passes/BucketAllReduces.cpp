//===- BucketAllReduces.cpp - Pack all_reduces into buckets ---------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Passes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace loom {
#define GEN_PASS_DEF_DISTBUCKETALLREDUCES
#include "Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

int64_t bytesOf(dist::AllReduceOp op) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

bool sameKind(dist::AllReduceOp a, dist::AllReduceOp b) {
  return a.getReduction() == b.getReduction() && a.getMesh() == b.getMesh() &&
         a.getMeshAxes() == b.getMeshAxes() &&
         getElementTypeOrSelf(a.getInput().getType()) ==
             getElementTypeOrSelf(b.getInput().getType());
}

/// The ops after the bucket's first member and before `until` that use a
/// member's result, directly or not: they move after the bucket's call.
/// Fails when `until` itself needs one of them.
FailureOr<SmallVector<Operation *>>
dependents(ArrayRef<dist::AllReduceOp> bucket, Operation *until) {
  llvm::SmallPtrSet<Operation *, 16> tainted;
  for (dist::AllReduceOp op : bucket)
    tainted.insert(op);
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

void emitBucket(ArrayRef<dist::AllReduceOp> bucket) {
  if (bucket.size() < 2)
    return;
  dist::AllReduceOp last = bucket.back();
  FailureOr<SmallVector<Operation *>> moved =
      dependents(bucket.drop_back(), last);
  if (failed(moved))
    return;
  OpBuilder b(last);
  b.setInsertionPointAfter(last);
  Location loc = last.getLoc();
  SmallVector<Value> flat;
  for (dist::AllReduceOp op : bucket) {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    flat.push_back(b.create<nn::ReshapeOp>(
        loc, op.getInput(),
        b.getDenseI64ArrayAttr(ArrayRef<int64_t>{type.getNumElements()})));
  }
  Value packed = b.create<nn::ConcatOp>(loc, flat, b.getI64IntegerAttr(0));
  Value reduced = b.create<dist::AllReduceOp>(
      loc, packed.getType(), last.getReductionAttr(), packed,
      last.getMeshAttr(), last.getMeshAxesAttr());
  int64_t offset = 0;
  Operation *end = nullptr;
  for (dist::AllReduceOp op : bucket) {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t n = type.getNumElements();
    Value part =
        b.create<nn::SliceOp>(loc, reduced, ArrayRef<int64_t>{offset},
                              ArrayRef<int64_t>{n}, ArrayRef<int64_t>{1});
    Value shaped = b.create<nn::ReshapeOp>(
        loc, part, b.getDenseI64ArrayAttr(type.getShape()));
    op.getResult().replaceAllUsesWith(shaped);
    end = shaped.getDefiningOp();
    offset += n;
  }
  for (Operation *op : *moved) {
    op->moveAfter(end);
    end = op;
  }
  for (dist::AllReduceOp op : bucket)
    op.erase();
}

struct DistBucketAllReducesPass
    : loom::impl::DistBucketAllReducesBase<DistBucketAllReducesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      SmallVector<dist::AllReduceOp> ops(block->getOps<dist::AllReduceOp>());
      SmallVector<SmallVector<dist::AllReduceOp>> buckets;
      SmallVector<dist::AllReduceOp> open;
      int64_t openBytes = 0;
      for (dist::AllReduceOp op : ops) {
        bool fits = !open.empty() && sameKind(open.front(), op) &&
                    openBytes + bytesOf(op) <= bucketBytes &&
                    succeeded(dependents(open, op));
        if (!fits) {
          buckets.push_back(std::move(open));
          open.clear();
          openBytes = 0;
        }
        open.push_back(op);
        openBytes += bytesOf(op);
      }
      buckets.push_back(std::move(open));
      for (auto &bucket : buckets)
        emitBucket(bucket);
    }
  }
};
} // namespace
