//===- TrainingStep.cpp - One training step from a model ------------------===//
//
// -nn-build-training-step: the model's public function becomes loss ->
// gradients -> norm and clipping -> optimizer update, all in global `nn`
// semantics; distribution (data parallel gradient all-reduces, ZeRO's
// reduce-scatters and all-gathers) follows from the layouts the dist passes
// give the new values, steered here only by ZeRO's annotations. The update
// formulas follow PyTorch's SGD and AdamW operation by operation so that a
// step can be checked against it.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/NN/Autodiff.h"
#include "loom/Passes/Training/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Regex.h"

namespace loom {
#define GEN_PASS_DEF_NNBUILDTRAININGSTEP
#include "Training/TrainingPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

bool isFloatTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && isa<FloatType>(rt.getElementType());
}

/// Builds float arithmetic with scalars broadcast against tensors.
struct Math {
  OpBuilder &b;
  Location loc;
  FloatType f32;

  Value scalar(double v) {
    auto type = RankedTensorType::get({}, f32);
    return b.create<nn::ConstantOp>(
        loc, DenseElementsAttr::get(type, b.getFloatAttr(f32, v)));
  }
  Value add(Value x, Value y) { return b.create<nn::AddOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<nn::SubOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<nn::MulOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<nn::DivOp>(loc, x, y); }
  Value sqrt(Value x) { return b.create<nn::SqrtOp>(loc, x); }
  Value min(Value x, Value y) { return b.create<nn::MinOp>(loc, x, y); }
  Value mul(Value x, double c) { return mul(x, scalar(c)); }
  /// The sum of all elements, as a scalar.
  Value sumAll(Value x) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getRank() == 0)
      return x;
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      axes.push_back(d);
    return b.create<nn::ReduceSumOp>(loc, x, b.getDenseI64ArrayAttr(axes),
                                     b.getBoolAttr(false));
  }
};

struct Trained {
  nn::ParameterOp param;
  std::string name;
  Value grad;
};

struct NNBuildTrainingStepPass
    : loom::impl::NNBuildTrainingStepBase<NNBuildTrainingStepPass> {
  using Base::Base;

  /// With loss=cross_entropy: the logits' classes.
  int64_t numClasses = 0;

  LogicalResult checkOptions(Operation *at) {
    auto bad = [&](const Twine &message) {
      return at->emitError("training: ") << message;
    };
    if (optimizer != "sgd" && optimizer != "adamw")
      return bad("--optimizer must be sgd or adamw, not '" + optimizer + "'");
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
    if (lrSchedule != "constant" && lrSchedule != "cosine")
      return bad("--lr-schedule must be constant or cosine, not '" +
                 lrSchedule + "'");
    if (warmup < 0 || decaySteps < 0 || minLr < 0 || minLr > lr)
      return bad("--warmup and --decay-steps must not be negative, and "
                 "--min-lr must lie in [0, lr]");
    if (lrSchedule == "cosine" && decaySteps == 0)
      return bad("--lr-schedule=cosine needs --decay-steps N (the steps "
                 "from the end of warm-up to --min-lr)");
    if (gradAccum < 1 || gradAccum > 4096)
      return bad("--grad-accum must be between 1 and 4096");
    if (clipGradNorm < 0)
      return bad("--clip-grad-norm must not be negative");
    if (zero < 0 || zero > 3)
      return bad("--zero must be 0, 1, 2 or 3");
    return success();
  }

  /// The loss value, adding the labels argument for cross entropy.
  FailureOr<Value> buildLoss(func::FuncOp fn, OpBuilder &b) {
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    auto outputNames = [&] {
      std::string text;
      for (unsigned i = 0; i < fn.getNumResults(); ++i) {
        auto name = fn.getResultAttrOfType<StringAttr>(i, nn::kNameAttrName);
        text += (i ? ", " : "") +
                (name ? name.str() : "output" + std::to_string(i));
      }
      return text.empty() ? std::string("(none)") : text;
    };
    auto findResult = [&](StringRef name) -> Value {
      for (unsigned i = 0; i < fn.getNumResults(); ++i) {
        auto n = fn.getResultAttrOfType<StringAttr>(i, nn::kNameAttrName);
        if ((n && n.getValue() == name) ||
            (!n && name == "output" + std::to_string(i)))
          return ret.getOperand(i);
      }
      return {};
    };
    if (loss.empty())
      return fn.emitError("training needs --loss: the name of a scalar "
                          "output, or cross_entropy (with --logits and "
                          "--labels); the model's outputs are ")
             << outputNames();
    Location loc = fn.getLoc();
    if (loss != "cross_entropy") {
      if (!logits.empty())
        return fn.emitError("--logits applies to --loss=cross_entropy only");
      Value v = findResult(loss);
      if (!v)
        return fn.emitError("--loss: the model has no output '")
               << loss << "'; its outputs are " << outputNames();
      auto type = cast<RankedTensorType>(v.getType());
      if (!isFloatTensor(type) || !type.hasStaticShape() ||
          type.getNumElements() != 1)
        return fn.emitError("--loss: output '")
               << loss << "' must be a float scalar (one element), not "
               << v.getType();
      if (type.getRank() != 0)
        v = b.create<nn::ReshapeOp>(
            loc, v, b.getDenseI64ArrayAttr(ArrayRef<int64_t>{}));
      return v;
    }
    if (logits.empty())
      return fn.emitError("--loss=cross_entropy needs --logits=OUTPUT; the "
                          "model's outputs are ")
             << outputNames();
    Value x = findResult(logits);
    if (!x)
      return fn.emitError("--logits: the model has no output '")
             << logits << "'; its outputs are " << outputNames();
    auto type = cast<RankedTensorType>(x.getType());
    if (!isFloatTensor(type) || !type.hasStaticShape() || type.getRank() < 1)
      return fn.emitError("--logits: output '")
             << logits << "' must be a float tensor of static shape with the "
             << "classes last, not " << x.getType();
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto n = fn.getArgAttrOfType<StringAttr>(i, nn::kNameAttrName))
        if (n.getValue() == labels)
          return fn.emitError("--labels: the model already has an input '")
                 << labels << "'; name the labels input otherwise";
    auto labelsType = RankedTensorType::get(type.getShape().drop_back(),
                                            b.getIntegerType(64));
    unsigned index = fn.getNumArguments();
    fn.insertArgument(index, labelsType,
                      b.getDictionaryAttr(b.getNamedAttr(
                          nn::kNameAttrName, b.getStringAttr(labels))),
                      loc);
    // The labels share the batch with the inputs: take their layout.
    for (unsigned i = 0; i < index && labelsType.getRank() > 0; ++i) {
      auto sharding =
          fn.getArgAttrOfType<dist::ShardingAttr>(i, dist::kShardingAttrName);
      auto argType = dyn_cast<RankedTensorType>(fn.getArgument(i).getType());
      if (!sharding || !argType || argType.getRank() == 0 ||
          argType.getDimSize(0) != labelsType.getDimSize(0))
        continue;
      SmallVector<dist::DimShardingAttr> dims{sharding.getDims()[0]};
      for (int64_t d = 1; d < labelsType.getRank(); ++d)
        dims.push_back(dist::DimShardingAttr::get(b.getContext(), {}, false));
      fn.setArgAttr(index, dist::kShardingAttrName,
                    dist::ShardingAttr::get(b.getContext(), sharding.getMesh(),
                                            dims, {}, ReductionKind::Sum));
      break;
    }
    // Mean cross entropy over the positions whose label is not -100, as
    // sums: a batch split over devices then needs only scalar all-reduces
    // (nn.cross_entropy's mean would gather the logits).
    Value y = fn.getArgument(index);
    int64_t classAxis = type.getRank() - 1;
    numClasses = type.getDimSize(classAxis);
    Type elem = type.getElementType();
    auto scalar = [&](double v) -> Value {
      auto t = RankedTensorType::get({}, elem);
      return b.create<nn::ConstantOp>(
          loc, DenseElementsAttr::get(t, b.getFloatAttr(elem, v)));
    };
    auto compare = [&](nn::CompareDirection d, Value l, Value r) -> Value {
      return b.create<nn::CompareOp>(
          loc, nn::CompareDirectionAttr::get(b.getContext(), d), l, r);
    };
    Value logp = b.create<nn::LogSoftmaxOp>(loc, x, classAxis);
    SmallVector<int64_t> iota(numClasses);
    for (int64_t c = 0; c < numClasses; ++c)
      iota[c] = c;
    auto iotaType = RankedTensorType::get({numClasses}, b.getIntegerType(64));
    Value classes = b.create<nn::ConstantOp>(
        loc, DenseElementsAttr::get(iotaType, ArrayRef<int64_t>(iota)));
    SmallVector<int64_t> column(labelsType.getShape());
    column.push_back(1);
    Value yColumn =
        b.create<nn::ReshapeOp>(loc, y, b.getDenseI64ArrayAttr(column));
    Value hit = compare(nn::CompareDirection::EQ, yColumn, classes);
    Value picked = b.create<nn::WhereOp>(loc, hit, logp, scalar(0));
    Math m{b, loc, cast<FloatType>(elem)};
    Value ignore = b.create<nn::ConstantOp>(
        loc,
        DenseElementsAttr::get(RankedTensorType::get({}, b.getIntegerType(64)),
                               ArrayRef<int64_t>{-100}));
    Value valid =
        b.create<nn::WhereOp>(loc, compare(nn::CompareDirection::NE, y, ignore),
                              scalar(1), scalar(0));
    Value count = b.create<nn::MaxOp>(loc, m.sumAll(valid), scalar(1));
    return b.create<nn::NegOp>(loc, m.div(m.sumAll(picked), count)).getResult();
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

  LogicalResult build(ModuleOp module, func::FuncOp fn) {
    MLIRContext *ctx = module.getContext();
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    Location loc = fn.getLoc();
    OpBuilder b(ret);

    // Parameters first, one op per name: every microbatch and the update
    // see the same values.
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

    unsigned numModelInputs = fn.getNumArguments();
    FailureOr<Value> lossOr = buildLoss(fn, b);
    if (failed(lossOr))
      return failure();
    Value lossValue = *lossOr;
    auto lossType = cast<RankedTensorType>(lossValue.getType());
    if (!lossType.getElementType().isF32())
      return fn.emitError("training needs a float32 loss, not ")
             << lossType.getElementType();
    FloatType f32 = b.getF32Type();
    auto scalarType = RankedTensorType::get({}, f32);

    // A whole-name match, POSIX extended syntax.
    llvm::Regex frozen("^(" + freeze + ")$");
    std::string regexError;
    if (!freeze.empty() && !frozen.isValid(regexError))
      return fn.emitError("--freeze: invalid regular expression '")
             << freeze << "': " << regexError;
    SmallVector<Trained> trained;
    for (nn::ParameterOp param : params) {
      if (!isFloatTensor(param.getType()))
        continue;
      std::string name = param.getName().str();
      if (!freeze.empty() && frozen.match(name))
        continue;
      trained.push_back({param, name, Value()});
    }
    if (trained.empty())
      return fn.emitError("training: the model has no trainable parameters")
             << (freeze.empty() ? "" : " (--freeze matches them all)");

    // The scalars the runtime passes every step.
    auto addScalar = [&](StringRef name) {
      unsigned i = fn.getNumArguments();
      fn.insertArgument(i, scalarType,
                        b.getDictionaryAttr(b.getNamedAttr(
                            nn::kNameAttrName, b.getStringAttr(name))),
                        loc);
      return fn.getArgument(i);
    };
    Value lrArg = addScalar("train.lr");
    Value lossScale = addScalar("train.loss_scale");
    Value bc1, bc2;
    if (optimizer == "adamw") {
      bc1 = addScalar("train.bias_correction1");
      bc2 = addScalar("train.bias_correction2");
    }
    unsigned numDataInputs = numModelInputs + (loss == "cross_entropy");

    // Forward and backward, one microbatch at a time.
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      if (!isa<nn::ParameterOp>(op))
        forward.push_back(&op);
    SmallVector<Value> targets;
    for (Trained &t : trained)
      targets.push_back(t.param.getResult());
    Math m{b, loc, f32};
    Value totalLoss;
    if (gradAccum == 1) {
      SmallVector<Value> grads;
      if (failed(buildGradients(b, loc, forward, lossValue, lossScale, targets,
                                grads)))
        return failure();
      for (auto [t, g] : llvm::zip(trained, grads))
        t.grad = g;
      totalLoss = lossValue;
    } else {
      if (failed(buildMicrobatches(fn, b, forward, lossValue, lossScale,
                                   targets, numDataInputs, trained, totalLoss)))
        return failure();
    }

    // Unscale, norm, clip.
    Value invScale = m.div(m.scalar(1.0), lossScale);
    Value sumSquares;
    for (Trained &t : trained) {
      if (!t.grad)
        t.grad = b.create<nn::ConstantOp>(
            loc, DenseElementsAttr::get(
                     cast<ShapedType>(t.param.getType()),
                     b.getFloatAttr(t.param.getType().getElementType(), 0)));
      t.grad = m.mul(t.grad, invScale);
      annotateGradient(module, t);
      Value s = m.sumAll(m.mul(t.grad, t.grad));
      sumSquares = sumSquares ? m.add(sumSquares, s) : s;
    }
    Value gradNorm = m.sqrt(sumSquares);
    if (clipGradNorm > 0) {
      Value coef = m.min(m.scalar(1.0), m.div(m.scalar(clipGradNorm),
                                              m.add(gradNorm, m.scalar(1e-6))));
      for (Trained &t : trained)
        t.grad = m.mul(t.grad, coef);
    }

    // The update.
    SmallVector<std::pair<std::string, Value>> updates;
    auto state = [&](Trained &t, StringRef prefix) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(t.param);
      auto type = cast<ShapedType>(t.param.getType());
      auto op = b.create<nn::ParameterOp>(
          t.param.getLoc(), type, b.getStringAttr(prefix + t.name),
          DenseElementsAttr::get(type,
                                 b.getFloatAttr(type.getElementType(), 0)));
      op->setAttr(nn::kZeroInitAttrName, b.getUnitAttr());
      annotateState(module, op, t.param);
      return op;
    };
    for (Trained &t : trained)
      layParameter(module, t.param);
    for (Trained &t : trained) {
      Value p = t.param.getResult(), g = t.grad;
      // ZeRO: each device updates its block of every tensor.
      if (dist::ShardingAttr split =
              zeroLayout(module, cast<RankedTensorType>(t.param.getType()))) {
        if (zero < 3)
          p = b.create<dist::AnnotateOp>(loc, p.getType(), p, split);
        if (zero < 2)
          g = b.create<dist::AnnotateOp>(loc, g.getType(), g, split);
      }
      if (optimizer == "sgd") {
        if (weightDecay > 0)
          g = m.add(g, m.mul(p, weightDecay));
        if (momentum > 0) {
          nn::ParameterOp buf = state(t, "sgd.momentum:");
          g = m.add(m.mul(buf.getResult(), momentum), g);
          updates.push_back({buf.getName().str(), g});
        }
        updates.push_back({t.name, m.sub(p, m.mul(g, lrArg))});
        continue;
      }
      nn::ParameterOp mState = state(t, "adamw.m:");
      nn::ParameterOp vState = state(t, "adamw.v:");
      if (weightDecay > 0)
        p = m.mul(p, m.sub(m.scalar(1.0), m.mul(lrArg, weightDecay)));
      // exp_avg.lerp_(grad, 1 - beta1)
      Value mv = mState.getResult();
      Value mNew = m.add(mv, m.mul(m.sub(g, mv), 1.0 - beta1));
      // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
      Value vNew = m.add(m.mul(vState.getResult(), beta2),
                         m.mul(m.mul(g, g), 1.0 - beta2));
      Value stepSize = m.div(lrArg, bc1);
      Value denom = m.add(m.div(m.sqrt(vNew), m.sqrt(bc2)), m.scalar(eps));
      updates.push_back({mState.getName().str(), mNew});
      updates.push_back({vState.getName().str(), vNew});
      updates.push_back(
          {t.name, m.sub(p, m.mul(m.div(mNew, denom), stepSize))});
    }

    // The new signature: loss, grad norm, then the updates.
    SmallVector<Value> results{totalLoss, gradNorm};
    SmallVector<std::string> names{"loss", "train.grad_norm"};
    llvm::StringMap<Operation *> stateOps;
    for (Operation &op : body)
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
    fn.setType(FunctionType::get(ctx, fn.getArgumentTypes(), resultTypes));
    SmallVector<DictionaryAttr> resultAttrs;
    for (const std::string &name : names)
      resultAttrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr(nn::kNameAttrName, b.getStringAttr(name))));
    fn.setAllResultAttrs(resultAttrs);

    // What the runtime needs.
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
    double flops = 0;
    fn.walk([&](CostOpInterface op) {
      FailureOr<OpCost> cost = op.getCost();
      if (succeeded(cost))
        flops += cost->flops;
    });
    bool sgd = optimizer == "sgd";
    bool crossEntropy = loss == "cross_entropy";
    auto f64 = [](double v) { return APFloat(v); };
    auto training = nn::TrainingAttr::get(
        ctx, "loss", "train.grad_norm",
        sgd ? nn::Optimizer::SGD : nn::Optimizer::AdamW, f64(lr),
        f64(weightDecay), f64(sgd ? momentum : 0.0), f64(sgd ? 0.0 : beta1),
        f64(sgd ? 0.0 : beta2), f64(sgd ? 0.0 : eps),
        lrSchedule == "cosine" ? nn::LRSchedule::Cosine
                               : nn::LRSchedule::Constant,
        warmup, decaySteps, f64(minLr), gradAccum,
        f64(clipGradNorm > 0 ? clipGradNorm : 0.0), zero, b.getArrayAttr(data),
        crossEntropy ? StringRef(labels) : StringRef(),
        crossEntropy ? numClasses : 0, std::max<int64_t>(batch, 0),
        std::max<int64_t>(tokens, 0), f64(flops));
    module->setAttr(nn::kTrainingAttrName, training);
    return success();
  }

  /// Gradient accumulation: the data inputs get `gradAccum` times the batch;
  /// microbatch k is rows k, k + K, k + 2K, ... of each device's block, so
  /// that a data-parallel split of the batch needs no data movement.
  LogicalResult buildMicrobatches(func::FuncOp fn, OpBuilder &b,
                                  ArrayRef<Operation *> forward, Value loss,
                                  Value lossScale, ArrayRef<Value> targets,
                                  unsigned numDataInputs,
                                  MutableArrayRef<Trained> trained,
                                  Value &totalLoss) {
    Location loc = fn.getLoc();
    Math m{b, loc, b.getF32Type()};
    int64_t k = gradAccum;
    SmallVector<Value> dataArgs;
    for (unsigned i = 0; i < numDataInputs; ++i) {
      BlockArgument arg = fn.getArgument(i);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getRank() == 0 || !type.hasStaticShape())
        return fn.emitError("--grad-accum needs every input to have a batch "
                            "dimension first; input #")
               << i << " is " << arg.getType();
      dataArgs.push_back(arg);
    }
    // The microbatch views, built before the arguments grow.
    SmallVector<SmallVector<Value>> views(k);
    SmallVector<RankedTensorType> microTypes;
    for (Value arg : dataArgs)
      microTypes.push_back(cast<RankedTensorType>(arg.getType()));
    for (auto [arg, micro] : llvm::zip(dataArgs, microTypes)) {
      SmallVector<int64_t> big(micro.getShape());
      big[0] *= k;
      arg.setType(micro.clone(big));
      SmallVector<int64_t> split{micro.getDimSize(0), k};
      split.append(micro.getShape().begin() + 1, micro.getShape().end());
      Value r =
          b.create<nn::ReshapeOp>(loc, arg, b.getDenseI64ArrayAttr(split));
      for (int64_t i = 0; i < k; ++i) {
        SmallVector<int64_t> offsets(split.size(), 0), sizes(split),
            strides(split.size(), 1);
        offsets[1] = i;
        sizes[1] = 1;
        Value s = b.create<nn::SliceOp>(loc, r, offsets, sizes, strides);
        views[i].push_back(b.create<nn::ReshapeOp>(
            loc, s, b.getDenseI64ArrayAttr(micro.getShape())));
      }
    }
    SmallVector<Type> argTypes;
    for (BlockArgument a : fn.getArguments())
      argTypes.push_back(a.getType());
    fn.setType(FunctionType::get(fn.getContext(), argTypes,
                                 fn.getFunctionType().getResults()));

    Value seed = m.mul(lossScale, 1.0 / double(k));
    Value lossSum;
    for (int64_t i = 0; i < k; ++i) {
      IRMapping map;
      for (auto [arg, view] : llvm::zip(dataArgs, views[i]))
        map.map(arg, view);
      SmallVector<Operation *> clones;
      for (Operation *op : forward)
        clones.push_back(b.clone(*op, map));
      Value microLoss = map.lookup(loss);
      SmallVector<Value> grads;
      if (failed(
              buildGradients(b, loc, clones, microLoss, seed, targets, grads)))
        return failure();
      for (auto [t, g] : llvm::zip(trained, grads))
        if (g)
          t.grad = t.grad ? m.add(t.grad, g) : g;
      lossSum = lossSum ? m.add(lossSum, microLoss) : microLoss;
    }
    totalLoss = m.mul(lossSum, 1.0 / double(k));
    // The single-batch body is dead now; the old return still uses it.
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    ret->dropAllReferences();
    for (Operation *op : llvm::reverse(forward)) {
      op->dropAllUses();
      op->erase();
    }
    return success();
  }

  /// The mesh axes that split the batch (all but `tp`), or none.
  SmallVector<StringAttr> dataAxes(ModuleOp module, dist::MeshOp &mesh) {
    SmallVector<StringAttr> axes;
    auto meshes = module.getOps<dist::MeshOp>();
    if (meshes.empty())
      return axes;
    mesh = *meshes.begin();
    for (Attribute a : mesh.getAxes()) {
      auto axis = cast<dist::MeshAxisAttr>(a);
      if (axis.getName() != "tp" && axis.getSize() > 1)
        axes.push_back(StringAttr::get(module.getContext(), axis.getName()));
    }
    return axes;
  }

  /// ZeRO's layout of a tensor of `type`: the data axes on its first
  /// dimension they divide (null when none does, or ZeRO is off).
  dist::ShardingAttr zeroLayout(ModuleOp module, RankedTensorType type) {
    dist::MeshOp mesh;
    SmallVector<StringAttr> axes = dataAxes(module, mesh);
    if (zero == 0 || axes.empty())
      return {};
    int64_t n = mesh.getGroupSize(axes);
    MLIRContext *ctx = module.getContext();
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.getDimSize(d) % n != 0)
        continue;
      SmallVector<dist::DimShardingAttr> dims;
      for (int64_t e = 0; e < type.getRank(); ++e)
        dims.push_back(dist::DimShardingAttr::get(
            ctx, e == d ? ArrayRef<StringAttr>(axes) : ArrayRef<StringAttr>{},
            false));
      return dist::ShardingAttr::get(ctx, FlatSymbolRefAttr::get(mesh), dims,
                                     {}, ReductionKind::Sum);
    }
    return {};
  }

  dist::ShardingAttr replicated(ModuleOp module, RankedTensorType type) {
    dist::MeshOp mesh;
    dataAxes(module, mesh);
    return dist::ShardingAttr::getReplicated(
        module.getContext(), FlatSymbolRefAttr::get(mesh), type.getRank());
  }

  /// Gradients are summed over the data axes once, where they are made:
  /// all-reduced (ZeRO 0 and 1) or reduce-scattered (2 and 3). With a `tp`
  /// axis only the reduce-scatter is pinned; propagation places the rest.
  void annotateGradient(ModuleOp module, Trained &t) {
    dist::MeshOp mesh;
    if (dataAxes(module, mesh).empty())
      return;
    auto type = cast<RankedTensorType>(t.grad.getType());
    dist::ShardingAttr layout = zero >= 2 ? zeroLayout(module, type) : nullptr;
    bool hasTP = llvm::any_of(mesh.getAxes(), [](Attribute a) {
      return cast<dist::MeshAxisAttr>(a).getName() == "tp";
    });
    if (!layout && !hasTP)
      layout = replicated(module, type);
    if (!layout)
      return;
    OpBuilder b(t.grad.getContext());
    b.setInsertionPointAfterValue(t.grad);
    t.grad = b.create<dist::AnnotateOp>(t.grad.getLoc(), t.grad.getType(),
                                        t.grad, layout);
  }

  /// Optimizer state is split from ZeRO stage 1 on.
  void annotateState(ModuleOp module, nn::ParameterOp state,
                     nn::ParameterOp param) {
    if (dist::ShardingAttr split =
            zeroLayout(module, cast<RankedTensorType>(param.getType())))
      dist::setRecordedSharding(state.getResult(), split);
  }

  /// ZeRO 3 keeps each device's block of a parameter; every use but the
  /// update sees it gathered. Below stage 3 a parameter of a data-parallel
  /// mesh stays whole (else the sharded update would split it).
  void layParameter(ModuleOp module, nn::ParameterOp param) {
    auto type = cast<RankedTensorType>(param.getType());
    dist::ShardingAttr split = zeroLayout(module, type);
    if (!split || dist::getRecordedSharding(param.getResult()))
      return;
    if (zero < 3) {
      dist::MeshOp mesh;
      dataAxes(module, mesh);
      bool hasTP = llvm::any_of(mesh.getAxes(), [](Attribute a) {
        return cast<dist::MeshAxisAttr>(a).getName() == "tp";
      });
      if (!hasTP)
        dist::setRecordedSharding(param.getResult(), replicated(module, type));
      return;
    }
    dist::setRecordedSharding(param.getResult(), split);
    OpBuilder b(param->getContext());
    b.setInsertionPointAfter(param);
    Value gathered = b.create<dist::AnnotateOp>(param.getLoc(), type, param,
                                                replicated(module, type));
    param.getResult().replaceAllUsesExcept(gathered, gathered.getDefiningOp());
  }
};
} // namespace
