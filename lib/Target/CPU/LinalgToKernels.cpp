//===- LinalgToKernels.cpp - Hand matmuls on buffers to BLAS kernels ------===//
//
// Generated loops cannot match a tuned GEMM, so after bufferization f32/f64
// matmuls become calls into the runtime's kernel library (OpenBLAS). The
// kernels take fully dynamic strided views, which every static buffer casts
// to, so one declaration serves all shapes and layouts.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNDialect.h"
#include "loom/Target/CPU/Passes.h"
#include "loom/runtime/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace loom::cpu {
#define GEN_PASS_DEF_LINALGTOKERNELS
#include "Target/CPU/Passes.h.inc"
} // namespace loom::cpu

using namespace mlir;

namespace {

/// `memref<?x...xT, strided<[?, ...], offset: ?>>` of `rank`.
MemRefType dynamicView(Type element, int64_t rank) {
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(element.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(shape, element, layout);
}

/// True if `v` is a zero constant.
bool isZero(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue().isZero();
  return false;
}

/// The zero fill of `c` that last wrote it before `op` with nothing else
/// touching `c` in between, if any: the kernel can then overwrite instead of
/// accumulating, and the fill goes.
linalg::FillOp findZeroFill(Operation *op, Value c) {
  // C must be a whole buffer that no earlier view aliases.
  if (!isa<BlockArgument>(c) && !c.getDefiningOp<memref::AllocOp>())
    return nullptr;
  for (Operation *user : c.getUsers())
    if (user != op && !isa<linalg::FillOp>(user) &&
        !(user->getBlock() == op->getBlock() && op->isBeforeInBlock(user)))
      return nullptr;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev))
      if (fill.getOutputs()[0] == c)
        return isZero(fill.getInputs()[0]) ? fill : nullptr;
    if (llvm::is_contained(prev->getOperands(), c) || prev->getNumRegions())
      return nullptr;
  }
  return nullptr;
}

/// The buffer a view ultimately reads.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// If `operand` of `op` is a buffer that only a 2-D transpose fills for
/// `op` to read, a transposed view of the transpose's input instead: BLAS
/// reads it with swapped strides, and the copy goes (the weight gradient
/// x^T g of every layer needs one). Null when the rewrite is not safe.
Value transposedSource(Operation *op, Value operand) {
  auto alloc = operand.getDefiningOp<memref::AllocOp>();
  if (!alloc || cast<MemRefType>(operand.getType()).getRank() != 2)
    return {};
  linalg::TransposeOp transpose;
  for (Operation *user : operand.getUsers()) {
    if (user == op || isa<memref::DeallocOp>(user))
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || transpose || t.getInit() != operand ||
        t->getBlock() != op->getBlock() || !t->isBeforeInBlock(op))
      return {};
    transpose = t;
  }
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return {};
  // Nothing between the two may write what the transpose read.
  Value root = rootOf(transpose.getInput());
  for (Operation *mid = transpose->getNextNode(); mid != op;
       mid = mid->getNextNode()) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(mid);
    if (!effects) {
      if (mid->getNumRegions() || isa<func::CallOp>(mid))
        return {};
      continue;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (auto &e : list)
      if (isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()) &&
          (!e.getValue() || rootOf(e.getValue()) == root))
        return {};
  }
  OpBuilder b(op);
  auto perm = AffineMapAttr::get(
      AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, op->getContext()));
  Value view =
      b.create<memref::TransposeOp>(op->getLoc(), transpose.getInput(), perm);
  transpose->erase();
  return view;
}

/// Whether `v` views a function argument marked `nn.immutable`: data that
/// stays unchanged at its address while the program is loaded.
bool viewsParameter(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return false;
    v = view.getViewSource();
  }
  auto arg = cast<BlockArgument>(v);
  auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return fn && arg.getOwner()->isEntryBlock() &&
         fn.getArgAttr(arg.getArgNumber(), loom::nn::kImmutableAttrName);
}

struct LinalgToKernelsPass
    : loom::cpu::impl::LinalgToKernelsBase<LinalgToKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<linalg::LinalgOp> matmuls;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::MatmulTransposeBOp,
              linalg::BatchMatmulOp, linalg::BatchMatmulTransposeBOp>(
              op.getOperation()) &&
          op.hasPureBufferSemantics())
        matmuls.push_back(op);
    });
    for (linalg::LinalgOp op : matmuls) {
      // BLAS needs one element type for A, B and C.
      Type element = getElementTypeOrSelf(op->getOperand(0).getType());
      if ((!element.isF32() && !element.isF64()) ||
          llvm::any_of(op->getOperandTypes(), [&](Type t) {
            return getElementTypeOrSelf(t) != element;
          }))
        continue;
      bool batched =
          isa<linalg::BatchMatmulOp, linalg::BatchMatmulTransposeBOp>(
              op.getOperation());
      bool transB =
          isa<linalg::MatmulTransposeBOp, linalg::BatchMatmulTransposeBOp>(
              op.getOperation());
      // f32 weights may stay packed between calls.
      bool constB =
          !batched && element.isF32() && viewsParameter(op->getOperand(1));
      std::string name = std::string(LOOM_KERNEL_SYMBOL_PREFIX) +
                         (batched  ? "batch_gemm_"
                          : constB ? "gemm_const_b_"
                                   : "gemm_") +
                         (element.isF32() ? "f32" : "f64");
      int64_t rank = batched ? 3 : 2;
      MemRefType view = dynamicView(element, rank);
      OpBuilder b(op);
      auto callee = symbols.lookup<func::FuncOp>(name);
      if (!callee) {
        OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
        auto fnType = mb.getFunctionType(
            {view, view, view, mb.getI32Type(), mb.getI32Type()}, {});
        callee = mb.create<func::FuncOp>(op.getLoc(), name, fnType);
        callee.setPrivate();
        callee->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
        symbols.insert(callee);
      } else if (callee.getFunctionType() !=
                 OpBuilder(module).getFunctionType(
                     {view, view, view, b.getI32Type(), b.getI32Type()}, {})) {
        callee.emitError("'")
            << name << "' is declared with type " << callee.getFunctionType()
            << ", not the runtime kernel's";
        return signalPassFailure();
      }
      bool accumulate = true;
      if (linalg::FillOp fill = findZeroFill(op, op->getOperand(2))) {
        fill->erase();
        accumulate = false;
      }
      SmallVector<Value> args;
      for (auto [i, v] : llvm::enumerate(op->getOperands())) {
        if (i < 2 && !batched)
          if (Value t = transposedSource(op, v))
            v = t;
        args.push_back(b.create<memref::CastOp>(op.getLoc(), view, v));
      }
      args.push_back(b.create<arith::ConstantIntOp>(op.getLoc(), transB, 32));
      args.push_back(
          b.create<arith::ConstantIntOp>(op.getLoc(), accumulate, 32));
      b.create<func::CallOp>(op.getLoc(), callee, args);
      op->erase();
    }
  }
};

} // namespace
