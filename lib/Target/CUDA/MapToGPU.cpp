//===- MapToGPU.cpp - Linalg ops and host loops to gpu.launch -------------===//
//
// Every op that computes on device memory becomes a kernel, built directly
// from the linalg op's indexing maps and payload: one thread per element of
// the first output (neighbouring threads on neighbouring addresses), or a
// block per output element for long reductions that gpu.all_reduce can
// combine. What is left on the host is what the host schedule runs itself
// (HostOps.h).
//
//===----------------------------------------------------------------------===//

#include "HostOps.h"
#include "loom/Target/CUDA/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"
#include <limits>

namespace loom::cuda {
#define GEN_PASS_DEF_MAPTOGPU
#include "Target/CUDA/Passes.h.inc"
} // namespace loom::cuda

using namespace mlir;
using namespace loom::cuda;

namespace {

/// The largest grid the x dimension takes.
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

/// The indices of `linear` in a row-major space of `extents` (`linear` is
/// below their product).
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> extents) {
  SmallVector<Value> out(extents.size());
  Value rest = linear;
  for (int64_t i = static_cast<int64_t>(extents.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      out[0] = rest;
      break;
    }
    if (extents[i] == 1) {
      out[i] = indexConst(b, loc, 0);
      continue;
    }
    Value e = indexConst(b, loc, extents[i]);
    out[i] = b.create<arith::RemUIOp>(loc, rest, e);
    rest = b.create<arith::DivUIOp>(loc, rest, e);
  }
  return out;
}

/// The indices `map` gives for the loop indices `dims`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> dims) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      out.push_back(dims[d.getPosition()]);
      continue;
    }
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      out.push_back(indexConst(b, loc, c.getValue()));
      continue;
    }
    out.push_back(b.create<affine::AffineApplyOp>(
        loc, AffineMap::get(map.getNumDims(), 0, e), dims));
  }
  return out;
}

/// A kernel of `grid` x `block` threads (x only) before `anchor`, its
/// location naming it `what`; `b` is left at the start of its body.
gpu::LaunchOp makeLaunch(OpBuilder &b, Operation *anchor, int64_t grid,
                         int64_t block, StringRef what) {
  Location loc = anchor->getLoc();
  b.setInsertionPoint(anchor);
  Value one = indexConst(b, loc, 1);
  auto launch = b.create<gpu::LaunchOp>(
      NameLoc::get(b.getStringAttr(what), loc), indexConst(b, loc, grid), one,
      one, indexConst(b, loc, block), one, one);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  b.create<gpu::TerminatorOp>(loc);
  b.setInsertionPointToStart(&body);
  return launch;
}

/// Clones the payload of `op` at `b`, its block arguments bound to `args`
/// and `linalg.index d` to `dims[d]`; returns what it yields.
SmallVector<Value> clonePayload(OpBuilder &b, linalg::LinalgOp op,
                                ArrayRef<Value> args, ArrayRef<Value> dims) {
  Block *body = op.getBlock();
  IRMapping map;
  for (auto [arg, v] : llvm::zip(body->getArguments(), args))
    map.map(arg, v);
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), dims[index.getDim()]);
      continue;
    }
    Operation *copy = b.clone(inner, map);
    // linalg.index inside a nested region of the payload.
    copy->walk([&](linalg::IndexOp index) {
      index.getResult().replaceAllUsesWith(dims[index.getDim()]);
      index->erase();
    });
  }
  SmallVector<Value> results;
  for (Value v : body->getTerminator()->getOperands())
    results.push_back(map.lookupOrDefault(v));
  return results;
}

/// A placeholder for a payload argument nobody reads.
Value unusedValue(OpBuilder &b, Location loc, Type type) {
  return b.create<arith::ConstantOp>(loc, type, b.getZeroAttr(type));
}

/// The payload arguments of `operands` at `dims`: loads of the memrefs
/// (none for arguments the payload does not read), scalars as they are.
SmallVector<Value> loadOperands(OpBuilder &b, Location loc, linalg::LinalgOp op,
                                MutableArrayRef<OpOperand> operands,
                                ArrayRef<Value> dims, bool needed) {
  SmallVector<Value> values;
  for (OpOperand &operand : operands) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    Value v = operand.get();
    if (!isa<MemRefType>(v.getType())) {
      values.push_back(v);
      continue;
    }
    if (!needed && arg.use_empty()) {
      values.push_back(unusedValue(b, loc, arg.getType()));
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    values.push_back(
        b.create<memref::LoadOp>(loc, v, applyMap(b, loc, map, dims)));
  }
  return values;
}

/// Which loops run across threads, which inside one.
struct LoopPlan {
  /// Parallel loops in the order the first output's map lists them
  /// (fastest last), so that neighbouring threads write neighbours.
  SmallVector<unsigned> threadDims;
  /// The rest, in loop order.
  SmallVector<unsigned> loopDims;
  SmallVector<int64_t> threadExtents, loopExtents;
};

LoopPlan planLoops(linalg::LinalgOp op, ArrayRef<int64_t> ranges) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<bool> isThread(op.getNumLoops(), false);
  LoopPlan plan;
  if (op.getNumDpsInits() > 0) {
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    for (AffineExpr e : map.getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e))
        if (iterators[d.getPosition()] == utils::IteratorType::parallel &&
            !isThread[d.getPosition()]) {
          isThread[d.getPosition()] = true;
          plan.threadDims.push_back(d.getPosition());
        }
  }
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (!isThread[d])
      plan.loopDims.push_back(d);
  // An output indexed by an in-thread loop would be written by several
  // threads at once: then one thread runs everything.
  bool racy = false;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    for (unsigned d : plan.loopDims)
      racy = racy || map.isFunctionOfDim(d);
  }
  if (racy) {
    plan.threadDims.clear();
    plan.loopDims.clear();
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      plan.loopDims.push_back(d);
  }
  for (unsigned d : plan.threadDims)
    plan.threadExtents.push_back(ranges[d]);
  for (unsigned d : plan.loopDims)
    plan.loopExtents.push_back(ranges[d]);
  return plan;
}

/// The combiner of a reduction `gpu.all_reduce` can do: the payload yields
/// `combine(x, out)` (either order), `out` used nowhere else, on f32 or
/// i32.
struct Combiner {
  Operation *op = nullptr;
  gpu::AllReduceOperation kind;
  TypedAttr identity;
};

std::optional<Combiner> matchCombiner(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 0)
    return std::nullopt;
  Block *body = op.getBlock();
  BlockArgument out = op.getRegionOutputArgs()[0];
  Type t = out.getType();
  if (!t.isF32() && !t.isSignlessInteger(32))
    return std::nullopt;
  Value yielded = body->getTerminator()->getOperand(0);
  Operation *c = yielded.getDefiningOp();
  if (!c || c->getBlock() != body || c->getNumOperands() != 2 ||
      !out.hasOneUse() || (c->getOperand(0) != out && c->getOperand(1) != out))
    return std::nullopt;
  Builder b(op->getContext());
  using K = gpu::AllReduceOperation;
  auto fl = [&](double v) -> TypedAttr { return b.getFloatAttr(t, v); };
  auto in = [&](int64_t v) -> TypedAttr { return b.getIntegerAttr(t, v); };
  double inf = std::numeric_limits<double>::infinity();
  std::optional<std::pair<K, TypedAttr>> k =
      llvm::TypeSwitch<Operation *, std::optional<std::pair<K, TypedAttr>>>(c)
          .Case([&](arith::AddFOp) { return std::pair(K::ADD, fl(0.0)); })
          .Case([&](arith::MulFOp) { return std::pair(K::MUL, fl(1.0)); })
          .Case([&](arith::MaximumFOp) {
            return std::pair(K::MAXIMUMF, fl(-inf));
          })
          .Case([&](arith::MinimumFOp) {
            return std::pair(K::MINIMUMF, fl(inf));
          })
          .Case(
              [&](arith::MaxNumFOp) { return std::pair(K::MAXNUMF, fl(-inf)); })
          .Case(
              [&](arith::MinNumFOp) { return std::pair(K::MINNUMF, fl(inf)); })
          .Case([&](arith::AddIOp) { return std::pair(K::ADD, in(0)); })
          .Case([&](arith::MulIOp) { return std::pair(K::MUL, in(1)); })
          .Case([&](arith::MaxSIOp) {
            return std::pair(K::MAXSI, in(INT32_MIN));
          })
          .Case([&](arith::MinSIOp) {
            return std::pair(K::MINSI, in(INT32_MAX));
          })
          .Case([&](arith::MaxUIOp) { return std::pair(K::MAXUI, in(0)); })
          .Case([&](arith::MinUIOp) { return std::pair(K::MINUI, in(-1)); })
          .Case([&](arith::AndIOp) { return std::pair(K::AND, in(-1)); })
          .Case([&](arith::OrIOp) { return std::pair(K::OR, in(0)); })
          .Case([&](arith::XOrIOp) { return std::pair(K::XOR, in(0)); })
          .Default([](Operation *) { return std::nullopt; });
  if (!k)
    return std::nullopt;
  return Combiner{c, k->first, k->second};
}

/// linalg.map as the equivalent linalg.generic: generalizeNamedOp leaves
/// it, since its payload does not take the output.
linalg::GenericOp genericFromMap(linalg::MapOp map) {
  OpBuilder b(map);
  Location loc = map.getLoc();
  auto initType = cast<ShapedType>(map.getInit().getType());
  int64_t rank = initType.getRank();
  SmallVector<AffineMap> maps(map.getInputs().size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{}, map.getInputs(), ValueRange{map.getInit()}, maps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        IRMapping mapping;
        Block &body = map.getMapper().front();
        for (auto [arg, v] : llvm::zip(body.getArguments(), args))
          mapping.map(arg, v);
        for (Operation &inner : body.without_terminator())
          nb.clone(inner, mapping);
        SmallVector<Value> yielded;
        for (Value v : body.getTerminator()->getOperands())
          yielded.push_back(mapping.lookupOrDefault(v));
        nb.create<linalg::YieldOp>(nl, yielded);
      });
  map->erase();
  return generic;
}

struct MapToGPUPass : loom::cuda::impl::MapToGPUBase<MapToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 32 || blockSize > 1024 || blockSize % 32) {
      getOperation().emitError("-loom-cuda-map-to-gpu: block-size must be a "
                               "multiple of 32 from 32 to 1024, not ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() && failed(mapFunction(fn)))
        return signalPassFailure();
  }

  LogicalResult mapFunction(func::FuncOp fn) {
    SmallVector<Operation *> ops;
    for (Operation &op : fn.getBody().front())
      ops.push_back(&op);
    SmallVector<Operation *> run;
    for (Operation *op : ops) {
      if (isa<arith::ConstantOp>(op))
        continue;
      // A copy between strided views is a kernel like any other.
      if (auto copy = dyn_cast<memref::CopyOp>(op); copy && !isHostCopy(op)) {
        OpBuilder b(copy);
        op = b.create<linalg::CopyOp>(copy.getLoc(), copy.getSource(),
                                      copy.getTarget());
        copy->erase();
      }
      if (!isHostOp(op) && !isa<linalg::LinalgOp>(op)) {
        run.push_back(op);
        continue;
      }
      if (failed(wrapSerial(run)))
        return failure();
      run.clear();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (!isHostOp(op) && failed(mapLinalg(linalgOp)))
          return failure();
    }
    return wrapSerial(run);
  }

  /// What stays on the host: the host schedule's own instructions, and
  /// what defines the buffers they and the kernels use.
  static bool isHostOp(Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
            memref::GetGlobalOp, memref::ExtractAlignedPointerAsIndexOp,
            arith::ConstantOp, func::CallOp, func::ReturnOp, gpu::LaunchOp>(op))
      return true;
    if (isa<ViewLikeOpInterface>(op) &&
        op->getDialect()->getNamespace() == "memref")
      return true;
    return matchLibraryGemm(op) || matchHostFill(op) || isHostCopy(op);
  }

  /// Moves a run of host-level loops, loads and stores into a kernel of one
  /// thread.
  LogicalResult wrapSerial(ArrayRef<Operation *> run) {
    if (run.empty())
      return success();
    llvm::SmallPtrSet<Operation *, 8> inRun(run.begin(), run.end());
    for (Operation *op : run)
      for (Operation *user : op->getUsers()) {
        Operation *top = user;
        while (top->getParentOp() != op->getParentOp())
          top = top->getParentOp();
        if (!inRun.contains(top))
          return op->emitError("the cuda target cannot pass this value from "
                               "device code back to the host");
      }
    OpBuilder b(run.front());
    gpu::LaunchOp launch = makeLaunch(b, run.front(), 1, 1, "serial");
    Operation *terminator = launch.getBody().front().getTerminator();
    for (Operation *op : run)
      op->moveBefore(terminator);
    ++numKernels;
    ++numSerial;
    return success();
  }

  LogicalResult mapLinalg(linalg::LinalgOp op) {
    std::string what = op->getName().stripDialect().str();
    // Every payload then binds its inputs and its outputs, in that order.
    if (auto map = dyn_cast<linalg::MapOp>(op.getOperation()))
      op = genericFromMap(map);
    if (!isa<linalg::GenericOp>(op)) {
      IRRewriter rewriter(op->getContext());
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic))
        return op->emitError(
            "internal error: the cuda target cannot generalize this op");
      op = *generic;
    }
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return op->emitError("the cuda target needs static shapes");
    for (Value v : op->getOperands())
      if (auto t = dyn_cast<MemRefType>(v.getType()))
        if (!t.hasStaticShape())
          return op->emitError("the cuda target needs static shapes");
    // Zero-sized iteration spaces do nothing.
    if (product(ranges) == 0 && !ranges.empty()) {
      op->erase();
      return success();
    }
    LoopPlan plan = planLoops(op, ranges);
    int64_t threads = product(plan.threadExtents);
    std::optional<Combiner> combiner;
    if (!plan.threadDims.empty() || !plan.loopDims.empty()) {
      bool allReductions = llvm::all_of(plan.loopDims, [&](unsigned d) {
        return op.getIteratorTypesArray()[d] == utils::IteratorType::reduction;
      });
      if (!plan.loopDims.empty() && allReductions &&
          product(plan.loopExtents) >= blockReduceMin && threads <= kMaxGridX)
        combiner = matchCombiner(op);
    }
    OpBuilder b(op);
    if (combiner)
      buildBlockReduction(b, op, plan, *combiner, what + "_reduce");
    else if (failed(buildThreadKernel(b, op, plan, what)))
      return failure();
    op->erase();
    ++numKernels;
    if (combiner)
      ++numBlockReductions;
    else if (plan.threadDims.empty())
      ++numSerial;
    return success();
  }

  /// One thread per element of the thread loops; the other loops inside.
  LogicalResult buildThreadKernel(OpBuilder &b, linalg::LinalgOp op,
                                  const LoopPlan &plan, StringRef what) {
    Location loc = op.getLoc();
    int64_t total = product(plan.threadExtents);
    int64_t block = total >= blockSize
                        ? int64_t(blockSize)
                        : std::max<int64_t>(32, (total + 31) / 32 * 32);
    if (total <= 1)
      block = 1;
    int64_t grid = (total + block - 1) / block;
    if (grid > kMaxGridX)
      return op->emitError("the cuda target cannot launch ")
             << total << " threads for one op";
    gpu::LaunchOp launch = makeLaunch(b, op, grid, block, what);
    Value linear = b.create<arith::AddIOp>(
        loc,
        b.create<arith::MulIOp>(loc, launch.getBlockIds().x,
                                indexConst(b, loc, block)),
        launch.getThreadIds().x);
    if (grid * block > total) {
      Value inRange = b.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::ult, linear, indexConst(b, loc, total));
      auto guard = b.create<scf::IfOp>(loc, inRange, /*withElse=*/false);
      b.setInsertionPointToStart(&guard.getThenRegion().front());
    }
    SmallVector<Value> dims(op.getNumLoops());
    for (auto [d, v] : llvm::zip(
             plan.threadDims, delinearize(b, loc, linear, plan.threadExtents)))
      dims[d] = v;
    bool loops = !plan.loopDims.empty();
    SmallVector<Value> outs = loadOperands(b, loc, op, op.getDpsInitsMutable(),
                                           dims, /*needed=*/loops);
    SmallVector<Value> results;
    if (!loops) {
      SmallVector<Value> args = loadOperands(
          b, loc, op, op->getOpOperands().take_front(op.getNumDpsInputs()),
          dims, false);
      args.append(outs);
      results = clonePayload(b, op, args, dims);
    } else {
      SmallVector<Value> lbs, ubs, steps;
      for (int64_t e : plan.loopExtents) {
        lbs.push_back(indexConst(b, loc, 0));
        ubs.push_back(indexConst(b, loc, e));
        steps.push_back(indexConst(b, loc, 1));
      }
      scf::LoopNest nest = scf::buildLoopNest(
          b, loc, lbs, ubs, steps, outs,
          [&](OpBuilder &nb, Location nl, ValueRange ivs,
              ValueRange iterArgs) -> scf::ValueVector {
            for (auto [d, iv] : llvm::zip(plan.loopDims, ivs))
              dims[d] = iv;
            SmallVector<Value> args = loadOperands(
                nb, nl, op,
                op->getOpOperands().take_front(op.getNumDpsInputs()), dims,
                false);
            args.append(iterArgs.begin(), iterArgs.end());
            return clonePayload(nb, op, args, dims);
          });
      results.assign(nest.results.begin(), nest.results.end());
    }
    storeResults(b, loc, op, results, dims);
    return success();
  }

  static void storeResults(OpBuilder &b, Location loc, linalg::LinalgOp op,
                           ArrayRef<Value> results, ArrayRef<Value> dims) {
    for (auto [init, v] : llvm::zip(op.getDpsInitsMutable(), results)) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      b.create<memref::StoreOp>(loc, v, init.get(),
                                applyMap(b, loc, map, dims));
    }
  }

  /// A block per output element: each thread folds a strided share of the
  /// reduction, gpu.all_reduce combines the shares, thread 0 folds in the
  /// initial value and stores.
  void buildBlockReduction(OpBuilder &b, linalg::LinalgOp op,
                           const LoopPlan &plan, const Combiner &combiner,
                           StringRef what) {
    Location loc = op.getLoc();
    int64_t outputs = product(plan.threadExtents);
    int64_t reduced = product(plan.loopExtents);
    gpu::LaunchOp launch = makeLaunch(b, op, outputs, blockSize, what);
    Value tid = launch.getThreadIds().x;
    SmallVector<Value> dims(op.getNumLoops());
    for (auto [d, v] :
         llvm::zip(plan.threadDims, delinearize(b, loc, launch.getBlockIds().x,
                                                plan.threadExtents)))
      dims[d] = v;
    Value identity = b.create<arith::ConstantOp>(loc, combiner.identity);
    auto loop = b.create<scf::ForOp>(
        loc, tid, indexConst(b, loc, reduced), indexConst(b, loc, blockSize),
        ValueRange{identity},
        [&](OpBuilder &nb, Location nl, Value r, ValueRange iterArgs) {
          for (auto [d, v] : llvm::zip(
                   plan.loopDims, delinearize(nb, nl, r, plan.loopExtents)))
            dims[d] = v;
          SmallVector<Value> args = loadOperands(
              nb, nl, op, op->getOpOperands().take_front(op.getNumDpsInputs()),
              dims, false);
          args.push_back(iterArgs[0]);
          nb.create<scf::YieldOp>(nl, clonePayload(nb, op, args, dims));
        });
    Value total = b.create<gpu::AllReduceOp>(
        loc, loop.getResult(0),
        gpu::AllReduceOperationAttr::get(b.getContext(), combiner.kind),
        /*uniform=*/true);
    Value first = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid,
                                          indexConst(b, loc, 0));
    auto once = b.create<scf::IfOp>(loc, first, /*withElse=*/false);
    b.setInsertionPointToStart(&once.getThenRegion().front());
    OpOperand &init = op.getDpsInitsMutable()[0];
    Value initValue = b.create<memref::LoadOp>(
        loc, init.get(),
        applyMap(b, loc, op.getMatchingIndexingMap(&init), dims));
    BlockArgument out = op.getRegionOutputArgs()[0];
    IRMapping map;
    for (Value operand : combiner.op->getOperands())
      map.map(operand, operand == out ? initValue : total);
    Value result = b.clone(*combiner.op, map)->getResult(0);
    storeResults(b, loc, op, {result}, dims);
  }
};

} // namespace
