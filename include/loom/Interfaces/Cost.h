//===- Cost.h - Analytical op cost ------------------------------*- C++ -*-===//

#ifndef LOOM_INTERFACES_COST_H
#define LOOM_INTERFACES_COST_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeRange.h"
#include <cstdint>

namespace loom {

/// Work done by one op. FLOPs count arithmetic operations (a multiply-add is
/// two); transcendentals (exp, log, tanh, erf, sqrt, division by a value
/// needing a reciprocal unit) are counted apart because accelerators run them
/// on separate units. Bytes are what the op reads and writes at its
/// boundaries, as if nothing were fused.
struct OpCost {
  double flops = 0;
  double transcendentals = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  /// The element type the arithmetic runs in (null when the op computes
  /// nothing, e.g. a reshape).
  mlir::Type computeType;

  OpCost &operator+=(const OpCost &other);
};

/// Storage size of one element: i1 takes a byte, as in memory.
int64_t getElementByteSize(mlir::Type elementType);

/// Number of elements of a static shaped type, or -1 if any dim is dynamic.
int64_t getNumElements(mlir::Type type);

/// Bytes of a statically shaped tensor type, or -1 if dynamic.
int64_t getTensorBytes(mlir::Type type);

/// Cost of reading every operand and writing every result once with
/// `flopsPerElement` arithmetic and `transPerElement` transcendental
/// operations per result element; failure if any shape is dynamic.
mlir::FailureOr<OpCost> getElementwiseCost(mlir::TypeRange operandTypes,
                                           mlir::TypeRange resultTypes,
                                           double flopsPerElement,
                                           double transPerElement);

} // namespace loom

#endif // LOOM_INTERFACES_COST_H
