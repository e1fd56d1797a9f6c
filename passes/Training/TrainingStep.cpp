//===- TrainingStep.cpp - One training step from a model ------------------===//
//
// -nn-build-training-step: the model's public function becomes loss ->
// gradients (one microbatch at a time in a dist.microbatches loop with
// grad-accum) -> unscaling, norm and clipping -> one optimizer update op per
// parameter, all in global `nn` semantics. This file is the driver: it
// checks the options, gathers the parameters, adds the step's scalar
// inputs, calls the parts (TrainingStep.h) and writes the signature and
// `#nn.training`. Layouts over a mesh (-dist-zero-layouts) and the
// expansion of the loop and the updates (-dist-unroll-microbatches,
// -nn-expand-optimizers) are later passes of the training pipeline
// (loom/Pipelines/Pipelines.h).
//
//===----------------------------------------------------------------------===//

#include "TrainingStep.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Dialect/NN/NNState.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/NN/Autodiff.h"
#include "loom/Passes/Training/Passes.h"
#include "mlir/Analysis/SliceAnalysis.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

namespace loom {
#define GEN_PASS_DEF_NNBUILDTRAININGSTEP
#include "Training/TrainingPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::training;

namespace {
/// The FLOPs of one step as it will run: a microbatch loop's body counts
/// once per microbatch, plus the additions of its sums.
double stepFlops(func::FuncOp fn) {
  double flops = 0;
  fn.walk([&](Operation *op) {
    double times = 1;
    for (Operation *p = op->getParentOp(); p && p != fn; p = p->getParentOp())
      if (auto loop = dyn_cast<dist::MicrobatchesOp>(p))
        times *= loop.getCount();
    if (auto costed = dyn_cast<CostOpInterface>(op)) {
      FailureOr<OpCost> cost = costed.getCost();
      if (succeeded(cost))
        flops += times * cost->flops;
    }
    if (auto loop = dyn_cast<dist::MicrobatchesOp>(op))
      for (Type t : loop.getResultTypes())
        flops += times * (loop.getCount() - 1) * getNumElements(t);
  });
  return flops;
}

struct NNBuildTrainingStepPass
    : loom::impl::NNBuildTrainingStepBase<NNBuildTrainingStepPass> {
  using Base::Base;

  LogicalResult checkOptions(Operation *at) {
    auto bad = [&](const Twine &message) {
      return at->emitError("training: ") << message;
    };
    if (!(lr > 0))
      return bad("--lr must be positive");
    if (momentum < 0 || momentum >= 1)
      return bad("--momentum must be in [0, 1)");
    if (beta1 < 0 || beta1 >= 1 || beta2 < 0 || beta2 >= 1)
      return bad("--beta1 and --beta2 must be in [0, 1)");
    if (!(eps > 0))
      return bad("--eps must be positive");
    if (weightDecay < 0)
      return bad("--weight-decay must not be negative");
    if (warmup < 0 || decaySteps < 0 || minLr < 0 || minLr > lr)
      return bad("--warmup and --decay-steps must not be negative, and "
                 "--min-lr must lie in [0, lr]");
    if (lrSchedule == nn::LRSchedule::Cosine && decaySteps == 0)
      return bad("--lr-schedule=cosine needs --decay-steps N (the steps "
                 "from the end of warm-up to --min-lr)");
    if (gradAccum < 1 || gradAccum > 4096)
      return bad("--grad-accum must be between 1 and 4096");
    if (clipGradNorm < 0)
      return bad("--clip-grad-norm must not be negative");
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp fn;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isPrivate() || f.isExternal())
        continue;
      if (fn) {
        f.emitError("training needs a module with one public function");
        return signalPassFailure();
      }
      fn = f;
    }
    if (!fn) {
      module.emitError("training: the module has no public function");
      return signalPassFailure();
    }
    // Nothing to train in a weightless model's parameters.
    if (failed(nn::checkHasWeightData(fn)) || failed(checkOptions(fn)) ||
        failed(build(module, fn)))
      return signalPassFailure();
  }

  /// The model's parameters, one op per name at the top of the body in
  /// model order: every microbatch and the update see the same values.
  FailureOr<SmallVector<nn::ParameterOp>> gatherParameters(Block &body) {
    llvm::StringMap<nn::ParameterOp> byName;
    SmallVector<nn::ParameterOp> params;
    for (auto param :
         llvm::make_early_inc_range(body.getOps<nn::ParameterOp>())) {
      auto [it, inserted] = byName.try_emplace(param.getName(), param);
      if (!inserted) {
        if (it->second.getType() != param.getType())
          return param.emitError("parameter '")
                 << param.getName() << "' appears with two types";
        param.replaceAllUsesWith(it->second.getResult());
        param.erase();
        continue;
      }
      param->moveBefore(&body, body.begin());
      params.push_back(param);
    }
    // moveBefore(begin) reversed them; restore model order.
    for (nn::ParameterOp param : llvm::reverse(params))
      param->moveBefore(&body, body.begin());
    return params;
  }

  /// The parameters updated as state (NNState.h): their names and new
  /// values, from the results named `state:NAME`.
  FailureOr<SmallVector<std::pair<std::string, Value>>>
  gatherState(func::FuncOp fn, ArrayRef<nn::ParameterOp> params) {
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    llvm::StringMap<nn::ParameterOp> byName;
    for (nn::ParameterOp param : params)
      byName[param.getName()] = param;
    SmallVector<std::pair<std::string, Value>> state;
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
      auto name = fn.getResultAttrOfType<StringAttr>(i, nn::kNameAttrName);
      StringRef param = name ? nn::getStateResultParameter(name) : "";
      if (param.empty())
        continue;
      auto it = byName.find(param);
      if (it == byName.end() ||
          it->second.getType() != ret.getOperand(i).getType())
        return fn.emitError("training: result '")
               << name.getValue()
               << "' must be the new value of a parameter of the same type";
      if (gradAccum > 1 || microbatchLoop)
        return fn.emitError("training: '")
               << param
               << "' is updated by the forward pass (BatchNorm running "
                  "statistics), once per forward; that needs one microbatch "
                  "per step (no --grad-accum, --microbatches or pipeline "
                  "stages)";
      if (llvm::any_of(state,
                       [&](auto &entry) { return entry.first == param; }))
        return fn.emitError("training: parameter '")
               << param << "' has two 'state:' results";
      state.push_back({param.str(), ret.getOperand(i)});
    }
    return state;
  }

  /// Whether every use of `param` is as a running statistic of an
  /// inference-mode batch_norm: such buffers are never trained.
  static bool isRunningStatistic(nn::ParameterOp param) {
    Value v = param.getResult();
    return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
      return isa<nn::BatchNormOp>(use.getOwner()) &&
             use.getOperandNumber() >= 3;
    });
  }

  /// The float parameters to train: those `freeze` does not match (a
  /// whole-name match, POSIX extended syntax), that are not state or
  /// running statistics, and that the loss depends on (PyTorch leaves a
  /// parameter without a gradient alone; so does Loom, with a warning).
  FailureOr<SmallVector<Trained>>
  selectTrained(func::FuncOp fn, ArrayRef<nn::ParameterOp> params, Value loss,
                const llvm::StringSet<> &stateNames) {
    llvm::Regex frozen("^(" + freeze + ")$");
    std::string regexError;
    if (!freeze.empty() && !frozen.isValid(regexError))
      return fn.emitError("--freeze: invalid regular expression '")
             << freeze << "': " << regexError;
    SetVector<Operation *> lossSlice;
    BackwardSliceOptions sliceOptions;
    sliceOptions.inclusive = true;
    if (Operation *def = loss.getDefiningOp())
      getBackwardSlice(def, &lossSlice, sliceOptions);
    SmallVector<Trained> trained;
    for (nn::ParameterOp param : params) {
      if (!isFloatTensor(param.getType()))
        continue;
      std::string name = param.getName().str();
      if ((!freeze.empty() && frozen.match(name)) || stateNames.count(name) ||
          isRunningStatistic(param))
        continue;
      if (!lossSlice.contains(param)) {
        param.emitWarning("parameter '")
            << name << "' does not affect the loss: it is not trained";
        continue;
      }
      trained.push_back({param, name, Value()});
    }
    if (trained.empty())
      return fn.emitError("training: the model has no trainable parameters")
             << (freeze.empty() ? "" : " (--freeze matches them all)");
    return trained;
  }

  LogicalResult build(ModuleOp module, func::FuncOp fn) {
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    Location loc = fn.getLoc();
    OpBuilder b(ret);

    FailureOr<SmallVector<nn::ParameterOp>> params = gatherParameters(body);
    if (failed(params))
      return failure();
    unsigned numModelInputs = fn.getNumArguments();
    FailureOr<Loss> lossOr = buildLoss(fn, b, {loss, logits, labels});
    if (failed(lossOr))
      return failure();
    Value lossValue = lossOr->value;
    auto lossType = cast<RankedTensorType>(lossValue.getType());
    if (!lossType.getElementType().isF32())
      return fn.emitError("training needs a float32 loss, not ")
             << lossType.getElementType();
    FailureOr<SmallVector<std::pair<std::string, Value>>> state =
        gatherState(fn, *params);
    if (failed(state))
      return failure();
    llvm::StringSet<> stateNames;
    for (auto &entry : *state)
      stateNames.insert(entry.first);
    FailureOr<SmallVector<Trained>> trainedOr =
        selectTrained(fn, *params, lossValue, stateNames);
    if (failed(trainedOr))
      return failure();
    SmallVector<Trained> &trained = *trainedOr;

    // The scalars the runtime passes every step.
    auto scalarType = RankedTensorType::get({}, b.getF32Type());
    auto addScalar = [&](StringRef name) {
      unsigned i = fn.getNumArguments();
      fn.insertArgument(i, scalarType,
                        b.getDictionaryAttr(b.getNamedAttr(
                            nn::kNameAttrName, b.getStringAttr(name))),
                        loc);
      return fn.getArgument(i);
    };
    bool sgd = optimizer == nn::Optimizer::SGD;
    OptimizerScalars scalars;
    scalars.lr = addScalar("train.lr");
    Value lossScale = addScalar("train.loss_scale");
    if (!sgd) {
      scalars.biasCorrection1 = addScalar("train.bias_correction1");
      scalars.biasCorrection2 = addScalar("train.bias_correction2");
    }
    bool crossEntropy = loss == "cross_entropy";
    unsigned numDataInputs = numModelInputs + crossEntropy;

    // Forward and backward, one microbatch at a time.
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      if (!isa<nn::ParameterOp>(op))
        forward.push_back(&op);
    Value totalLoss = lossValue;
    if (gradAccum == 1 && !microbatchLoop) {
      SmallVector<Value> targets, grads;
      for (Trained &t : trained)
        targets.push_back(t.param.getResult());
      if (failed(buildGradients(b, loc, forward, lossValue, lossScale, targets,
                                grads)))
        return failure();
      for (auto [t, g] : llvm::zip(trained, grads))
        t.grad = g;
    } else {
      FailureOr<Value> mean =
          buildMicrobatchLoop(fn, b, forward, lossValue, lossScale,
                              numDataInputs, gradAccum, trained);
      if (failed(mean))
        return failure();
      totalLoss = *mean;
    }

    GradientNorm norm =
        buildGradientNorm(b, loc, lossScale, trained, clipGradNorm);
    scalars.clip = norm.clip;
    OptimizerOptions optimizerOptions{optimizer, momentum, weightDecay,
                                      beta1,     beta2,    eps};
    SmallVector<std::pair<std::string, Value>> updates =
        buildOptimizerUpdates(b, loc, trained, optimizerOptions, scalars);
    updates.append(state->begin(), state->end());

    setSignature(fn, ret, {totalLoss, norm.norm}, updates);
    setTrainingAttr(module, fn, numDataInputs, lossOr->numClasses);
    return success();
  }

  /// The step returns the loss, the gradient norm, then the updates; each
  /// updated parameter names the result that replaces it.
  void setSignature(func::FuncOp fn, func::ReturnOp ret, ArrayRef<Value> first,
                    ArrayRef<std::pair<std::string, Value>> updates) {
    OpBuilder b(ret);
    SmallVector<Value> results(first);
    SmallVector<std::string> names{"loss", "train.grad_norm"};
    llvm::StringMap<Operation *> stateOps;
    for (Operation &op : fn.getBody().front())
      if (auto param = dyn_cast<nn::ParameterOp>(op))
        stateOps[param.getName()] = param;
    for (auto &[name, value] : updates) {
      results.push_back(value);
      names.push_back("update:" + name);
      stateOps[name]->setAttr(nn::kUpdateAttrName,
                              b.getStringAttr(names.back()));
    }
    b.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    SmallVector<Type> resultTypes;
    for (Value v : results)
      resultTypes.push_back(v.getType());
    fn.setType(
        FunctionType::get(fn.getContext(), fn.getArgumentTypes(), resultTypes));
    SmallVector<DictionaryAttr> resultAttrs;
    for (const std::string &name : names)
      resultAttrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr(nn::kNameAttrName, b.getStringAttr(name))));
    fn.setAllResultAttrs(resultAttrs);
  }

  /// What the runtime needs to drive the steps.
  void setTrainingAttr(ModuleOp module, func::FuncOp fn, unsigned numDataInputs,
                       int64_t numClasses) {
    Builder b(module.getContext());
    SmallVector<Attribute> data;
    int64_t batch = 0, tokens = 0;
    for (unsigned i = 0; i < numDataInputs; ++i) {
      auto name = fn.getArgAttrOfType<StringAttr>(i, nn::kNameAttrName);
      data.push_back(name ? name
                          : b.getStringAttr("input" + std::to_string(i)));
      auto type = dyn_cast<RankedTensorType>(fn.getArgument(i).getType());
      if (type && type.getRank() > 0 && batch <= 0)
        batch = type.getDimSize(0);
      if (type && type.getRank() == 2 &&
          isa<IntegerType>(type.getElementType()) && tokens <= 0)
        tokens = type.getDimSize(1);
    }
    bool sgd = optimizer == nn::Optimizer::SGD;
    bool crossEntropy = loss == "cross_entropy";
    auto f64 = [](double v) { return APFloat(v); };
    auto training = nn::TrainingAttr::get(
        module.getContext(), "loss", "train.grad_norm", optimizer, f64(lr),
        f64(weightDecay), f64(sgd ? momentum : 0.0), f64(sgd ? 0.0 : beta1),
        f64(sgd ? 0.0 : beta2), f64(sgd ? 0.0 : eps), lrSchedule, warmup,
        decaySteps, f64(minLr), gradAccum,
        f64(clipGradNorm > 0 ? clipGradNorm : 0.0), /*zero=*/0,
        b.getArrayAttr(data), crossEntropy ? StringRef(labels) : StringRef(),
        crossEntropy ? numClasses : 0, std::max<int64_t>(batch, 0),
        std::max<int64_t>(tokens, 0), f64(stepFlops(fn)));
    module->setAttr(nn::kTrainingAttrName, training);
  }
};
} // namespace
