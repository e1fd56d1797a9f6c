//===- PrintSchedule.cpp - The host schedule as text, for tests -----------===//

#include "HostSchedule.h"
#include "loom/Target/CUDA/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace loom::cuda {
#define GEN_PASS_DEF_PRINTSCHEDULE
#include "Target/CUDA/Passes.h.inc"
} // namespace loom::cuda

using namespace mlir;
using namespace loom::cuda;

namespace {

struct PrintSchedulePass
    : loom::cuda::impl::PrintScheduleBase<PrintSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<func::FuncOp>(entry);
    if (!fn || fn.isExternal()) {
      module.emitError("-loom-cuda-print-schedule: no function @") << entry;
      return signalPassFailure();
    }
    SmallVector<RankedTensorType> bufferTypes;
    for (Type t : fn.getArgumentTypes()) {
      auto memref = dyn_cast<MemRefType>(t);
      if (!memref) {
        fn.emitError("-loom-cuda-print-schedule: argument of type ")
            << t << " is not a buffer";
        return signalPassFailure();
      }
      bufferTypes.push_back(
          RankedTensorType::get(memref.getShape(), memref.getElementType()));
    }
    KernelImages images;
    module.walk([&](gpu::GPUModuleOp gpuModule) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      if (!targets)
        return;
      for (Attribute a : targets)
        if (auto target = dyn_cast<NVVM::NVVMTargetAttr>(a)) {
          if (images.ptxChip.empty())
            images.ptxChip = target.getChip().str();
          images.cubinChips.push_back(target.getChip().str());
        }
    });
    FailureOr<HostSchedule> schedule =
        buildHostSchedule(fn, bufferTypes, images);
    if (failed(schedule))
      return signalPassFailure();
    llvm::outs() << schedule->program;
    markAllAnalysesPreserved();
  }
};

} // namespace
