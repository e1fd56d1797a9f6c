//===- CPUTarget.cpp - The CPU target -------------------------------------===//

#include "loom/Target/CPU/CPUTarget.h"
#include "HostMachine.h"
#include "LLVMCodegen.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Pipelines/Pipelines.h"
#include "loom/Target/Target.h"
#include "loom/runtime/ABI.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace loom;
using namespace loom::cpu;

namespace {

class CPUTarget : public Target {
public:
  CPUTarget(HostMachine host, bool emulateCUDAKernels)
      : host(std::move(host)), emulateCUDAKernels(emulateCUDAKernels) {}

  StringRef getName() const override { return "cpu"; }
  StringRef getDeviceKind() const override { return LOOM_DEFAULT_DEVICE_KIND; }

  void buildLoweringPipeline(OpPassManager &pm) const override {
    CPULoweringOptions options;
    options.emulateCUDAKernels = emulateCUDAKernels;
    buildCPULoweringPipeline(pm, options);
  }

  FailureOr<SerializedExecutable>
  serialize(ModuleOp module, StringRef entryName,
            ArrayRef<RankedTensorType> bufferTypes,
            StringRef signature) override {
    SerializedExecutable executable;
    // The oldest runtime ABI that has every symbol the program imports.
    executable.runtimeABI = LOOM_RUNTIME_ABI_BASE;
    if (module.lookupSymbol(LOOM_GEMM_CONST_B_F32_SYMBOL))
      executable.runtimeABI = LOOM_RUNTIME_ABI_GEMM_CONST_B;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn.getName().starts_with(LOOM_COLLECTIVE_SYMBOL_PREFIX))
        executable.runtimeABI = std::max<int>(
            executable.runtimeABI,
            fn.getName().ends_with("_send") || fn.getName().ends_with("_recv")
                ? LOOM_RUNTIME_ABI_TRANSFERS
                : LOOM_RUNTIME_ABI_COLLECTIVES);
    // Nothing of dist is left but the mesh, which LLVM IR has no use for.
    for (auto mesh : llvm::make_early_inc_range(module.getOps<dist::MeshOp>()))
      mesh.erase();
    FailureOr<SmallString<0>> object =
        emitObject(module, entryName, bufferTypes, signature, host);
    if (failed(object))
      return failure();
    FailureOr<std::string> library = linkSharedObject(*object, module.getLoc());
    if (failed(library))
      return failure();
    executable.files.push_back({LOOM_PROGRAM_FILE, std::move(*library)});
    executable.library = LOOM_PROGRAM_FILE;
    return executable;
  }

  void describe(llvm::json::OStream &j) const override {
    j.attribute("triple", host.triple);
    j.attribute("cpu", host.cpu);
    j.attributeArray("features", [&] {
      for (const std::string &f : host.features)
        j.value(f);
    });
  }

private:
  HostMachine host;
  bool emulateCUDAKernels;
};

} // namespace

void loom::cpu::registerCPUTarget() {
  registerTarget(
      "cpu", "native code for this or another x86-64 CPU (--cpu), over MPI",
      [](const TargetOptions &options,
         Location loc) -> FailureOr<std::unique_ptr<Target>> {
        if (!options.chips.empty())
          return emitError(loc) << "--target=cpu takes no chip list (use "
                                   "--cpu to name the CPU)";
        FailureOr<HostMachine> host = makeHostMachine(options.cpu, loc);
        if (failed(host))
          return failure();
        return std::unique_ptr<Target>(
            new CPUTarget(std::move(*host), options.emulateCUDAKernels));
      });
}
