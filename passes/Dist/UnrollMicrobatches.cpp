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

/// One unit of a pipeline schedule: microbatch `k`'s forward or backward
/// ops.
struct Unit {
  int64_t microbatch;
  bool backward;
};

/// The order in which stage `stage` of `stages` runs the forward and
/// backward units of `count` microbatches.
SmallVector<Unit> scheduleUnits(dist::Schedule schedule, int64_t stage,
                                int64_t stages, int64_t count) {
  SmallVector<Unit> units;
  if (schedule == dist::Schedule::GPipe) {
    for (int64_t k = 0; k < count; ++k)
      units.push_back({k, false});
    for (int64_t k = 0; k < count; ++k)
      units.push_back({k, true});
    return units;
  }
  // 1F1B: enough forward units to fill the pipeline below this stage, then
  // one forward and one backward unit in turn, then the remaining
  // backward units.
  int64_t warmup = std::min(stages - stage - 1, count);
  for (int64_t k = 0; k < warmup; ++k)
    units.push_back({k, false});
  for (int64_t k = warmup; k < count; ++k) {
    units.push_back({k, false});
    units.push_back({k - warmup, true});
  }
  for (int64_t k = count - warmup; k < count; ++k)
    units.push_back({k, true});
  return units;
}

LogicalResult unroll(dist::MicrobatchesOp loop, dist::PipelineAttr pipeline) {
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
  SmallVector<Unit> units;
  if (pipeline) {
    std::optional<dist::Schedule> schedule =
        dist::symbolizeSchedule(pipeline.getSchedule());
    if (!schedule || (*schedule != dist::Schedule::GPipe &&
                      *schedule != dist::Schedule::OneFOneB))
      return loop.emitOpError("the '")
             << pipeline.getSchedule()
             << "' schedule is not implemented yet (gpipe, 1f1b)";
    units = scheduleUnits(*schedule, pipeline.getStage(), pipeline.getStages(),
                          count);
  } else {
    for (int64_t k = 0; k < count; ++k)
      units.push_back({k, false});
  }
  auto inUnit = [&](Operation &op, const Unit &unit) {
    return !pipeline || op.hasAttr(dist::kBackwardAttrName) == unit.backward;
  };
  SmallVector<IRMapping> maps(count);
  for (int64_t k = 0; k < count; ++k)
    for (auto [arg, inputViews] : llvm::zip(body.getArguments(), views))
      maps[k].map(arg, inputViews[k]);
  // A yielded value is added to its sum right after the unit that makes it
  // (forward and backward units each come in microbatch order).
  auto yields = loop.getYield().getValues();
  SmallVector<Value> sums(loop.getNumResults());
  for (const Unit &unit : units) {
    IRMapping &map = maps[unit.microbatch];
    for (Operation &op : body.without_terminator())
      if (inUnit(op, unit))
        b.clone(op, map);
    for (auto [sum, value] : llvm::zip(sums, yields)) {
      Operation *def = value.getDefiningOp();
      bool here = !pipeline ||
                  (def && def->getBlock() == &body
                       ? def->hasAttr(dist::kBackwardAttrName) == unit.backward
                       : !unit.backward);
      if (!here)
        continue;
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
    Operation *top = getOperation();
    auto module = isa<ModuleOp>(top) ? cast<ModuleOp>(top)
                                     : top->getParentOfType<ModuleOp>();
    auto pipeline =
        module
            ? module->getAttrOfType<dist::PipelineAttr>(dist::kPipelineAttrName)
            : dist::PipelineAttr();
    for (dist::MicrobatchesOp loop : loops)
      if (failed(unroll(loop, pipeline)))
        return signalPassFailure();
  }
};
} // namespace
