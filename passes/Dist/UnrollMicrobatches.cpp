//===- UnrollMicrobatches.cpp - The microbatch loop as straight code ------===//
//
// -dist-unroll-microbatches: a dist.microbatches loop becomes its body
// cloned once per microbatch, on strided views of the inputs, with the
// yielded values added up in microbatch order. What runs is then the same
// step as a batch `count` times the size, summed in a fixed order (so reruns
// are bit-identical).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace loom {
#define GEN_PASS_DEF_DISTUNROLLMICROBATCHES
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {
/// Microbatch k of `input` (rows k, k + count, ...) for every k, as a
/// reshape to [rows / count, count, ...] and one slice per microbatch.
SmallVector<Value> microbatchViews(OpBuilder &b, Location loc, Value input,
                                   RankedTensorType micro, int64_t count) {
  SmallVector<int64_t> split{micro.getDimSize(0), count};
  split.append(micro.getShape().begin() + 1, micro.getShape().end());
  Value grid =
      b.create<nn::ReshapeOp>(loc, input, b.getDenseI64ArrayAttr(split));
  SmallVector<Value> views;
  for (int64_t k = 0; k < count; ++k) {
    SmallVector<int64_t> offsets(split.size(), 0), sizes(split),
        strides(split.size(), 1);
    offsets[1] = k;
    sizes[1] = 1;
    Value slice = b.create<nn::SliceOp>(loc, grid, offsets, sizes, strides);
    views.push_back(b.create<nn::ReshapeOp>(
        loc, slice, b.getDenseI64ArrayAttr(micro.getShape())));
  }
  return views;
}

LogicalResult unroll(dist::MicrobatchesOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  int64_t count = loop.getCount();
  Block &body = loop.getBodyBlock();
  // views[i][k]: microbatch k of input i, all built before the clones.
  SmallVector<SmallVector<Value>> views;
  for (auto [input, arg] : llvm::zip(loop.getInputs(), body.getArguments())) {
    auto micro = cast<RankedTensorType>(arg.getType());
    if (!micro.hasStaticShape())
      return loop.emitOpError("cannot unroll: input ")
             << input.getType() << " has no static shape";
    views.push_back(microbatchViews(b, loc, input, micro, count));
  }
  SmallVector<Value> sums(loop.getNumResults());
  for (int64_t k = 0; k < count; ++k) {
    IRMapping map;
    for (auto [arg, inputViews] : llvm::zip(body.getArguments(), views))
      map.map(arg, inputViews[k]);
    for (Operation &op : body.without_terminator())
      b.clone(op, map);
    for (auto [sum, value] : llvm::zip(sums, loop.getYield().getValues())) {
      Value v = map.lookupOrDefault(value);
      sum = sum ? b.create<nn::AddOp>(loc, sum, v).getResult() : v;
    }
  }
  loop.replaceAllUsesWith(sums);
  loop.erase();
  return success();
}

struct DistUnrollMicrobatchesPass
    : loom::impl::DistUnrollMicrobatchesBase<DistUnrollMicrobatchesPass> {
  void runOnOperation() override {
    // Inner loops first (post-order), so a clone never holds a loop.
    SmallVector<dist::MicrobatchesOp> loops;
    getOperation()->walk(
        [&](dist::MicrobatchesOp loop) { loops.push_back(loop); });
    for (dist::MicrobatchesOp loop : loops)
      if (failed(unroll(loop)))
        return signalPassFailure();
  }
};
} // namespace
