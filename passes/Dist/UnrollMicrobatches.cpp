//===- UnrollMicrobatches.cpp - The microbatch loop as straight code ------===//
//
// -dist-unroll-microbatches: a dist.microbatches loop becomes its body
// cloned once per microbatch, on strided views of the inputs, with the
// yielded values added up in microbatch order. What runs is then the same
// step as a batch `count` times the size, summed in a fixed order (so reruns
// are bit-identical). In a pipeline stage the clones are cut into units
// laid out in the schedule's order (Schedules.h); with recomputation the
// backward units rerun forward ops from kept values (Recompute.h).
//
//===----------------------------------------------------------------------===//

#include "Recompute.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Passes.h"
#include "loom/Passes/Dist/Schedules.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace loom {
#define GEN_PASS_DEF_DISTUNROLLMICROBATCHES
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

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

bool isBackwardKind(UnitKind kind) { return kind != UnitKind::Forward; }

class Unroller {
public:
  Unroller(MicrobatchesOp loop, PipelineAttr pipeline, Recompute recompute)
      : loop(loop), body(loop.getBodyBlock()), pipeline(pipeline),
        plan(body, recompute), b(loop) {}

  LogicalResult run(int64_t &recomputedOps) {
    count = loop.getCount();
    if (failed(classify()) || failed(makeUnits()))
      return failure();
    Location loc = loop.getLoc();
    // views[i][k]: microbatch k of input i, all built before the clones.
    SmallVector<SmallVector<Value>> views;
    for (auto [input, arg] : llvm::zip(loop.getInputs(), body.getArguments())) {
      auto micro = cast<RankedTensorType>(arg.getType());
      if (!micro.hasStaticShape())
        return loop.emitOpError("cannot unroll: input ")
               << input.getType() << " has no static shape";
      views.push_back(microbatchViews(b, loc, input, micro, count));
    }
    maps.resize(count);
    barriers.resize(count);
    recomputed.resize(count);
    for (int64_t k = 0; k < count; ++k)
      for (auto [arg, inputViews] : llvm::zip(body.getArguments(), views))
        maps[k].map(arg, inputViews[k]);
    // A yielded value is added to its sum right after the unit that makes
    // it (each kind of unit comes in microbatch order).
    auto yields = loop.getYield().getValues();
    SmallVector<Value> sums(loop.getNumResults());
    for (const Unit &unit : units) {
      IRMapping &map = maps[unit.microbatch];
      for (Operation &op : body.without_terminator()) {
        if (!inUnit(&op, unit))
          continue;
        if (isBackwardKind(unit.kind))
          recomputeOperands(&op, unit.microbatch);
        b.clone(op, map);
      }
      for (auto [sum, value] : llvm::zip(sums, yields)) {
        Operation *def = value.getDefiningOp();
        bool here = def && def->getBlock() == &body
                        ? inUnit(def, unit)
                        : unit.kind == UnitKind::Forward && unit.chunk == 0;
        if (!here)
          continue;
        Value v = map.lookupOrDefault(value);
        sum = sum ? b.create<nn::AddOp>(loc, sum, v).getResult() : v;
      }
    }
    loop.replaceAllUsesWith(sums);
    loop.erase();
    recomputedOps += numRecomputed;
    return success();
  }

  size_t numCheckpoints() const { return plan.checkpoints().size(); }

private:
  /// Each body op's unit kind and chunk: backward are the ops the gradient
  /// builder marked and what uses them; with zb1p, the backward ops the
  /// transfers to the previous stage need are B, the others W.
  LogicalResult classify() {
    int64_t stages = pipeline ? pipeline.getStages() : 1;
    std::optional<Schedule> schedule =
        pipeline ? symbolizeSchedule(pipeline.getSchedule()) : std::nullopt;
    llvm::DenseSet<Operation *> backward;
    for (Operation &op : body.without_terminator()) {
      bool isBackward = op.hasAttr(kBackwardAttrName) ||
                        llvm::any_of(op.getOperands(), [&](Value v) {
                          return backward.contains(v.getDefiningOp());
                        });
      if (isBackward)
        backward.insert(&op);
      int64_t chunk = 0;
      if (pipeline) {
        auto stage = op.getAttrOfType<IntegerAttr>(kStageAttrName);
        if (!stage)
          return op.emitOpError("has no pipeline stage (dist.stage) in a "
                                "pipelined microbatch loop");
        chunk = stage.getInt() / stages;
        if (stage.getInt() % stages != pipeline.getStage() ||
            chunk >= pipeline.getChunks())
          return op.emitOpError("belongs to pipeline stage ")
                 << stage.getInt() << ", not to stage " << pipeline.getStage()
                 << " of " << stages << " with " << pipeline.getChunks()
                 << " chunk(s)";
      }
      unitOf[&op] = {isBackward ? UnitKind::Backward : UnitKind::Forward,
                     chunk};
    }
    if (schedule != Schedule::ZeroBubble)
      return success();
    // B: the closure, over backward operands, of the backward transfers.
    SmallVector<Operation *> stack;
    llvm::DenseSet<Operation *> inputGrad;
    for (Operation &op : body)
      if (backward.contains(&op) && isa<SendOp, RecvOp>(op))
        stack.push_back(&op);
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      if (!inputGrad.insert(op).second)
        continue;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && backward.contains(def))
          stack.push_back(def);
    }
    for (Operation *op : backward)
      unitOf[op].first =
          inputGrad.contains(op) ? UnitKind::InputGrad : UnitKind::WeightGrad;
    return success();
  }

  LogicalResult makeUnits() {
    if (!pipeline) {
      for (int64_t k = 0; k < count; ++k) {
        units.push_back({k, UnitKind::Forward});
        units.push_back({k, UnitKind::Backward});
      }
      return success();
    }
    std::optional<Schedule> schedule =
        symbolizeSchedule(pipeline.getSchedule());
    if (!schedule)
      return loop.emitOpError("unknown pipeline schedule '")
             << pipeline.getSchedule() << "'";
    int64_t stages = pipeline.getStages(), chunks = pipeline.getChunks();
    SmallVector<SmallVector<Unit>> orders;
    std::string why;
    for (int64_t s = 0; s < stages; ++s) {
      orders.push_back(scheduleUnits(*schedule, s, stages, count, chunks, why));
      if (!why.empty())
        return loop.emitOpError("cannot schedule ")
               << count << " microbatches on " << stages << " stages ('"
               << pipeline.getSchedule() << "'): " << why;
    }
    if (!checkRunnable(orders, stages, chunks, why))
      return loop.emitOpError("the '")
             << pipeline.getSchedule() << "' schedule of " << count
             << " microbatches on " << stages << " stages cannot run: " << why;
    units = orders[pipeline.getStage()];
    return success();
  }

public:
  /// `F0 F1 B0 ...`: the order this stage runs its units in.
  std::string describeUnits() const {
    std::string text;
    for (const Unit &unit : units)
      text += (text.empty() ? "" : " ") + formatUnit(unit);
    return text;
  }

private:
  bool inUnit(Operation *op, const Unit &unit) const {
    auto it = unitOf.find(op);
    if (it == unitOf.end())
      return false;
    return it->second.first == unit.kind && it->second.second == unit.chunk;
  }

  /// Before a backward op of microbatch `k`: the forward values it uses
  /// that are recomputed, with what they need, cloned in body order from
  /// barriers on the kept values. Later units of `k` use them too.
  void recomputeOperands(Operation *op, int64_t k) {
    SmallVector<Operation *> toClone, stack;
    llvm::DenseSet<Operation *> seen;
    auto need = [&](Value v) {
      if (plan.recomputes(v) && !recomputed[k].contains(v))
        stack.push_back(v.getDefiningOp());
    };
    for (Value v : op->getOperands())
      need(v);
    while (!stack.empty()) {
      Operation *def = stack.pop_back_val();
      if (!seen.insert(def).second)
        continue;
      toClone.push_back(def);
      for (Value v : def->getOperands())
        need(v);
    }
    llvm::sort(toClone, [&](Operation *a, Operation *c) {
      return plan.position(a) < plan.position(c);
    });
    IRMapping &map = maps[k];
    for (Operation *def : toClone) {
      IRMapping local;
      for (Value v : def->getOperands())
        local.map(v, recomputed[k].contains(v) || !isKeptInBody(v)
                         ? map.lookupOrDefault(v)
                         : barrier(v, k));
      Operation *clone = b.clone(*def, local);
      ++numRecomputed;
      for (auto [r, c] : llvm::zip(def->getResults(), clone->getResults())) {
        map.map(r, c);
        recomputed[k].insert(r);
      }
    }
  }

  /// A forward value of the body that recomputation starts from.
  bool isKeptInBody(Value v) const {
    if (plan.recomputes(v))
      return false;
    if (isa<BlockArgument>(v))
      return cast<BlockArgument>(v).getOwner() == &body;
    Operation *def = v.getDefiningOp();
    return def && def->getBlock() == &body;
  }

  Value barrier(Value kept, int64_t k) {
    Value &slot = barriers[k][kept];
    if (!slot) {
      Value value = maps[k].lookupOrDefault(kept);
      slot = b.create<RecomputeOp>(kept.getLoc(), value.getType(), value);
    }
    return slot;
  }

  MicrobatchesOp loop;
  Block &body;
  PipelineAttr pipeline;
  RecomputePlan plan;
  OpBuilder b;
  int64_t count = 0;
  SmallVector<Unit> units;
  llvm::DenseMap<Operation *, std::pair<UnitKind, int64_t>> unitOf;
  SmallVector<IRMapping> maps;
  SmallVector<llvm::DenseMap<Value, Value>> barriers;
  SmallVector<llvm::DenseSet<Value>> recomputed;
  int64_t numRecomputed = 0;
};

struct DistUnrollMicrobatchesPass
    : loom::impl::DistUnrollMicrobatchesBase<DistUnrollMicrobatchesPass> {
  using Base::Base;
  void runOnOperation() override {
    // Inner loops first (post-order), so a clone never holds a loop.
    SmallVector<MicrobatchesOp> loops;
    getOperation()->walk([&](MicrobatchesOp loop) { loops.push_back(loop); });
    Operation *top = getOperation();
    auto module = isa<ModuleOp>(top) ? cast<ModuleOp>(top)
                                     : top->getParentOfType<ModuleOp>();
    auto pipeline = module
                        ? module->getAttrOfType<PipelineAttr>(kPipelineAttrName)
                        : PipelineAttr();
    Recompute mode = recompute;
    if (pipeline)
      mode =
          symbolizeRecompute(pipeline.getRecompute()).value_or(Recompute::Off);
    int64_t recomputedOps = 0;
    for (MicrobatchesOp loop : loops) {
      Unroller unroller(loop, pipeline, mode);
      numCheckpoints += unroller.numCheckpoints();
      if (failed(unroller.run(recomputedOps)))
        return signalPassFailure();
      if (printUnits && pipeline)
        module.emitRemark("stage ")
            << pipeline.getStage() << " of " << pipeline.getStages() << " runs "
            << unroller.describeUnits();
    }
    numRecomputed += recomputedOps;
  }
};
} // namespace
