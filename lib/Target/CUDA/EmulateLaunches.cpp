//===- EmulateLaunches.cpp - -loom-cuda-map-to-gpu's kernels on the host --===//
//
// The kernels' arithmetic (indexing, guards, reductions) is checked on any
// machine by running them as loops: the CPU target compiles the result and
// the node tests compare it with their expected outputs. What this cannot
// check is below the kernels' IR: NVVM, ptxas and the launch ABI, which
// the device check covers.
//
//===----------------------------------------------------------------------===//

#include "loom/Target/CUDA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace loom::cuda {
#define GEN_PASS_DEF_EMULATELAUNCHES
#include "Target/CUDA/Passes.h.inc"
} // namespace loom::cuda

using namespace mlir;

namespace {

/// Whether `op` or an op inside it may write memory (unknown effects may).
bool mayWrite(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  return !effects ||
         llvm::any_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Write>(e.getEffect());
         });
}

struct EmulateLaunchesPass
    : loom::cuda::impl::EmulateLaunchesBase<EmulateLaunchesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulate(launch)))
        return signalPassFailure();
  }

  /// Clones the body's ops [begin, end) with the ids mapped; the values
  /// of the last op cloned stay in `map`.
  static void cloneRange(OpBuilder &b, Block::iterator begin,
                         Block::iterator end, IRMapping &map) {
    for (auto it = begin; it != end; ++it)
      b.clone(*it, map);
  }

  LogicalResult emulate(gpu::LaunchOp launch) {
    Block &body = launch.getBody().front();
    gpu::AllReduceOp reduce;
    for (Operation &op : body.without_terminator()) {
      WalkResult r = op.walk([&](Operation *inner) {
        if (isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::SubgroupReduceOp>(inner))
          return WalkResult::interrupt();
        if (auto all = dyn_cast<gpu::AllReduceOp>(inner)) {
          if (reduce || inner->getParentOp() != launch || !all.getOp() ||
              !all.getBody().empty())
            return WalkResult::interrupt();
          reduce = all;
        }
        return WalkResult::advance();
      });
      if (r.wasInterrupted())
        return launch.emitError("-loom-cuda-emulate-launches: cannot run "
                                "this kernel's synchronisation on the host");
    }
    // The part before the reduction runs in both passes: it must not write.
    if (reduce)
      for (Operation &op :
           llvm::make_range(body.begin(), Block::iterator(reduce)))
        if (mayWrite(&op))
          return op.emitError("-loom-cuda-emulate-launches: a write before "
                              "the block reduction would run twice on the "
                              "host");
    // -loom-cuda-map-to-gpu launches along x only; y and z stay 1.
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    for (Value v : {grid.y, grid.z, block.y, block.z})
      if (getConstantIntValue(v) != 1)
        return launch.emitError("-loom-cuda-emulate-launches: only "
                                "one-dimensional launches run on the host");
    Location loc = launch.getLoc();
    OpBuilder b(launch);
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    // Threads run one after another: loop over blocks, then threads.
    auto outer = b.create<scf::ForOp>(loc, zero, grid.x, one);
    b.setInsertionPointToStart(outer.getBody());
    Value bid = outer.getInductionVar();
    auto baseMap = [&](Value tid) {
      IRMapping map;
      gpu::KernelDim3 ids = launch.getBlockIds(), tids = launch.getThreadIds();
      gpu::KernelDim3 gs = launch.getGridSize(), bs = launch.getBlockSize();
      map.map(ids.x, bid);
      map.map(ids.y, zero);
      map.map(ids.z, zero);
      map.map(tids.x, tid);
      map.map(tids.y, zero);
      map.map(tids.z, zero);
      map.map(gs.x, grid.x);
      map.map(gs.y, grid.y);
      map.map(gs.z, grid.z);
      map.map(bs.x, block.x);
      map.map(bs.y, block.y);
      map.map(bs.z, block.z);
      return map;
    };
    Value total;
    if (reduce) {
      // Pass 1: every thread's value, combined in thread order.
      Block::iterator at(reduce.getOperation());
      IRMapping first = baseMap(zero);
      cloneRange(b, body.begin(), at, first);
      Value init = first.lookup(reduce.getValue());
      auto threads =
          b.create<scf::ForOp>(loc, one, block.x, one, ValueRange{init});
      OpBuilder ib = OpBuilder::atBlockBegin(threads.getBody());
      IRMapping each = baseMap(threads.getInductionVar());
      cloneRange(ib, body.begin(), at, each);
      Value sum = vector::makeArithReduction(
          ib, loc, gpu::convertReductionKind(*reduce.getOp()),
          each.lookup(reduce.getValue()), threads.getRegionIterArgs()[0]);
      ib.create<scf::YieldOp>(loc, sum);
      total = threads.getResult(0);
    }
    // Pass 2 (the only one without a reduction): the body per thread.
    auto threads = b.create<scf::ForOp>(loc, zero, block.x, one);
    OpBuilder tb = OpBuilder::atBlockBegin(threads.getBody());
    IRMapping map = baseMap(threads.getInductionVar());
    for (Operation &op : body.without_terminator()) {
      if (reduce && &op == reduce.getOperation()) {
        map.map(reduce.getResult(), total);
        continue;
      }
      tb.clone(op, map);
    }
    launch.erase();
    return success();
  }
};

} // namespace
