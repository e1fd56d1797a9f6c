//===- NNOptimizerOps.cpp - Optimizer updates -----------------------------===//
//
// nn.sgd_update and nn.adamw_update: types, hyper-parameter checks, and a
// cost that counts the elementwise ops -nn-expand-optimizers builds, one by
// one, so that a step is priced the same before and after expansion.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNOps.h"
#include "loom/Support/FloatFormat.h"

using namespace mlir;
using namespace loom;
using namespace loom::nn;

#include "nn/NNOptimizerInterface.cpp.inc"

std::string loom::nn::formatFloatLiteral(const APFloat &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printShortestFloat(os, value);
  // Integral values print as integers; MLIR reads those as integers only.
  if (value.isFinite() &&
      StringRef(text).find_first_not_of("-0123456789") == StringRef::npos)
    text += ".0";
  return text;
}

namespace {
std::string str(const APFloat &value) { return formatFloatLiteral(value); }

/// The new parameter and one new state tensor per state operand, all of the
/// parameter's type.
LogicalResult inferUpdateResults(Type param, unsigned numState,
                                 SmallVectorImpl<Type> &types) {
  types.assign(1 + numState, param);
  return success();
}

/// Reads and writes like an elementwise op over all operands and results,
/// with `flops` and `trans` counted by hand; unpriced when the parameter's
/// shape is dynamic.
FailureOr<OpCost> updateCost(TypeRange operands, TypeRange results,
                             double flops, double trans) {
  FailureOr<OpCost> cost = getElementwiseCost(operands, results, 0, 0);
  if (failed(cost))
    return failure();
  cost->flops = flops;
  cost->transcendentals = trans;
  return cost;
}

LogicalResult checkWeightDecay(Operation *op, const APFloat &weightDecay) {
  if (weightDecay.isNegative() && !weightDecay.isZero())
    return op->emitOpError("weight_decay must not be negative, not ")
           << str(weightDecay);
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// SGDUpdateOp
//===----------------------------------------------------------------------===//

LogicalResult SGDUpdateOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferUpdateResults(adaptor.getParam().getType(),
                            adaptor.getMomentumBuffer() ? 1 : 0, types);
}

LogicalResult SGDUpdateOp::verify() {
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0 && momentum < 1))
    return emitOpError("momentum must be in [0, 1), not ")
           << str(getMomentum());
  if ((momentum > 0) != static_cast<bool>(getMomentumBuffer()))
    return emitOpError("takes a momentum buffer exactly when momentum > 0 "
                       "(momentum = ")
           << str(getMomentum()) << ")";
  return checkWeightDecay(*this, getWeightDecay());
}

OperandRange SGDUpdateOp::getState() { return getODSOperands(2); }

ResultRange SGDUpdateOp::getNewState() { return getODSResults(1); }

FailureOr<OpCost> SGDUpdateOp::computeCost(TypeRange operands,
                                           TypeRange results) {
  int64_t n = getNumElements(operands[0]);
  if (n < 0)
    return failure();
  // g * clip; g + p * wd; buf * momentum + g; p - g * lr.
  double flops = (getClip() ? n : 0) +
                 (getWeightDecay().convertToDouble() > 0 ? 2 * n : 0) +
                 (getMomentumBuffer() ? 2 * n : 0) + 2 * n;
  return updateCost(operands, results, flops, 0);
}

//===----------------------------------------------------------------------===//
// AdamWUpdateOp
//===----------------------------------------------------------------------===//

LogicalResult AdamWUpdateOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location>,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  return inferUpdateResults(adaptor.getParam().getType(), 2, types);
}

LogicalResult AdamWUpdateOp::verify() {
  double beta1 = getBeta1().convertToDouble();
  double beta2 = getBeta2().convertToDouble();
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
    return emitOpError("beta1 and beta2 must be in [0, 1), not ")
           << str(getBeta1()) << " and " << str(getBeta2());
  if (!(getEps().convertToDouble() > 0))
    return emitOpError("eps must be positive, not ") << str(getEps());
  return checkWeightDecay(*this, getWeightDecay());
}

OperandRange AdamWUpdateOp::getState() {
  return getOperation()->getOperands().slice(2, 2);
}

ResultRange AdamWUpdateOp::getNewState() {
  return getOperation()->getResults().drop_front();
}

FailureOr<OpCost> AdamWUpdateOp::computeCost(TypeRange operands,
                                             TypeRange results) {
  int64_t n = getNumElements(operands[0]);
  if (n < 0)
    return failure();
  // m: 3 per element; v: 4; sqrt(v) / sqrt(bc2) + eps: 2 and a square
  // root; m / denom * (lr / bc1) and p - that: 3, and one scalar division.
  double flops = 12 * n + 1;
  double trans = n + 1;
  if (getClip())
    flops += n;
  // p * (1 - lr * wd): two scalar ops and one per element.
  if (getWeightDecay().convertToDouble() > 0)
    flops += n + 2;
  return updateCost(operands, results, flops, trans);
}
