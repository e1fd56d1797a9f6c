//===- ZeroLayouts.cpp - Data-parallel and ZeRO layouts of a step ---------===//
//
// -dist-zero-layouts: the layouts that make a training step data parallel
// (gradients summed once, where they are made) and ZeRO-sharded (optimizer
// state, gradients and parameters split over the data axes), read from the
// optimizer update ops' parameter, gradient and state operands. The data
// axes are those that split dimension 0 of the step's data inputs;
// -dist-propagate-sharding and -dist-partition carry the layouts out.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace loom {
#define GEN_PASS_DEF_DISTZEROLAYOUTS
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {
/// The mesh axes a step's batch is split over.
struct DataAxes {
  MeshOp mesh;
  FlatSymbolRefAttr meshRef;
  /// The axes of size > 1 splitting dimension 0 of the data inputs.
  AxisList axes;
  /// Whether another axis of size > 1 splits something else (the model).
  bool hasModelAxis = false;
};

/// The data axes of `fn`, whose first `numDataInputs` arguments are the
/// data inputs (-nn-build-training-step's order).
DataAxes getDataAxes(func::FuncOp fn, unsigned numDataInputs) {
  DataAxes result;
  for (unsigned i = 0; i < numDataInputs && i < fn.getNumArguments(); ++i) {
    auto sharding = fn.getArgAttrOfType<ShardingAttr>(i, kShardingAttrName);
    if (!sharding || sharding.getDims().empty())
      continue;
    MeshOp mesh = lookupMesh(fn, sharding.getMesh());
    if (!mesh || (result.mesh && mesh != result.mesh))
      continue;
    result.mesh = mesh;
    result.meshRef = sharding.getMesh();
    for (StringAttr axis : dimAxes(sharding, 0)) {
      MeshAxisAttr attr = mesh.getAxis(axis.getValue());
      if (attr && attr.getSize() > 1 && !llvm::is_contained(result.axes, axis))
        result.axes.push_back(axis);
    }
  }
  if (!result.mesh)
    return result;
  for (Attribute a : result.mesh.getAxes()) {
    auto axis = cast<MeshAxisAttr>(a);
    if (axis.getSize() > 1 && llvm::none_of(result.axes, [&](StringAttr name) {
          return name.getValue() == axis.getName();
        }))
      result.hasModelAxis = true;
  }
  return result;
}

struct DistZeroLayoutsPass
    : loom::impl::DistZeroLayoutsBase<DistZeroLayoutsPass> {
  using Base::Base;

  DataAxes data;

  /// ZeRO's layout of a tensor of `type`: the data axes on its first
  /// dimension they divide (null when none does, or at stage 0).
  ShardingAttr zeroLayout(RankedTensorType type) {
    if (stage == 0)
      return {};
    int64_t n = data.mesh.getGroupSize(data.axes);
    MLIRContext *ctx = type.getContext();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.getDimSize(d) % n != 0)
        continue;
      SmallVector<DimShardingAttr> dims;
      for (int64_t e = 0; e < type.getRank(); ++e)
        dims.push_back(DimShardingAttr::get(
            ctx,
            e == d ? ArrayRef<StringAttr>(data.axes) : ArrayRef<StringAttr>{},
            false));
      return ShardingAttr::get(ctx, data.meshRef, dims, {}, ReductionKind::Sum);
    }
    return {};
  }

  ShardingAttr replicated(RankedTensorType type) {
    return ShardingAttr::getReplicated(type.getContext(), data.meshRef,
                                       type.getRank());
  }

  /// Gradients are summed over the data axes once, where they are made:
  /// all-reduced (stages 0 and 1) or reduce-scattered (2 and 3). With a
  /// model axis only the reduce-scatter is pinned; propagation places the
  /// rest.
  void annotateGradient(nn::OptimizerUpdateOpInterface update) {
    Value grad = update.getGrad();
    auto type = cast<RankedTensorType>(grad.getType());
    ShardingAttr layout = stage >= 2 ? zeroLayout(type) : nullptr;
    if (!layout && !data.hasModelAxis)
      layout = replicated(type);
    if (!layout)
      return;
    OpBuilder b(grad.getContext());
    b.setInsertionPointAfterValue(grad);
    auto made = b.create<AnnotateOp>(grad.getLoc(), type, grad, layout);
    grad.replaceAllUsesExcept(made, made);
  }

  /// ZeRO 3 keeps each device's block of a parameter; every use but the
  /// update sees it gathered. Below stage 3 a parameter of a data-parallel
  /// mesh stays whole (else the sharded update would split it).
  void layParameter(nn::OptimizerUpdateOpInterface update) {
    Value param = update.getParam();
    auto type = cast<RankedTensorType>(param.getType());
    ShardingAttr split = zeroLayout(type);
    if (!split || getRecordedSharding(param))
      return;
    if (stage < 3) {
      if (!data.hasModelAxis)
        setRecordedSharding(param, replicated(type));
      return;
    }
    setRecordedSharding(param, split);
    // After the parameter's optimizer state, which follows it.
    Operation *last = param.getDefiningOp();
    auto isState = [&](Operation *op) {
      return llvm::any_of(update.getState(), [&](Value state) {
        return state.getDefiningOp() == op;
      });
    };
    while (last && last->getNextNode() && isState(last->getNextNode()))
      last = last->getNextNode();
    OpBuilder b(param.getContext());
    if (last)
      b.setInsertionPointAfter(last);
    else
      b.setInsertionPointAfterValue(param);
    auto gathered =
        b.create<AnnotateOp>(param.getLoc(), type, param, replicated(type));
    param.replaceUsesWithIf(gathered, [&](OpOperand &use) {
      return use.getOwner() != gathered && use.getOwner() != update;
    });
  }

  /// Optimizer state is split from stage 1 on; below stage 3 the update
  /// reads its block of the parameter, below stage 2 its block of the
  /// summed and clipped gradient (the clipping moves out of the update to
  /// be laid out: the update multiplies by it first).
  void layUpdate(nn::OptimizerUpdateOpInterface update) {
    auto type = cast<RankedTensorType>(update.getParam().getType());
    ShardingAttr split = zeroLayout(type);
    if (!split)
      return;
    for (Value state : update.getState())
      setRecordedSharding(state, split);
    OpBuilder b(update);
    Operation *op = update;
    Location loc = op->getLoc();
    OpOperand &param = op->getOpOperand(0), &grad = op->getOpOperand(1);
    assert(param.get() == update.getParam() && grad.get() == update.getGrad());
    Value clipped = grad.get();
    if (Value clip = update.getClip(); clip && stage < 2) {
      clipped = b.create<nn::MulOp>(loc, clipped, clip);
      update.getClipMutable().clear();
    }
    if (stage < 3)
      param.set(b.create<AnnotateOp>(loc, type, param.get(), split));
    if (stage < 2)
      grad.set(b.create<AnnotateOp>(loc, type, clipped, split));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (stage < 0 || stage > 3) {
      module.emitError("training: --zero must be 0, 1, 2 or 3");
      return signalPassFailure();
    }
    auto training =
        module->getAttrOfType<nn::TrainingAttr>(nn::kTrainingAttrName);
    if (!training) {
      module.emitError("-dist-zero-layouts lays out a training step: the "
                       "module has no nn.training (run "
                       "-nn-build-training-step first)");
      return signalPassFailure();
    }
    recordStage(module, training);
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.isPublic())
        continue;
      data = getDataAxes(fn, training.getDataInputs().size());
      if (data.axes.empty())
        continue;
      SmallVector<nn::OptimizerUpdateOpInterface> updates;
      fn.walk(
          [&](nn::OptimizerUpdateOpInterface op) { updates.push_back(op); });
      for (nn::OptimizerUpdateOpInterface update : updates)
        annotateGradient(update);
      for (nn::OptimizerUpdateOpInterface update : updates)
        layParameter(update);
      for (nn::OptimizerUpdateOpInterface update : updates)
        layUpdate(update);
    }
  }

  /// `#nn.training` with `zero` = the stage.
  void recordStage(ModuleOp module, nn::TrainingAttr t) {
    module->setAttr(
        nn::kTrainingAttrName,
        nn::TrainingAttr::get(module.getContext(), t.getLoss(), t.getGradNorm(),
                              t.getOptimizer(), t.getLr(), t.getWeightDecay(),
                              t.getMomentum(), t.getBeta1(), t.getBeta2(),
                              t.getEps(), t.getLrSchedule(), t.getWarmup(),
                              t.getDecaySteps(), t.getMinLr(), t.getGradAccum(),
                              t.getClipGradNorm(), stage, t.getDataInputs(),
                              t.getLabels(), t.getNumClasses(), t.getBatch(),
                              t.getTokensPerExample(), t.getFlopsPerStep()));
  }
};
} // namespace
