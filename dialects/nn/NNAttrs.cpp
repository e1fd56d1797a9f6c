//===- NNAttrs.cpp - nn attributes ----------------------------------------===//

#include "loom/Dialect/NN/NNDialect.h"
#include "loom/Support/FloatFormat.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace loom::nn;

#include "nn/NNEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nn/NNAttrs.cpp.inc"

void NNDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nn/NNAttrs.cpp.inc"
      >();
}

LogicalResult
TrainingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     StringRef loss, StringRef gradNorm, Optimizer optimizer,
                     APFloat lr, APFloat, APFloat, APFloat, APFloat, APFloat,
                     LRSchedule, int64_t warmup, int64_t decaySteps, APFloat,
                     int64_t gradAccum, APFloat, int64_t zero,
                     ArrayAttr dataInputs, StringRef, int64_t numClasses,
                     int64_t batch, int64_t tokensPerExample, APFloat) {
  if (loss.empty() || gradNorm.empty())
    return emitError() << "a training step names its loss and gradient-norm "
                          "results";
  if (!(lr.convertToDouble() > 0))
    return emitError() << "the learning rate must be positive";
  if (warmup < 0 || decaySteps < 0 || gradAccum < 1 || zero < 0 || zero > 3 ||
      numClasses < 0 || batch < 0 || tokensPerExample < 0)
    return emitError() << "warmup, decay_steps, num_classes, batch and "
                          "tokens_per_example must not be negative, "
                          "grad_accum must be positive and zero in [0, 3]";
  if (!dataInputs || !llvm::all_of(dataInputs, [](Attribute a) {
        return llvm::isa<StringAttr>(a);
      }))
    return emitError() << "data_inputs must be an array of input names";
  return success();
}

SmallVector<std::pair<StringRef, StringRef>>
TrainingAttr::getScalarInputs() const {
  SmallVector<std::pair<StringRef, StringRef>> scalars{
      {"train.lr", "lr"}, {"train.loss_scale", "loss_scale"}};
  if (getOptimizer() == Optimizer::AdamW) {
    scalars.push_back({"train.bias_correction1", "bias_correction1"});
    scalars.push_back({"train.bias_correction2", "bias_correction2"});
  }
  return scalars;
}
