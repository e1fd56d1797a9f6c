//===- NNCosts.cpp - Analytical costs of nn ops ---------------------------===//
//
// Counting conventions: a multiply-add is 2 FLOPs; a comparison, a select
// and a max are 1; exp, log, tanh, erf, sqrt and rsqrt are transcendentals.
// Bytes are those crossing the op's boundary, so views (reshape, squeeze)
// move none and a gather reads only the rows it takes.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNOps.h"
#include <algorithm>

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace {
/// Element count of a static shaped type; failure if dynamic.
FailureOr<double> count(Type type) {
  int64_t n = getNumElements(type);
  if (n < 0)
    return failure();
  return double(n);
}

/// Pure data movement: every operand read, every result written, no
/// arithmetic.
FailureOr<OpCost> movement(TypeRange operands, TypeRange results) {
  auto cost = getElementwiseCost(operands, results, 0, 0);
  if (succeeded(cost))
    cost->computeType = {};
  return cost;
}

/// Cost with explicit arithmetic counts and boundary traffic.
FailureOr<OpCost> custom(TypeRange operands, TypeRange results, double flops,
                         double trans) {
  auto cost = getElementwiseCost(operands, results, 0, 0);
  if (failed(cost))
    return failure();
  cost->flops = flops;
  cost->transcendentals = trans;
  return cost;
}

/// A view: no data moves.
FailureOr<OpCost> view(TypeRange operands, TypeRange results) {
  for (TypeRange types : {operands, results})
    for (Type t : types)
      if (getNumElements(t) < 0)
        return failure();
  OpCost cost;
  return cost;
}
} // namespace

FailureOr<OpCost> loom::nn::getReduceCost(TypeRange operands, TypeRange results,
                                          ReductionKind kind) {
  auto in = count(operands[0]), out = count(results[0]);
  if (failed(in) || failed(out))
    return failure();
  // Folding n values into m takes n - m combines (none when n is empty);
  // a mean divides m times.
  double flops =
      std::max(*in - *out, 0.0) + (kind == ReductionKind::Mean ? *out : 0);
  return custom(operands, results, flops, 0);
}

FailureOr<OpCost> ConstantOp::computeCost(TypeRange operands,
                                          TypeRange results) {
  // Constants are resident; producing them moves nothing.
  return view(operands, results);
}

FailureOr<OpCost> ParameterOp::computeCost(TypeRange operands,
                                           TypeRange results) {
  // Parameters are resident on the device between steps.
  return view(operands, results);
}

FailureOr<OpCost> RangeOp::computeCost(TypeRange operands, TypeRange results) {
  return getElementwiseCost(operands, results, 1, 0);
}

FailureOr<OpCost> GeluOp::computeCost(TypeRange operands, TypeRange results) {
  // erf form: x/sqrt2, erf, +1, *x, *0.5; tanh form: x^3 (2), *c, +x, *k,
  // tanh, +1, *x, *0.5.
  bool tanh = getApproximate() == GeluApproximation::Tanh;
  return getElementwiseCost(operands, results, tanh ? 7 : 4, 1);
}

FailureOr<OpCost> CompareOp::computeCost(TypeRange operands,
                                         TypeRange results) {
  auto cost = getElementwiseCost(operands, results, 1, 0);
  if (succeeded(cost))
    cost->computeType = getElementTypeOrSelf(operands[0]);
  return cost;
}

FailureOr<OpCost> WhereOp::computeCost(TypeRange operands, TypeRange results) {
  auto cost = getElementwiseCost(operands, results, 1, 0);
  if (succeeded(cost))
    cost->computeType = getElementTypeOrSelf(results[0]);
  return cost;
}

FailureOr<OpCost> CastOp::computeCost(TypeRange operands, TypeRange results) {
  return getElementwiseCost(operands, results, 1, 0);
}

FailureOr<OpCost> MatmulOp::computeCost(TypeRange operands, TypeRange results) {
  auto out = count(results[0]);
  auto lhs = dyn_cast<ShapedType>(operands[0]);
  if (failed(out) || !lhs || ShapedType::isDynamic(lhs.getShape().back()))
    return failure();
  return custom(operands, results, 2.0 * *out * lhs.getShape().back(), 0);
}

FailureOr<OpCost> Conv2dOp::computeCost(TypeRange operands, TypeRange results) {
  auto out = count(results[0]);
  auto filter = dyn_cast<ShapedType>(operands[1]);
  if (failed(out) || !filter || !filter.hasStaticShape())
    return failure();
  // Each output element is a dot product over C/groups x KH x KW inputs.
  double macs =
      filter.getDimSize(1) * filter.getDimSize(2) * filter.getDimSize(3);
  double flops = 2.0 * *out * macs + (getBias() ? *out : 0);
  return custom(operands, results, flops, 0);
}

/// Pooling: per output, `window - 1` combines plus `extra` operations.
static FailureOr<OpCost> poolCost(TypeRange operands, TypeRange results,
                                  ArrayRef<int64_t> kernel, double extra) {
  auto out = count(results[0]);
  if (failed(out))
    return failure();
  double window = 1;
  for (int64_t k : kernel)
    window *= k;
  return custom(operands, results, *out * (window - 1 + extra), 0);
}

FailureOr<OpCost> MaxPoolOp::computeCost(TypeRange operands,
                                         TypeRange results) {
  return poolCost(operands, results, getKernel(), 0);
}

FailureOr<OpCost> MaxPoolWithIndicesOp::computeCost(TypeRange operands,
                                                    TypeRange results) {
  // Per window position after the first: a comparison, and a select each
  // for the value and the index.
  auto cost = poolCost(operands, results, getKernel(), 0);
  if (succeeded(cost))
    cost->flops *= 3;
  return cost;
}

FailureOr<OpCost> AvgPoolOp::computeCost(TypeRange operands,
                                         TypeRange results) {
  // One division per output.
  return poolCost(operands, results, getKernel(), 1);
}

FailureOr<OpCost> GlobalAvgPool2dOp::computeCost(TypeRange operands,
                                                 TypeRange results) {
  return getReduceCost(operands, results, ReductionKind::Mean);
}

FailureOr<OpCost> GlobalMaxPool2dOp::computeCost(TypeRange operands,
                                                 TypeRange results) {
  return getReduceCost(operands, results, ReductionKind::Max);
}

/// Softmax family along `axis`: per element a max, a subtract, an exp, a sum
/// and a divide (softmax) or a subtract (log-softmax, plus a log per row).
static FailureOr<OpCost> softmaxCost(TypeRange operands, TypeRange results,
                                     int64_t axis, bool log) {
  auto n = count(operands[0]);
  auto shaped = dyn_cast<ShapedType>(operands[0]);
  if (failed(n) || !shaped)
    return failure();
  double rows = shaped.getDimSize(axis) ? *n / shaped.getDimSize(axis) : 0;
  return custom(operands, results, 4 * *n, *n + (log ? rows : 0));
}

FailureOr<OpCost> SoftmaxOp::computeCost(TypeRange operands,
                                         TypeRange results) {
  return softmaxCost(operands, results, getAxis(), false);
}

FailureOr<OpCost> LogSoftmaxOp::computeCost(TypeRange operands,
                                            TypeRange results) {
  return softmaxCost(operands, results, getAxis(), true);
}

FailureOr<OpCost> LayerNormOp::computeCost(TypeRange operands,
                                           TypeRange results) {
  auto n = count(operands[0]);
  auto shaped = dyn_cast<ShapedType>(operands[0]);
  if (failed(n) || !shaped)
    return failure();
  double inner = 1;
  for (int64_t d : shaped.getShape().drop_front(getAxis()))
    inner *= d;
  double rows = inner ? *n / inner : 0;
  // mean (sum), subtract, square, variance (sum), normalise (mul); then the
  // optional scale and shift; one rsqrt per row.
  double perElement = 5 + (getScale() ? 1 : 0) + (getBias() ? 1 : 0);
  return custom(operands, results, perElement * *n, rows);
}

FailureOr<OpCost> BatchNormOp::computeCost(TypeRange operands,
                                           TypeRange results) {
  auto n = count(operands[0]);
  auto c = count(operands[1]);
  if (failed(n) || failed(c))
    return failure();
  // Per channel: fold the statistics into one scale and shift (4 ops and an
  // rsqrt); per element: one multiply-add.
  return custom(operands, results, 2 * *n + 4 * *c, *c);
}

FailureOr<OpCost> CrossEntropyOp::computeCost(TypeRange operands,
                                              TypeRange results) {
  auto n = count(operands[0]);
  auto positions = count(operands[1]);
  if (failed(n) || failed(positions))
    return failure();
  // log-softmax over the classes, then pick, negate and average.
  return custom(operands, results, 4 * *n + 2 * *positions, *n + *positions);
}

FailureOr<OpCost> GatherOp::computeCost(TypeRange operands, TypeRange results) {
  auto out = getTensorBytes(results[0]);
  auto indices = getTensorBytes(operands[1]);
  if (out < 0 || indices < 0)
    return failure();
  OpCost cost;
  cost.bytesRead = indices + out;
  cost.bytesWritten = out;
  return cost;
}

FailureOr<OpCost> ScatterAddOp::computeCost(TypeRange operands,
                                            TypeRange results) {
  auto n = count(operands[0]);
  if (failed(n))
    return failure();
  // Zeros, then one add per element of `updates`.
  return custom(operands, results, *n, 0);
}

FailureOr<OpCost> ReshapeOp::computeCost(TypeRange operands,
                                         TypeRange results) {
  return view(operands, results);
}

FailureOr<OpCost> SqueezeOp::computeCost(TypeRange operands,
                                         TypeRange results) {
  return view(operands, results);
}

FailureOr<OpCost> UnsqueezeOp::computeCost(TypeRange operands,
                                           TypeRange results) {
  return view(operands, results);
}

FailureOr<OpCost> TransposeOp::computeCost(TypeRange operands,
                                           TypeRange results) {
  return movement(operands, results);
}

FailureOr<OpCost> ConcatOp::computeCost(TypeRange operands, TypeRange results) {
  return movement(operands, results);
}

FailureOr<OpCost> SplitOp::computeCost(TypeRange operands, TypeRange results) {
  return movement(operands, results);
}

FailureOr<OpCost> SliceOp::computeCost(TypeRange operands, TypeRange results) {
  // Only the selected elements are read.
  int64_t out = getTensorBytes(results[0]);
  if (out < 0 || getNumElements(operands[0]) < 0)
    return failure();
  OpCost cost;
  cost.bytesRead = out;
  cost.bytesWritten = out;
  return cost;
}

FailureOr<OpCost> BroadcastToOp::computeCost(TypeRange operands,
                                             TypeRange results) {
  return movement(operands, results);
}

FailureOr<OpCost> PadOp::computeCost(TypeRange operands, TypeRange results) {
  return movement(operands, results);
}

FailureOr<OpCost> TriluOp::computeCost(TypeRange operands, TypeRange results) {
  return getElementwiseCost(operands, results, 1, 0);
}
