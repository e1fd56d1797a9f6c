//===- GatherKernels.cpp - One gpu.module of every kernel, for the chips --===//
//
// gpu-kernel-outlining makes a module per kernel; the artifact wants one
// PTX file and one cubin per chip, with kernels named for people reading a
// profile.
//
//===----------------------------------------------------------------------===//

#include "loom/Target/CUDA/Chips.h"
#include "loom/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace loom::cuda {
#define GEN_PASS_DEF_GATHERKERNELS
#include "Target/CUDA/Passes.h.inc"
} // namespace loom::cuda

using namespace mlir;
using namespace loom::cuda;

namespace {

/// What the kernel does, from the name location -loom-cuda-map-to-gpu
/// gives each launch.
std::string describe(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(inner))
        return name.getName().str();
  return "kernel";
}

struct GatherKernelsPass
    : loom::cuda::impl::GatherKernelsBase<GatherKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::string> list(chips.begin(), chips.end());
    if (list.empty())
      list = defaultChips();
    SmallVector<Attribute> targets;
    for (const std::string &chip : list) {
      if (failed(checkChip(chip, module.getLoc())))
        return signalPassFailure();
      targets.push_back(NVVM::NVVMTargetAttr::get(&getContext(), optLevel,
                                                  "nvptx64-nvidia-cuda", chip,
                                                  ptxFeatures(chip)));
    }
    SmallVector<gpu::GPUModuleOp> sources(module.getOps<gpu::GPUModuleOp>());
    if (sources.empty())
      return;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto dest = b.create<gpu::GPUModuleOp>(module.getLoc(), kKernelModuleName,
                                           b.getArrayAttr(targets));
    SymbolTable destSymbols(dest);
    int64_t next = 0;
    // A kernel launched more than once keeps its first name.
    DenseMap<SymbolRefAttr, SymbolRefAttr> moved;
    WalkResult walk = module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr ref = launch.getKernel();
      if (ref.getRootReference() == kKernelModuleName)
        return WalkResult::advance();
      if (SymbolRefAttr done = moved.lookup(ref)) {
        launch.setKernelAttr(done);
        return WalkResult::advance();
      }
      auto source =
          module.lookupSymbol<gpu::GPUModuleOp>(ref.getRootReference());
      auto fn =
          source ? source.lookupSymbol<gpu::GPUFuncOp>(ref.getLeafReference())
                 : nullptr;
      if (!fn) {
        launch.emitError("internal error: no kernel ") << ref;
        return WalkResult::interrupt();
      }
      std::string name =
          "k" + std::to_string(next++) + "_" + describe(fn.getLoc());
      fn->moveBefore(dest.getBody()->getTerminator());
      destSymbols.insert(fn);
      if (fn.getName() != name)
        destSymbols.setSymbolName(fn, name);
      auto newRef =
          SymbolRefAttr::get(b.getStringAttr(kKernelModuleName),
                             {FlatSymbolRefAttr::get(fn.getNameAttr())});
      moved[ref] = newRef;
      launch.setKernelAttr(newRef);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (gpu::GPUModuleOp source : sources) {
      if (!source.getBody()->without_terminator().empty()) {
        source.emitError("a kernel that no gpu.launch_func launches");
        return signalPassFailure();
      }
      source.erase();
    }
  }
};

} // namespace
