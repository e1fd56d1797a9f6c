//===- LegalizeStorageTypes.cpp - Store nn's storage types as signless ----===//
//
// arith computes on signless integers and LLVM has no 8-bit floats, so
// before the lowering unsigned integers are stored as signless ones of the
// same width, and 8-bit floats and 4-bit integers as i8 (raw bits; the
// value, sign- or zero-extended). A type converter rewrites every signature,
// call, return and op; nn ops whose meaning depended on an erased type are
// marked (`nn.unsigned`, `nn.cast_from`) so that the lowering still knows.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "loom/Conversion/Passes.h"
#include "loom/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace loom {
#define GEN_PASS_DEF_NNLEGALIZESTORAGETYPES
#include "loom/Conversion/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn_to_linalg;

namespace {

Type eraseType(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t))
    if (Type s = storageOf(rt.getElementType()))
      return rt.clone(s);
  if (Type s = storageOf(t))
    return s;
  return t;
}

/// `attr` with its element type erased; 4-bit values are extended to
/// bytes by their signedness.
Attribute eraseAttr(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    Type s = storageOf(i.getType());
    if (!s)
      return attr;
    APInt v = i.getValue();
    unsigned w = s.getIntOrFloatBitWidth();
    return IntegerAttr::get(
        s, i.getType().isUnsignedInteger() ? v.zext(w) : v.sextOrTrunc(w));
  }
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements)
    return attr;
  auto type = cast<ShapedType>(elements.getType());
  Type et = type.getElementType(), s = storageOf(et);
  if (!s)
    return attr;
  auto to = RankedTensorType::get(type.getShape(), s);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    if (et.getIntOrFloatBitWidth() == s.getIntOrFloatBitWidth())
      return DenseResourceElementsAttr::get(to, resource.getRawHandle());
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return {};
  if (et.getIntOrFloatBitWidth() == s.getIntOrFloatBitWidth())
    return dense.bitcast(s);
  bool zext = et.isUnsignedInteger();
  return dense.mapValues(
      s, [&](const APInt &v) { return zext ? v.zext(8) : v.sext(8); });
}

/// Whether eraseAttr can rewrite `attr`: elements held other than densely,
/// or in a resource whose width changes, cannot be.
bool canErase(Attribute attr) {
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements || isa<DenseElementsAttr>(attr))
    return true;
  Type et = cast<ShapedType>(elements.getType()).getElementType();
  Type s = storageOf(et);
  return !s || (isa<DenseResourceElementsAttr>(attr) &&
                et.getIntOrFloatBitWidth() == s.getIntOrFloatBitWidth());
}

/// Marks the nn ops whose meaning depends on a type about to be erased, and
/// reports the first attribute that cannot be stored. Marking comes before
/// the conversion, which folds illegal ops before rewriting them: a marked
/// cast does not fold, so it is lowered as it was written.
LogicalResult markOps(Operation *root) {
  WalkResult r = root->walk([](Operation *op) -> WalkResult {
    if (!isa<NNDialect>(op->getDialect()))
      return WalkResult::advance();
    for (NamedAttribute named : op->getAttrs())
      if (!isa<TypeAttr>(named.getValue()) && !canErase(named.getValue()))
        return op->emitError("cannot store attribute '")
               << named.getName().strref() << "' in a signless type";
    if (op->getNumOperands() == 0)
      return WalkResult::advance();
    Type input = getElementTypeOrSelf(op->getOperand(0).getType());
    if (auto cast = dyn_cast<CastOp>(op)) {
      // Either side erased: the op's types no longer say what it does. A
      // cast legalised before keeps its source type.
      if ((storageOf(input) || storageOf(cast.getTo())) &&
          !op->hasAttr(NNDialect::CastFromAttrHelper::getNameStr()))
        op->setAttr(NNDialect::CastFromAttrHelper::getNameStr(),
                    TypeAttr::get(input));
    } else if (llvm::any_of(op->getOperandTypes(), [](Type t) {
                 return getElementTypeOrSelf(t).isUnsignedInteger();
               })) {
      op->setAttr(NNDialect::UnsignedAttrHelper::getNameStr(),
                  UnitAttr::get(op->getContext()));
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

struct StorageTypeConverter : TypeConverter {
  StorageTypeConverter() {
    addConversion([](Type t) { return eraseType(t); });
  }
};

/// Rebuilds an op that has storage types (nn, dist, ...) on signless ones,
/// erasing an nn op's attributes too (its marks are already set).
struct EraseOpStorageTypes final : ConversionPattern {
  EraseOpStorageTypes(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    // Functions, calls and returns have their own patterns.
    if (isa<func::FuncOp, func::CallOp, func::ReturnOp>(op))
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    NamedAttrList attrs(op->getAttrs());
    if (isa<NNDialect>(op->getDialect())) {
      for (NamedAttribute named : op->getAttrs()) {
        if (isa<TypeAttr>(named.getValue()))
          continue;
        Attribute a = eraseAttr(named.getValue());
        if (!a)
          return rewriter.notifyMatchFailure(op, "attribute not storable");
        attrs.set(named.getName(), a);
      }
    }
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         attrs, op->getSuccessors());
    for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
      state.addRegion();
    Operation *newOp = rewriter.create(state);
    for (auto [from, to] : llvm::zip(op->getRegions(), newOp->getRegions())) {
      rewriter.inlineRegionBefore(from, to, to.end());
      if (failed(rewriter.convertRegionTypes(&to, *getTypeConverter())))
        return failure();
    }
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

struct NNLegalizeStorageTypes
    : loom::impl::NNLegalizeStorageTypesBase<NNLegalizeStorageTypes> {
  void runOnOperation() override {
    if (failed(legalizeNNStorageTypes(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult loom::legalizeNNStorageTypes(Operation *root) {
  if (failed(markOps(root)))
    return failure();
  MLIRContext *ctx = root->getContext();
  StorageTypeConverter converter;
  ConversionTarget target(*ctx);
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp fn) {
    return converter.isSignatureLegal(fn.getFunctionType()) &&
           converter.isLegal(&fn.getBody());
  });
  target.markUnknownOpDynamicallyLegal([&](Operation *op) {
    return converter.isLegal(op) &&
           llvm::all_of(op->getRegions(),
                        [&](Region &r) { return converter.isLegal(&r); });
  });
  RewritePatternSet patterns(ctx);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  patterns.add<EraseOpStorageTypes>(converter, ctx);
  return applyPartialConversion(root, target, std::move(patterns));
}
