//===- NodeImporter.cpp - Helpers for converting one ONNX node ------------===//

#include "ImporterImpl.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/APSInt.h"

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

unsigned NodeImporter::numOutputs() const {
  unsigned n = node.output_size();
  while (n > 0 && node.output(n - 1).empty())
    --n;
  return n;
}

bool NodeImporter::hasOutput(unsigned i) const {
  return (int)i < node.output_size() && !node.output(i).empty();
}

InFlightDiagnostic NodeImporter::error() { return emitError(loc); }

InFlightDiagnostic NodeImporter::unsupported() {
  return state.unsupportedError(loc);
}

FailureOr<Value> NodeImporter::required(unsigned i, StringRef name) {
  if (Value v = input(i))
    return v;
  return error() << "missing required input '" << name << "' (#" << i << ")";
}

FailureOr<DenseElementsAttr> NodeImporter::constant(unsigned i,
                                                    StringRef name) {
  auto value = required(i, name);
  if (failed(value))
    return failure();
  DenseElementsAttr attr;
  if (matchPattern(*value, m_Constant(&attr)))
    return attr;
  // A float initializer (a parameter) used where a value must be known at
  // compile time: read its initial value.
  if (auto param = value->getDefiningOp<nn::ParameterOp>()) {
    if (auto dense = dyn_cast<DenseElementsAttr>(param.getValue()))
      return dense;
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(param.getValue()))
      if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
        return DenseElementsAttr::getFromRawBuffer(resource.getType(),
                                                   blob->getData());
  }
  auto diag = unsupported() << "input '" << name
                            << "' must be a constant (or fold to one), but "
                               "it is computed at run time";
  if (!state.dynamicInputs.empty())
    diag << "; it may depend on graph inputs with unknown dimensions: "
         << state.dynamicInputs << "; fix them with --input-shape NAME=DxDx...";
  return diag;
}

FailureOr<SmallVector<int64_t>> NodeImporter::constantInts(unsigned i,
                                                           StringRef name) {
  auto attr = constant(i, name);
  if (failed(attr))
    return failure();
  if (!isa<IntegerType>(attr->getElementType()) ||
      attr->getElementType().isInteger(1))
    return error() << "input '" << name << "' must hold integers";
  SmallVector<int64_t> values;
  for (const APInt &v : attr->getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

FailureOr<double> NodeImporter::constantScalar(unsigned i, StringRef name) {
  auto attr = constant(i, name);
  if (failed(attr))
    return failure();
  if (attr->getNumElements() != 1)
    return error() << "input '" << name << "' must hold one value, it holds "
                   << attr->getNumElements();
  if (isa<FloatType>(attr->getElementType()))
    return (*attr->getValues<APFloat>().begin()).convertToDouble();
  return double((*attr->getValues<APInt>().begin()).getSExtValue());
}

FailureOr<int64_t> NodeImporter::axis(int64_t value, int64_t rank,
                                      StringRef what) {
  int64_t normalized = value < 0 ? value + rank : value;
  if (normalized < 0 || normalized >= rank)
    return error() << what << " " << value << " is out of range for rank "
                   << rank;
  return normalized;
}

FailureOr<SmallVector<int64_t>> NodeImporter::axes(ArrayRef<int64_t> values,
                                                   int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t v : values) {
    auto a = axis(v, rank);
    if (failed(a))
      return failure();
    if (llvm::is_contained(result, *a))
      return error() << "axis " << v << " is repeated";
    result.push_back(*a);
  }
  llvm::sort(result);
  return result;
}

LogicalResult NodeImporter::requireStatic(unsigned i, StringRef why) {
  if (typeOf(i).hasStaticShape())
    return success();
  auto diag = unsupported() << why << " needs the static shape of input #" << i
                            << " (" << typeOf(i) << ")";
  if (!state.dynamicInputs.empty())
    diag << "; graph inputs with unknown dimensions: " << state.dynamicInputs
         << "; fix them with --input-shape NAME=DxDx...";
  return failure();
}

FailureOr<SmallVector<Value>> NodeImporter::finish(Operation *op) {
  if (failed(mlir::verify(op))) {
    op->erase();
    return failure();
  }
  for (Type t : op->getResultTypes())
    if (!withinElementLimit(cast<ShapedType>(t).getShape())) {
      op->erase();
      return error() << "the result would have more than 2^48 elements";
    }
  SmallVector<Value> folded;
  if (succeeded(b.tryFold(op, folded)) && !folded.empty()) {
    op->erase();
    return folded;
  }
  return SmallVector<Value>(op->getResults());
}

Value NodeImporter::splat(RankedTensorType type, double value) {
  Type element = type.getElementType();
  Attribute attr;
  if (auto f = dyn_cast<FloatType>(element)) {
    APFloat v(value);
    bool lost;
    v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    attr = DenseElementsAttr::get(type, v);
  } else if (element.isInteger(1)) {
    attr = DenseElementsAttr::get(type, value != 0);
  } else {
    // Toward zero, saturating at the type's range (NaN is 0): attribute
    // values come from the model and may not fit.
    llvm::APSInt result(element.getIntOrFloatBitWidth(),
                        element.isUnsignedInteger());
    bool exact;
    APFloat(value).convertToInteger(result, APFloat::rmTowardZero, &exact);
    attr = DenseElementsAttr::get(type, APInt(result));
  }
  return b.create<nn::ConstantOp>(loc, cast<ElementsAttr>(attr));
}

Value NodeImporter::scalar(Type elementType, double value) {
  return splat(RankedTensorType::get({}, elementType), value);
}

FailureOr<Value> NodeImporter::castTo(Value value, Type elementType) {
  if (getElementTypeOrSelf(value.getType()) == elementType)
    return value;
  return make<nn::CastOp>(value, elementType);
}

FailureOr<Value> NodeImporter::reshape(Value value, ArrayRef<int64_t> shape) {
  return make<nn::ReshapeOp>(value, shape);
}

FailureOr<Value> NodeImporter::transpose(Value value, ArrayRef<int64_t> perm) {
  return make<nn::TransposeOp>(value, perm);
}

FailureOr<Value> NodeImporter::unsqueeze(Value value, ArrayRef<int64_t> axes) {
  return make<nn::UnsqueezeOp>(value, axes);
}

FailureOr<Value> NodeImporter::squeeze(Value value, ArrayRef<int64_t> axes) {
  return make<nn::SqueezeOp>(value, axes);
}
