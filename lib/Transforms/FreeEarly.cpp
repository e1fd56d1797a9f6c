//===- FreeEarly.cpp - Free each buffer after its last use ----------------===//

#include "loom/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

namespace loom {
#define GEN_PASS_DEF_FREEEARLY
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;

namespace {
/// Whether `v`, made from a buffer, may point into it.
bool mayAlias(Value v) {
  if (isa<BaseMemRefType>(v.getType()))
    return true;
  Operation *def = v.getDefiningOp();
  return def && isa<memref::ExtractAlignedPointerAsIndexOp,
                    memref::ExtractStridedMetadataOp>(def);
}

/// The last op of `block` that uses `buffer` or a value derived from it, or
/// null when a use is in another block.
Operation *lastUse(Value buffer, Block *block, Operation *except) {
  Operation *last = buffer.getDefiningOp();
  if (last && last->getBlock() != block)
    last = nullptr;
  SmallVector<Value> worklist{buffer};
  llvm::DenseSet<Value> seen{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user == except)
        continue;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return nullptr;
      if (!last || last->isBeforeInBlock(top))
        last = top;
      for (Value r : user->getResults())
        if (mayAlias(r) && seen.insert(r).second)
          worklist.push_back(r);
    }
  }
  return last;
}

struct FreeEarlyPass : loom::impl::FreeEarlyBase<FreeEarlyPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    for (memref::DeallocOp dealloc : deallocs) {
      Block *block = dealloc->getBlock();
      Operation *last = lastUse(dealloc.getMemref(), block, dealloc);
      if (last && last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};
} // namespace
