//===- OutlineKernels.cpp - One function per linalg op on buffers ---------===//

#include "loom/Target/CPU/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace loom::cpu {
#define GEN_PASS_DEF_OUTLINEKERNELS
#include "Target/CPU/Passes.h.inc"
} // namespace loom::cpu

using namespace mlir;
using namespace loom::cpu;

namespace {

/// Ops with fewer loop iterations run on one thread: below this, waking
/// the pool costs more than it saves.
constexpr int64_t kMinParallelIterations = 1 << 15;

/// For each operand of `op`, the position of its dimension indexed by loop 0
/// (-1 if loop 0 does not index it), or failure if loop 0 appears in a
/// compound index (a convolution window), where the op cannot be split.
FailureOr<SmallVector<int64_t>> outerLoopPositions(linalg::LinalgOp op) {
  SmallVector<int64_t> positions;
  llvm::DenseMap<Value, int64_t> byValue;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    int64_t position = -1;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(0))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || position != -1)
        return failure();
      position = i;
    }
    // One buffer read through two maps can be narrowed only one way.
    auto [it, inserted] = byValue.try_emplace(operand.get(), position);
    if (!inserted && it->second != position)
      return failure();
    positions.push_back(position);
  }
  return positions;
}

/// Moves every linalg op on buffers into its own internal, non-inlined
/// function. One function per op keeps LLVM's loop analyses (quadratic in
/// function size) fast on large models, and names each op in profiles.
/// When an op's first loop is parallel and the op is big enough, the
/// function takes the range [lo, hi) of that loop and works on subviews;
/// the caller passes the whole range, and the artifact build turns the call
/// into `loom_parallel_for` over the runtime's thread pool.
struct OutlineKernelsPass
    : loom::cpu::impl::OutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<linalg::LinalgOp> ops;
    for (auto fn : module.getOps<func::FuncOp>())
      fn.walk([&](linalg::LinalgOp op) {
        if (op.hasPureBufferSemantics() &&
            !op->getParentOfType<linalg::LinalgOp>())
          ops.push_back(op);
      });
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto internal =
        LLVM::LinkageAttr::get(ctx, LLVM::linkage::Linkage::Internal);
    unsigned counter = 0;
    for (linalg::LinalgOp op : ops) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(op->getRegions(), captured);
      llvm::SetVector<Value> args(op->operand_begin(), op->operand_end());
      SmallVector<Operation *> constants;
      for (Value v : captured) {
        Operation *def = v.getDefiningOp();
        if (def && def->hasTrait<OpTrait::ConstantLike>())
          constants.push_back(def);
        else
          args.insert(v);
      }
      // Split the first loop across threads?
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t iterations = 1;
      for (int64_t r : ranges)
        iterations = ShapedType::isDynamic(r) ? 0 : iterations * r;
      FailureOr<SmallVector<int64_t>> positions = outerLoopPositions(op);
      bool parallel =
          !ranges.empty() && ranges[0] >= 2 &&
          iterations >= kMinParallelIterations &&
          op.getIteratorTypesArray()[0] == utils::IteratorType::parallel &&
          succeeded(positions);

      SmallVector<Type> types;
      for (Value v : args)
        types.push_back(v.getType());
      if (parallel)
        types.append(2, mb.getIndexType());
      std::string name =
          ("loom_op" + Twine(counter++) + "_" + op->getName().stripDialect())
              .str();
      auto fn = mb.create<func::FuncOp>(op.getLoc(), name,
                                        mb.getFunctionType(types, {}));
      fn.setPrivate();
      fn->setAttr("llvm.linkage", internal);
      SmallVector<Attribute> passthrough{StringAttr::get(ctx, "noinline")};
      if (parallel)
        passthrough.push_back(ArrayAttr::get(
            ctx, {StringAttr::get(ctx, kParallelExtentAttr),
                  StringAttr::get(ctx, Twine(ranges[0]).str())}));
      fn->setAttr("passthrough", ArrayAttr::get(ctx, passthrough));
      Block *body = fn.addEntryBlock();
      OpBuilder b = OpBuilder::atBlockBegin(body);
      IRMapping mapping;
      for (auto [v, arg] : llvm::zip(args, body->getArguments()))
        mapping.map(v, arg);
      for (Operation *c : constants)
        b.clone(*c, mapping);
      Value lo, hi;
      if (parallel) {
        lo = body->getArgument(args.size());
        hi = body->getArgument(args.size() + 1);
        Value size = b.create<arith::SubIOp>(op.getLoc(), hi, lo);
        // Each operand indexed by loop 0 is narrowed to [lo, hi).
        llvm::SmallPtrSet<Value, 8> narrowed;
        for (auto [operand, position] :
             llvm::zip(op->getOperands(), *positions)) {
          if (position < 0 || !narrowed.insert(operand).second)
            continue;
          auto type = cast<MemRefType>(operand.getType());
          SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
          SmallVector<OpFoldResult> sizes,
              strides(type.getRank(), b.getIndexAttr(1));
          for (int64_t d : type.getShape())
            sizes.push_back(b.getIndexAttr(d));
          offsets[position] = lo;
          sizes[position] = size;
          Value view = b.create<memref::SubViewOp>(
              op.getLoc(), mapping.lookup(operand), offsets, sizes, strides);
          mapping.map(operand, view);
        }
      }
      Operation *clone = b.clone(*op, mapping);
      if (parallel) {
        // Loop 0 now counts from lo.
        clone->walk([&](linalg::IndexOp index) {
          if (index.getDim() != 0)
            return;
          OpBuilder ib(index->getNextNode());
          auto shifted = ib.create<arith::AddIOp>(index.getLoc(), index, lo);
          index.getResult().replaceAllUsesExcept(shifted, shifted);
        });
      }
      b.create<func::ReturnOp>(op.getLoc());
      OpBuilder cb(op);
      SmallVector<Value> callArgs(args.begin(), args.end());
      if (parallel) {
        callArgs.push_back(cb.create<arith::ConstantIndexOp>(op.getLoc(), 0));
        callArgs.push_back(
            cb.create<arith::ConstantIndexOp>(op.getLoc(), ranges[0]));
      }
      cb.create<func::CallOp>(op.getLoc(), fn, callArgs);
      op->erase();
    }
  }
};

} // namespace
