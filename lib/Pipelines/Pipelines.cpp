//===- Pipelines.cpp - Loom's pass pipelines in one place -----------------===//

#include "loom/Pipelines/Pipelines.h"
#include "loom/Conversion/Passes.h"
#include "loom/Target/Artifact/Passes.h"
#include "loom/Target/CPU/Passes.h"
#include "loom/Target/CUDA/Passes.h"
#include "loom/Transforms/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace loom;

namespace {
/// Adds `pass` configured by `options` in pass-option syntax (what
/// mlir-opt's `pass{options}` takes), so the pipeline reads as its
/// textual form does.
void addPass(OpPassManager &pm, std::unique_ptr<Pass> pass, StringRef options) {
  LogicalResult parsed =
      pass->initializeOptions(options, [](const Twine &message) {
        llvm::report_fatal_error("bad pass options in a Loom pipeline: " +
                                 message);
        return failure();
      });
  (void)parsed;
  pm.addPass(std::move(pass));
}
} // namespace

void loom::buildToLinalgPipeline(OpPassManager &pm,
                                 const ToLinalgPipelineOptions &options) {
  PrepareEntryOptions prepare;
  prepare.entryName = options.entryName;
  pm.addPass(createPrepareEntry(prepare));
  ConvertNNToLinalgOptions toLinalg;
  toLinalg.checkIndices = options.checkIndices;
  pm.addPass(createConvertNNToLinalg(toLinalg));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertDistToRuntime());
  pm.addPass(createCopyAliasedResults());
  pm.addPass(createUntieInits());
}

/// Tensors to memrefs, results to out-parameters: where both targets'
/// lowerings start.
static void addBufferization(OpPassManager &pm) {
  addPass(pm, bufferization::createOneShotBufferizePass(),
          "bufferize-function-boundaries "
          "function-boundary-type-conversion=identity-layout-map");
  addPass(pm, bufferization::createBufferResultsToOutParamsPass(),
          "hoist-static-allocs=true");
}

/// The CUDA target's kernels as gpu.launch (also what the CPU target runs
/// with --emulate-cuda-kernels).
static void addMapToGPU(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(cuda::createMapToGPU());
}

void loom::buildCPULoweringPipeline(OpPassManager &pm,
                                    const CPULoweringOptions &options) {
  addBufferization(pm);
  if (options.emulateCUDAKernels) {
    // What the CUDA lowering makes of the program, with its kernels as
    // loops; the GEMMs, fills and copies it leaves go on as on the CPU.
    addMapToGPU(pm);
    pm.addNestedPass<func::FuncOp>(cuda::createEmulateLaunches());
  }
  pm.addPass(cpu::createLinalgToKernels());
  bufferization::buildBufferDeallocationPipeline(
      pm, bufferization::BufferDeallocationPipelineOptions());
  pm.addPass(createFreeEarly());
  pm.addPass(createBufferizationToMemRefPass());
  pm.addPass(cpu::createOutlineKernels());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(cpu::createApproximateMath());
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  addPass(pm, createFinalizeMemRefToLLVMConversionPass(),
          "use-generic-functions");
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void loom::buildCUDALoweringPipeline(OpPassManager &pm,
                                     const CUDALoweringOptions &options) {
  addBufferization(pm);
  addMapToGPU(pm);
  pm.addPass(createGpuLauchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  std::vector<std::string> chips(options.chips.begin(), options.chips.end());
  cuda::GatherKernelsOptions gather;
  gather.chips = chips;
  pm.addPass(cuda::createGatherKernels(gather));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(cuda::createLegalizeMath());
  kernels.addPass(math::createMathLegalizeToF32());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createConvertSCFToCFPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void loom::registerLoomPipelines() {
  registerDistributionPipelines();
  PassPipelineRegistration<>(
      "loom-import-cleanup",
      "Canonicalize, raise exported idioms to single nn ops, CSE (what the "
      "ONNX importer runs)",
      buildImportCleanupPipeline);
  PassPipelineRegistration<ToLinalgPipelineOptions>(
      "loom-to-linalg",
      "nn -> fused linalg on tensors with the entry's parameters as "
      "arguments (loomc --emit=linalg)",
      buildToLinalgPipeline);
  PassPipelineRegistration<CPULoweringOptions>(
      "loom-cpu-lowering",
      "The CPU target: fused linalg -> the LLVM dialect (loomc --emit=llvm "
      "after loom-to-linalg)",
      buildCPULoweringPipeline);
  PassPipelineRegistration<CUDALoweringOptions>(
      "loom-cuda-lowering",
      "The CUDA target: fused linalg -> kernels as PTX in a gpu.binary and "
      "the host program of launches, GEMMs and buffers (loomc --target=cuda "
      "--emit=llvm after loom-to-linalg)",
      buildCUDALoweringPipeline);
}
