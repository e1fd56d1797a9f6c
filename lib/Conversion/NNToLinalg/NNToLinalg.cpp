//===- NNToLinalg.cpp - Lower nn ops to linalg, tensor, arith and math ----===//
//
// Every nn op becomes linalg/tensor/arith/math on tensors, so that upstream
// elementwise fusion, one-shot bufferization and the LLVM lowering apply.
// Elementwise ops become `linalg.generic`s whose indexing maps do the
// numpy broadcasting, which lets fusion merge whole chains into one loop
// nest. Contractions stay named ops (`linalg.matmul`, `batch_matmul`,
// `*_transpose_b`) so that a later pass can hand them to a BLAS library.
//
// f16 and bf16 arithmetic is done in f32 (extended on load, truncated on
// store): x86 has no native half arithmetic and the ONNX references compute
// the same way.
//
// arith computes on signless integers and LLVM has no 8-bit floats, so the
// pass first stores unsigned integers as signless ones of the same width,
// and 8-bit floats and 4-bit integers as i8 (raw bits; the value, sign- or
// zero-extended), marking the ops whose meaning depended on the erased type
// (`nn.unsigned`, `nn.cast_from`). nn.cast converts them bit by bit.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "loom/Conversion/Passes.h"
#include "loom/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Transforms/DialectConversion.h"

namespace loom {
#define GEN_PASS_DEF_CONVERTNNTOLINALG
#include "loom/Conversion/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn_to_linalg;

namespace {

//===----------------------------------------------------------------------===//
// Storage types
//===----------------------------------------------------------------------===//

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

/// Stores unsigned integers, 8-bit floats and 4-bit integers in signless
/// types throughout `fn`, marking the nn ops whose meaning depended on the
/// erased types.
LogicalResult eraseStorageTypes(func::FuncOp fn) {
  // Mark first: erasing a value's type changes what its users see.
  fn.walk([&](Operation *op) {
    if (!isa<NNDialect>(op->getDialect()) || op->getNumOperands() == 0)
      return;
    Type input = getElementTypeOrSelf(op->getOperand(0).getType());
    if (auto cast = dyn_cast<CastOp>(op)) {
      // Either side erased: the op's types no longer say what it does.
      if (storageOf(input) || storageOf(cast.getTo()))
        op->setAttr(NNDialect::CastFromAttrHelper::getNameStr(),
                    TypeAttr::get(input));
    } else if (llvm::any_of(op->getOperandTypes(), [](Type t) {
                 return getElementTypeOrSelf(t).isUnsignedInteger();
               })) {
      op->setAttr(NNDialect::UnsignedAttrHelper::getNameStr(),
                  UnitAttr::get(op->getContext()));
    }
  });
  auto erased = [](TypeRange types) {
    return llvm::map_to_vector(types, eraseType);
  };
  FunctionType type = fn.getFunctionType();
  fn.setType(FunctionType::get(fn.getContext(), erased(type.getInputs()),
                               erased(type.getResults())));
  for (BlockArgument arg : fn.getArguments())
    arg.setType(eraseType(arg.getType()));
  WalkResult r = fn.walk([&](Operation *op) -> WalkResult {
    if (isa<NNDialect>(op->getDialect())) {
      for (NamedAttribute named : op->getAttrs()) {
        if (isa<TypeAttr>(named.getValue()))
          continue;
        Attribute a = eraseAttr(named.getValue());
        if (!a)
          return op->emitError("cannot store attribute '")
                 << named.getName().strref() << "' in a signless type";
        if (a != named.getValue())
          op->setAttr(named.getName(), a);
      }
    }
    for (Value result : op->getResults())
      result.setType(eraseType(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(eraseType(arg.getType()));
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

struct ConvertNNToLinalg
    : loom::impl::ConvertNNToLinalgBase<ConvertNNToLinalg> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NNDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect>();
    // The patterns build static shapes only.
    WalkResult dynamic = getOperation()->walk([](Operation *op) {
      if (!isa<NNDialect>(op->getDialect()))
        return WalkResult::advance();
      SmallVector<Type> types(op->getOperandTypes());
      llvm::append_range(types, op->getResultTypes());
      for (Type t : types)
        if (auto rt = dyn_cast<RankedTensorType>(t);
            rt && !rt.hasStaticShape()) {
          op->emitError("cannot lower an op on a tensor of dynamic shape (")
              << rt << ") to linalg; fix the model's input shapes";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();
    WalkResult erased = getOperation()->walk([](func::FuncOp fn) {
      return failed(eraseStorageTypes(fn)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    if (erased.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(ctx);
    populateNNToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void loom::populateNNToLinalgPatterns(RewritePatternSet &patterns) {
  populateNNToLinalgElementwisePatterns(patterns);
  populateNNToLinalgNamedPatterns(patterns);
  populateNNToLinalgReductionPatterns(patterns);
  populateNNToLinalgDataMovementPatterns(patterns);
}
