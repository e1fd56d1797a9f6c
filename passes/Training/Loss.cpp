//===- Loss.cpp - The loss a training step minimises ----------------------===//
//
// A scalar output of the model, or the mean cross entropy of a logits
// output against a new integer labels input, built from sums so that a
// batch split over devices needs only scalar all-reduces.
//
//===----------------------------------------------------------------------===//

#include "Math.h"
#include "TrainingStep.h"
#include "loom/Dialect/Dist/DistOps.h"

using namespace mlir;
using namespace loom;
using namespace loom::training;

namespace {
/// The model's outputs by name (`outputN` for unnamed ones).
struct Outputs {
  func::FuncOp fn;

  std::string names() {
    std::string text;
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      auto name = fn.getResultAttrOfType<StringAttr>(i, nn::kNameAttrName);
      text +=
          (i ? ", " : "") + (name ? name.str() : "output" + std::to_string(i));
    }
    return text.empty() ? std::string("(none)") : text;
  }

  Value find(StringRef name) {
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    for (unsigned i = 0; i < fn.getNumResults(); ++i) {
      auto n = fn.getResultAttrOfType<StringAttr>(i, nn::kNameAttrName);
      if ((n && n.getValue() == name) ||
          (!n && name == "output" + std::to_string(i)))
        return ret.getOperand(i);
    }
    return {};
  }
};

/// The named scalar output, as a 0-d tensor.
FailureOr<Value> scalarOutputLoss(func::FuncOp fn, OpBuilder &b,
                                  const LossOptions &options) {
  Outputs outputs{fn};
  if (!options.logits.empty())
    return fn.emitError("--logits applies to --loss=cross_entropy only");
  Value v = outputs.find(options.loss);
  if (!v)
    return fn.emitError("--loss: the model has no output '")
           << options.loss << "'; its outputs are " << outputs.names();
  auto type = cast<RankedTensorType>(v.getType());
  if (!isFloatTensor(type) || !type.hasStaticShape() ||
      type.getNumElements() != 1)
    return fn.emitError("--loss: output '")
           << options.loss << "' must be a float scalar (one element), not "
           << v.getType();
  if (type.getRank() != 0)
    v = b.create<nn::ReshapeOp>(fn.getLoc(), v,
                                b.getDenseI64ArrayAttr(ArrayRef<int64_t>{}));
  return v;
}

/// Adds the labels argument (last); it shares the batch with the inputs,
/// so it takes the layout of dimension 0 of the first input of that batch.
FailureOr<Value> addLabels(func::FuncOp fn, OpBuilder &b,
                           RankedTensorType logits, StringRef labels) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (auto n = fn.getArgAttrOfType<StringAttr>(i, nn::kNameAttrName))
      if (n.getValue() == labels)
        return fn.emitError("--labels: the model already has an input '")
               << labels << "'; name the labels input otherwise";
  auto labelsType = RankedTensorType::get(logits.getShape().drop_back(),
                                          b.getIntegerType(64));
  unsigned index = fn.getNumArguments();
  fn.insertArgument(index, labelsType,
                    b.getDictionaryAttr(b.getNamedAttr(
                        nn::kNameAttrName, b.getStringAttr(labels))),
                    fn.getLoc());
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
  return fn.getArgument(index);
}

/// Mean cross entropy over the positions whose label is not -100, as sums:
/// a batch split over devices then needs only scalar all-reduces
/// (nn.cross_entropy's mean would gather the logits).
FailureOr<Loss> crossEntropyLoss(func::FuncOp fn, OpBuilder &b,
                                 const LossOptions &options) {
  Outputs outputs{fn};
  if (options.logits.empty())
    return fn.emitError("--loss=cross_entropy needs --logits=OUTPUT; the "
                        "model's outputs are ")
           << outputs.names();
  Value x = outputs.find(options.logits);
  if (!x)
    return fn.emitError("--logits: the model has no output '")
           << options.logits << "'; its outputs are " << outputs.names();
  auto type = cast<RankedTensorType>(x.getType());
  if (!isFloatTensor(type) || !type.hasStaticShape() || type.getRank() < 1)
    return fn.emitError("--logits: output '")
           << options.logits
           << "' must be a float tensor of static shape with the "
           << "classes last, not " << x.getType();
  FailureOr<Value> labels = addLabels(fn, b, type, options.labels);
  if (failed(labels))
    return failure();
  Value y = *labels;
  auto labelsType = cast<RankedTensorType>(y.getType());
  Location loc = fn.getLoc();
  int64_t classAxis = type.getRank() - 1;
  int64_t numClasses = type.getDimSize(classAxis);
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
  Value valid = b.create<nn::WhereOp>(
      loc, compare(nn::CompareDirection::NE, y, ignore), scalar(1), scalar(0));
  Value count = b.create<nn::MaxOp>(loc, m.sumAll(valid), scalar(1));
  Value loss = b.create<nn::NegOp>(loc, m.div(m.sumAll(picked), count));
  return Loss{loss, numClasses};
}
} // namespace

bool loom::training::isFloatTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && isa<FloatType>(rt.getElementType());
}

FailureOr<Loss> loom::training::buildLoss(func::FuncOp fn, OpBuilder &b,
                                          const LossOptions &options) {
  if (options.loss.empty())
    return fn.emitError("training needs --loss: the name of a scalar "
                        "output, or cross_entropy (with --logits and "
                        "--labels); the model's outputs are ")
           << Outputs{fn}.names();
  if (options.loss == "cross_entropy")
    return crossEntropyLoss(fn, b, options);
  FailureOr<Value> v = scalarOutputLoss(fn, b, options);
  if (failed(v))
    return failure();
  return Loss{*v, 0};
}
