//===- InitAll.cpp - Register Loom's dialects, passes and targets ---------===//

#include "loom/InitAll.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Passes.h"
#include "loom/Passes/NN/Passes.h"
#include "loom/Passes/Training/Passes.h"
#include "loom/Pipelines/Pipelines.h"
#include "loom/Target/Artifact/Passes.h"
#include "loom/Target/CPU/CPUTarget.h"
#include "loom/Target/CPU/Passes.h"
#include "loom/Target/CUDA/CUDATarget.h"
#include "loom/Target/CUDA/Passes.h"
#include "loom/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void loom::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<nn::NNDialect, dist::DistDialect, mlir::func::FuncDialect>();
  // The backends lower through upstream dialects (linalg, bufferization,
  // LLVM ...) and need their interface implementations.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // The CUDA target translates its kernels to LLVM IR in-process
  // (gpu-module-to-binary).
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
}

void loom::registerAllPasses() {
  registerLoomNNPasses();
  registerLoomDistPasses();
  registerLoomTrainingPasses();
  registerLoomConversionPasses();
  registerLoomTransformsPasses();
  registerLoomArtifactPasses();
  cpu::registerLoomCPUPasses();
  cuda::registerLoomCUDAPasses();
  registerLoomPipelines();
  // loom-opt replays pipelines pass by pass with upstream names too.
  mlir::registerAllPasses();
}

void loom::registerAllTargets() {
  cpu::registerCPUTarget();
  cuda::registerCUDATarget();
}
