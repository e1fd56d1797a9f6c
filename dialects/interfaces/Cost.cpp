//===- Cost.cpp - Analytical op cost --------------------------------------===//

#include "loom/Interfaces/Cost.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace loom;

OpCost &OpCost::operator+=(const OpCost &other) {
  flops += other.flops;
  transcendentals += other.transcendentals;
  bytesRead += other.bytesRead;
  bytesWritten += other.bytesWritten;
  if (!computeType)
    computeType = other.computeType;
  return *this;
}

int64_t loom::getElementByteSize(Type elementType) {
  if (auto complex = dyn_cast<ComplexType>(elementType))
    return 2 * getElementByteSize(complex.getElementType());
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return (bits + 7) / 8;
}

int64_t loom::getNumElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return 1;
  if (!shaped.hasStaticShape())
    return -1;
  return shaped.getNumElements();
}

int64_t loom::getTensorBytes(Type type) {
  int64_t n = getNumElements(type);
  if (n < 0)
    return -1;
  return n * getElementByteSize(getElementTypeOrSelf(type));
}

FailureOr<OpCost> loom::getElementwiseCost(TypeRange operandTypes,
                                           TypeRange resultTypes,
                                           double flopsPerElement,
                                           double transPerElement) {
  OpCost cost;
  for (Type t : operandTypes) {
    int64_t bytes = getTensorBytes(t);
    if (bytes < 0)
      return failure();
    cost.bytesRead += bytes;
  }
  int64_t elements = 0;
  for (Type t : resultTypes) {
    int64_t bytes = getTensorBytes(t);
    if (bytes < 0)
      return failure();
    cost.bytesWritten += bytes;
    elements += getNumElements(t);
  }
  cost.flops = flopsPerElement * elements;
  cost.transcendentals = transPerElement * elements;
  if (!operandTypes.empty())
    cost.computeType = getElementTypeOrSelf(operandTypes.front());
  else if (!resultTypes.empty())
    cost.computeType = getElementTypeOrSelf(resultTypes.front());
  return cost;
}
