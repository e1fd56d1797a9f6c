//===- SimplifyCollectives.cpp - Merge and cancel collectives -------------===//
//
// Reshards are lowered one at a time and axis by axis; this pass cleans up
// what that leaves:
//   - a collective over a group of one device does nothing;
//   - all_gather then take_shard of the same dimension and axes, and the
//     reverse, cancel;
//   - all_reduce then take_shard is a reduce_scatter;
//   - all_gather along one dimension then take_shard along another over the
//     same axes is an all_to_all;
//   - two all_reduces of one kind are one over both groups; two all_gathers
//     (or take_shards) of one dimension are one over both axes.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNDialect.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loom {
#define GEN_PASS_DEF_DISTSIMPLIFYCOLLECTIVES
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {

int64_t groupSize(Operation *op, FlatSymbolRefAttr meshRef, ArrayAttr axes) {
  MeshOp mesh = lookupMesh(op, meshRef);
  if (!mesh)
    return -1;
  SmallVector<StringAttr> names;
  for (Attribute a : axes)
    names.push_back(cast<StringAttr>(a));
  return mesh.getGroupSize(names);
}

/// True if no axis is in both lists: only then is a collective over one
/// group followed by one over the other a collective over both.
bool disjoint(ArrayAttr a, ArrayAttr b) {
  return llvm::none_of(a,
                       [&](Attribute x) { return llvm::is_contained(b, x); });
}

/// Collectives are not Pure (they communicate), so one that a rewrite has
/// bypassed is erased explicitly.
void eraseIfUnused(PatternRewriter &rewriter, Operation *op) {
  if (op->use_empty())
    rewriter.eraseOp(op);
}

ArrayAttr concat(Builder &b, ArrayAttr major, ArrayAttr minor) {
  SmallVector<Attribute> all(major.begin(), major.end());
  all.append(minor.begin(), minor.end());
  return b.getArrayAttr(all);
}

/// Collectives over a single device are identities (mesh axes of size 1).
template <typename Op> struct DropTrivial : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (groupSize(op, op.getMeshAttr(), op.getMeshAxes()) != 1 ||
        op.getInput().getType() != op.getResult().getType())
      return failure();
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

struct TakeShardOfProducer : OpRewritePattern<TakeShardOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TakeShardOp op,
                                PatternRewriter &rewriter) const override {
    Operation *producer = op.getInput().getDefiningOp();
    if (!producer)
      return failure();
    // all_gather then take_shard of the same block: the input.
    if (auto gather = dyn_cast<AllGatherOp>(producer)) {
      if (gather.getMeshAxes() != op.getMeshAxes() ||
          gather.getMeshAttr() != op.getMeshAttr())
        return failure();
      if (gather.getDim() == op.getDim()) {
        rewriter.replaceOp(op, gather.getInput());
        eraseIfUnused(rewriter, gather);
        return success();
      }
      // Gathered along one dimension, split along another: all_to_all.
      if (!gather->hasOneUse())
        return failure();
      rewriter.replaceOpWithNewOp<AllToAllOp>(
          op, op.getType(), gather.getInput(), op.getMeshAttr(),
          op.getMeshAxes(), op.getDimAttr(), gather.getDimAttr());
      eraseIfUnused(rewriter, gather);
      return success();
    }
    // all_reduce then take_shard: reduce_scatter.
    if (auto reduce = dyn_cast<AllReduceOp>(producer)) {
      if (reduce.getMeshAxes() != op.getMeshAxes() ||
          reduce.getMeshAttr() != op.getMeshAttr() || !reduce->hasOneUse())
        return failure();
      rewriter.replaceOpWithNewOp<ReduceScatterOp>(
          op, op.getType(), reduce.getReductionAttr(), reduce.getInput(),
          op.getMeshAttr(), op.getMeshAxes(), op.getDimAttr());
      eraseIfUnused(rewriter, reduce);
      return success();
    }
    // take_shard of a take_shard of the same dimension: one, over both.
    if (auto inner = dyn_cast<TakeShardOp>(producer)) {
      if (inner.getDim() != op.getDim() ||
          inner.getMeshAttr() != op.getMeshAttr() || !inner->hasOneUse() ||
          !disjoint(inner.getMeshAxes(), op.getMeshAxes()))
        return failure();
      rewriter.replaceOpWithNewOp<TakeShardOp>(
          op, op.getType(), inner.getInput(), op.getMeshAttr(),
          concat(rewriter, inner.getMeshAxes(), op.getMeshAxes()),
          op.getDimAttr());
      eraseIfUnused(rewriter, inner);
      return success();
    }
    return failure();
  }
};

struct GatherOfProducer : OpRewritePattern<AllGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllGatherOp op,
                                PatternRewriter &rewriter) const override {
    Operation *producer = op.getInput().getDefiningOp();
    if (!producer)
      return failure();
    // take_shard then all_gather of the same block: the input, which was
    // whole along those axes.
    if (auto take = dyn_cast<TakeShardOp>(producer)) {
      if (take.getDim() != op.getDim() ||
          take.getMeshAxes() != op.getMeshAxes() ||
          take.getMeshAttr() != op.getMeshAttr())
        return failure();
      // Training state lives as blocks (ZeRO 3): only the block exists at
      // run time, so the gather must stay.
      if (Operation *source = take.getInput().getDefiningOp())
        if (source->hasAttr(nn::kUpdateAttrName))
          return failure();
      rewriter.replaceOp(op, take.getInput());
      eraseIfUnused(rewriter, take);
      return success();
    }
    // Gathering the minor axis, then the major one: one gather over both.
    if (auto inner = dyn_cast<AllGatherOp>(producer)) {
      if (inner.getDim() != op.getDim() ||
          inner.getMeshAttr() != op.getMeshAttr() || !inner->hasOneUse() ||
          !disjoint(inner.getMeshAxes(), op.getMeshAxes()))
        return failure();
      rewriter.replaceOpWithNewOp<AllGatherOp>(
          op, op.getType(), inner.getInput(), op.getMeshAttr(),
          concat(rewriter, op.getMeshAxes(), inner.getMeshAxes()),
          op.getDimAttr());
      eraseIfUnused(rewriter, inner);
      return success();
    }
    return failure();
  }
};

struct MergeAllReduces : OpRewritePattern<AllReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<AllReduceOp>();
    if (!inner || inner.getReduction() != op.getReduction() ||
        inner.getMeshAttr() != op.getMeshAttr() || !inner->hasOneUse() ||
        !disjoint(inner.getMeshAxes(), op.getMeshAxes()))
      return failure();
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        op, op.getType(), op.getReductionAttr(), inner.getInput(),
        op.getMeshAttr(),
        concat(rewriter, inner.getMeshAxes(), op.getMeshAxes()));
    eraseIfUnused(rewriter, inner);
    return success();
  }
};

struct DistSimplifyCollectivesPass
    : loom::impl::DistSimplifyCollectivesBase<DistSimplifyCollectivesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DropTrivial<AllReduceOp>, DropTrivial<AllGatherOp>,
                 DropTrivial<ReduceScatterOp>, DropTrivial<AllToAllOp>,
                 DropTrivial<BroadcastOp>, DropTrivial<TakeShardOp>,
                 TakeShardOfProducer, GatherOfProducer, MergeAllReduces>(
        &getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
