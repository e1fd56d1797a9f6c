//===- CUDATarget.cpp - The CUDA target -----------------------------------===//

#include "loom/Target/CUDA/CUDATarget.h"
#include "DeviceCode.h"
#include "HostSchedule.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Pipelines/Pipelines.h"
#include "loom/Target/Artifact/ArtifactFormat.h"
#include "loom/Target/Target.h"
#include "loom/runtime/ABI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace loom;
using namespace loom::cuda;

namespace {

class CUDATarget : public Target {
public:
  CUDATarget(SmallVector<std::string> chips, Toolkit toolkit)
      : chips(std::move(chips)), toolkit(std::move(toolkit)) {}

  StringRef getName() const override { return "cuda"; }
  StringRef getDeviceKind() const override { return LOOM_CUDA_DEVICE_KIND; }

  void buildLoweringPipeline(OpPassManager &pm) const override {
    CUDALoweringOptions options;
    options.chips = chips;
    options.toolkit = toolkit.root;
    buildCUDALoweringPipeline(pm, options);
  }

  FailureOr<SerializedExecutable>
  serialize(ModuleOp module, StringRef entryName,
            ArrayRef<RankedTensorType> bufferTypes,
            StringRef /*signature*/) override {
    // The executable is a schedule the runtime's CUDA device interprets, not
    // a library: there is no symbol to export the signature as.
    auto entry = module.lookupSymbol<func::FuncOp>(entryName);
    if (!entry)
      return module.emitError("internal error: no entry @") << entryName;
    FailureOr<KernelBinaries> binaries = assembleKernels(module, toolkit);
    if (failed(binaries))
      return failure();
    KernelImages images;
    images.ptxChip = binaries->ptxChip;
    for (auto &[chip, cubin] : binaries->cubins)
      images.cubinChips.push_back(chip);
    FailureOr<HostSchedule> schedule =
        buildHostSchedule(entry, bufferTypes, images);
    if (failed(schedule))
      return failure();
    arenaBytes = schedule->arenaBytes;
    SerializedExecutable executable;
    // The program imports nothing; the runtime's CUDA device runs it.
    executable.runtimeABI = LOOM_RUNTIME_ABI_BASE;
    if (module->getAttr(dist::kCollectivesAttrName))
      executable.runtimeABI = LOOM_RUNTIME_ABI_COLLECTIVES;
    executable.files.push_back({LOOM_CUDA_PROGRAM_FILE, schedule->program});
    if (!binaries->ptx.empty())
      executable.files.push_back({LOOM_CUDA_PTX_FILE, binaries->ptx});
    for (auto &[chip, cubin] : binaries->cubins)
      executable.files.push_back(
          {LOOM_CUDA_CUBIN_PREFIX + chip + LOOM_CUDA_CUBIN_SUFFIX,
           std::move(cubin)});
    if (!schedule->constants.empty())
      executable.files.push_back(
          {LOOM_CUDA_CONSTANTS_FILE, std::move(schedule->constants)});
    executable.library = LOOM_CUDA_PROGRAM_FILE;
    return executable;
  }

  void describe(llvm::json::OStream &j) const override {
    j.attributeArray("chips", [&] {
      for (const std::string &chip : chips)
        j.value(chip);
    });
    j.attribute("arena_bytes", static_cast<int64_t>(arenaBytes));
  }

private:
  SmallVector<std::string> chips;
  Toolkit toolkit;
  uint64_t arenaBytes = 0;
};

} // namespace

void loom::cuda::registerCUDATarget() {
  registerTarget(
      "cuda",
      "CUDA kernels (PTX and a cubin per chip, cuBLASLt GEMMs) and a host "
      "schedule for NVIDIA GPUs, over NCCL or MPI",
      [](const TargetOptions &options,
         Location loc) -> FailureOr<std::unique_ptr<Target>> {
        if (options.emulateCUDAKernels)
          return emitError(loc) << "--emulate-cuda-kernels runs the CUDA "
                                   "kernels on the host: use it with "
                                   "--target=cpu";
        SmallVector<std::string> chips(options.chips.begin(),
                                       options.chips.end());
        if (chips.empty())
          chips = defaultChips();
        for (const std::string &chip : chips)
          if (failed(checkChip(chip, loc)))
            return failure();
        // Lowest first: its PTX is the fallback for the others.
        llvm::sort(chips, [](const std::string &a, const std::string &b) {
          return chipNumber(a) < chipNumber(b) ||
                 (chipNumber(a) == chipNumber(b) && a < b);
        });
        chips.erase(std::unique(chips.begin(), chips.end()), chips.end());
        FailureOr<Toolkit> toolkit = findToolkit(loc);
        if (failed(toolkit))
          return failure();
        return std::unique_ptr<Target>(
            new CUDATarget(std::move(chips), std::move(*toolkit)));
      });
}
