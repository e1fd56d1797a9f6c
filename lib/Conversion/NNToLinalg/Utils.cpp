//===- Utils.cpp - Helpers shared by the nn -> linalg patterns ------------===//
//
// The arithmetic and tensor builders more than one op family uses.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace loom::nn_to_linalg {

TypedAttr extremeAttr(OpBuilder &b, Type t, bool lowest, bool u) {
  if (auto ft = dyn_cast<FloatType>(t))
    return b.getFloatAttr(
        t, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/lowest));
  unsigned w = t.getIntOrFloatBitWidth();
  if (u)
    return b.getIntegerAttr(t, lowest ? APInt::getMinValue(w)
                                      : APInt::getMaxValue(w));
  return b.getIntegerAttr(t, lowest ? APInt::getSignedMinValue(w)
                                    : APInt::getSignedMaxValue(w));
}

arith::FastMathFlagsAttr reductionFlags(OpBuilder &b) {
  return arith::FastMathFlagsAttr::get(b.getContext(),
                                       arith::FastMathFlags::reassoc |
                                           arith::FastMathFlags::contract);
}

Value addValues(OpBuilder &b, Location loc, Value x, Value y, bool reassoc) {
  if (isa<FloatType>(x.getType())) {
    auto op = b.create<arith::AddFOp>(loc, x, y);
    if (reassoc)
      op.setFastmathAttr(reductionFlags(b));
    return op;
  }
  return b.create<arith::AddIOp>(loc, x, y);
}

Value maxValues(OpBuilder &b, Location loc, Value x, Value y, bool u) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MaximumFOp>(loc, x, y);
  if (u)
    return b.create<arith::MaxUIOp>(loc, x, y);
  return b.create<arith::MaxSIOp>(loc, x, y);
}

Value minValues(OpBuilder &b, Location loc, Value x, Value y, bool u) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MinimumFOp>(loc, x, y);
  if (u)
    return b.create<arith::MinUIOp>(loc, x, y);
  return b.create<arith::MinSIOp>(loc, x, y);
}

Type storageOf(Type t) {
  Type s = getStorageType(t);
  return s == t ? Type() : s;
}

Type storageOrSelf(Type t) {
  Type s = storageOf(t);
  return s ? s : t;
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType t,
                   TypedAttr value) {
  Value init = emptyTensor(b, loc, t);
  Value v = b.create<arith::ConstantOp>(loc, value);
  return b.create<linalg::FillOp>(loc, v, init).getResult(0);
}

AffineMap broadcastMap(OpBuilder &b, RankedTensorType operandType,
                       ArrayRef<int64_t> resultShape) {
  int64_t rank = operandType.getRank(), resultRank = resultShape.size();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = resultRank - rank + i;
    if (operandType.getDimSize(i) == 1 && resultShape[d] != 1)
      exprs.push_back(b.getAffineConstantExpr(0));
    else
      exprs.push_back(b.getAffineDimExpr(d));
  }
  return AffineMap::get(resultRank, 0, exprs, b.getContext());
}

AffineMap projectionMap(OpBuilder &b, int64_t rank,
                        llvm::function_ref<bool(int64_t)> keep) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    if (keep(i))
      exprs.push_back(b.getAffineDimExpr(i));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarFn fn) {
  SmallVector<Value> inputs(operands);
  SmallVector<bool> widened(inputs.size(), false);
  for (auto [i, v] : llvm::enumerate(inputs)) {
    DenseElementsAttr mask;
    if (!tensorType(v).getElementType().isInteger(1) ||
        !matchPattern(v, m_Constant(&mask)))
      continue;
    auto bytes = RankedTensorType::get(tensorType(v).getShape(), b.getI8Type());
    SmallVector<int8_t> values;
    for (bool bit : mask.getValues<bool>())
      values.push_back(bit);
    v = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(bytes, ArrayRef<int8_t>(values)));
    widened[i] = true;
  }
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(broadcastMap(b, tensorType(v), resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, inputs, emptyTensor(b, loc, resultType), maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> scalars(args.drop_back());
        for (auto [i, w] : llvm::enumerate(widened))
          if (w)
            scalars[i] =
                nb.create<arith::TruncIOp>(nloc, nb.getI1Type(), scalars[i]);
        Value r = fn(nb, nloc, scalars);
        nb.create<linalg::YieldOp>(nloc, r);
      });
  return generic.getResult(0);
}

Value buildIndexed(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    llvm::function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, ValueRange{}, emptyTensor(b, loc, resultType), maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t i = 0; i < rank; ++i)
          idx.push_back(nb.create<linalg::IndexOp>(nloc, i));
        nb.create<linalg::YieldOp>(nloc, fn(nb, nloc, idx));
      });
  return generic.getResult(0);
}

Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  RankedTensorType from = tensorType(v);
  auto to = RankedTensorType::get(shape, from.getElementType());
  if (from == to)
    return v;
  if (to.getRank() < from.getRank()) {
    if (auto reassoc =
            getReassociationIndicesForCollapse(from.getShape(), to.getShape()))
      return b.create<tensor::CollapseShapeOp>(loc, to, v, *reassoc);
  } else if (to.getRank() > from.getRank()) {
    if (auto reassoc =
            getReassociationIndicesForCollapse(to.getShape(), from.getShape()))
      return b.create<tensor::ExpandShapeOp>(loc, to, v, *reassoc);
  }
  // Through rank 1 (or rank 0 for one-element tensors).
  int64_t n = from.getNumElements();
  auto flat = RankedTensorType::get({n}, from.getElementType());
  Value mid = v;
  if (from.getRank() != 1) {
    SmallVector<ReassociationIndices> all;
    if (from.getRank() > 0) {
      all.emplace_back();
      for (int64_t i = 0; i < from.getRank(); ++i)
        all.back().push_back(i);
      mid = b.create<tensor::CollapseShapeOp>(loc, flat, v, all);
    } else {
      mid = b.create<tensor::ExpandShapeOp>(loc, flat, v, all);
    }
  }
  if (to.getRank() == 1)
    return mid;
  SmallVector<ReassociationIndices> all;
  if (to.getRank() > 0) {
    all.emplace_back();
    for (int64_t i = 0; i < to.getRank(); ++i)
      all.back().push_back(i);
    return b.create<tensor::ExpandShapeOp>(loc, to, mid, all);
  }
  return b.create<tensor::CollapseShapeOp>(loc, to, mid, all);
}

Value broadcastTo(OpBuilder &b, Location loc, Value v,
                  ArrayRef<int64_t> shape) {
  RankedTensorType t = tensorType(v);
  if (t.getShape() == shape)
    return v;
  auto resultType = RankedTensorType::get(shape, t.getElementType());
  return buildElementwise(
      b, loc, resultType, v,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

Value truncateTo(OpBuilder &b, Location loc, Value v, Type storage) {
  if (tensorType(v).getElementType() == storage)
    return v;
  return mapWithStats(b, loc, v, {}, {}, {}, {}, storage,
                      [&](OpBuilder &nb, Location l, ValueRange a) {
                        return fromCompute(nb, l, a[0], storage);
                      });
}

Value mapWithStats(OpBuilder &b, Location loc, Value x, ValueRange stats,
                   ArrayRef<int64_t> axes, ValueRange extras,
                   ArrayRef<AffineMap> extraMaps, Type resultElement,
                   ScalarFn fn) {
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  auto resultType = RankedTensorType::get(t.getShape(), resultElement);
  SmallVector<Value> inputs{x};
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  AffineMap statMap = projectionMap(
      b, rank, [&](int64_t i) { return !llvm::is_contained(axes, i); });
  for (Value s : stats) {
    inputs.push_back(s);
    maps.push_back(statMap);
  }
  llvm::append_range(inputs, extras);
  llvm::append_range(maps, extraMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, resultType, inputs, emptyTensor(b, loc, resultType), maps,
          iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            nb.create<linalg::YieldOp>(nloc, fn(nb, nloc, args.drop_back()));
          })
      .getResult(0);
}

Value clampIndex(OpBuilder &b, Location loc, Value i, int64_t extent,
                 bool wrapNegative) {
  Value idx = b.create<arith::IndexCastOp>(loc, b.getIndexType(), i);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  if (wrapNegative) {
    Value neg =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, idx, zero);
    Value wrapped = b.create<arith::AddIOp>(
        loc, idx, b.create<arith::ConstantIndexOp>(loc, extent));
    idx = b.create<arith::SelectOp>(loc, neg, wrapped, idx);
  }
  idx = b.create<arith::MaxSIOp>(loc, idx, zero);
  return b.create<arith::MinSIOp>(
      loc, idx,
      b.create<arith::ConstantIndexOp>(loc, std::max<int64_t>(extent - 1, 0)));
}

/// `loc` as a user reads it: the ONNX node's name, or file:line:col.
static void describeLocation(Location loc, llvm::raw_ostream &os) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    os << name.getName().getValue();
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    llvm::interleave(
        fused.getLocations(), os,
        [&](Location inner) { describeLocation(inner, os); }, ", ");
    return;
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    describeLocation(callSite.getCallee(), os);
    return;
  }
  loc.print(os);
}

/// The declaration of C function `name` in `module`, created when missing.
static LLVM::LLVMFuncOp declareCFunction(OpBuilder &b, ModuleOp module,
                                         StringRef name,
                                         LLVM::LLVMFunctionType type) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return b.create<LLVM::LLVMFuncOp>(module.getLoc(), name, type);
}

/// A constant NUL-terminated string in `module`, under a fresh name.
static LLVM::GlobalOp stringGlobal(OpBuilder &b, ModuleOp module,
                                   StringRef text) {
  std::string name;
  for (unsigned n = 0; name.empty() || module.lookupSymbol(name); ++n)
    name = "loom_index_error_" + std::to_string(n);
  std::string data = text.str();
  data.push_back('\0');
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return b.create<LLVM::GlobalOp>(
      module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), data.size()),
      /*isConstant=*/true, LLVM::Linkage::Internal, name,
      b.getStringAttr(data));
}

void assertIndexInRange(OpBuilder &b, Location loc, Value i, int64_t extent,
                        Operation *op, int64_t axis) {
  // In i64, where -extent always fits and %lld prints it.
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  if (i.getType() != i64)
    i = b.create<arith::ExtSIOp>(loc, i64, i);
  Value lo = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(i64, -extent));
  Value hi = b.create<arith::ConstantOp>(loc, b.getIntegerAttr(i64, extent));
  Value below = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, i, lo);
  Value above = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, i, hi);
  Value bad = b.create<arith::OrIOp>(loc, below, above);

  // The message goes to file descriptor 2 (dprintf: unbuffered, unlike the
  // stdout that cf.assert's puts would lose on abort), then the program
  // aborts. '%' in a location must not read as a conversion.
  std::string where;
  llvm::raw_string_ostream whereOs(where);
  describeLocation(op->getLoc(), whereOs);
  std::string format;
  llvm::raw_string_ostream os(format);
  os << "loom: index %lld out of range in " << op->getName() << " at "
     << StringRef(where).str() << ": indices into axis " << axis
     << " must lie in [" << -extent << ", " << extent - 1 << "]\n";
  format = llvm::join(llvm::split(format, '%'), "%%");
  // Undo the escape of the one conversion.
  size_t conv = format.find("%%lld");
  format.replace(conv, 5, "%lld");

  auto module = op->getParentOfType<ModuleOp>();
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  LLVM::LLVMFuncOp dprintf = declareCFunction(
      b, module, "dprintf",
      LLVM::LLVMFunctionType::get(i32, {i32, ptr}, /*isVarArg=*/true));
  LLVM::LLVMFuncOp abortFn = declareCFunction(
      b, module, "abort",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(b.getContext()), {}));
  LLVM::GlobalOp message = stringGlobal(b, module, format);
  auto ifOp = b.create<scf::IfOp>(loc, bad, /*withElseRegion=*/false);
  OpBuilder then = ifOp.getThenBodyBuilder();
  Value text = then.create<LLVM::AddressOfOp>(loc, message);
  Value stderrFd = then.create<LLVM::ConstantOp>(loc, i32, 2);
  then.create<LLVM::CallOp>(loc, dprintf, ValueRange{stderrFd, text, i});
  then.create<LLVM::CallOp>(loc, abortFn, ValueRange{});
}

} // namespace loom::nn_to_linalg
