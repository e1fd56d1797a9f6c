//===- Passes.h - CUDA target passes ----------------------------*- C++ -*-===//

#ifndef LOOM_TARGET_CUDA_PASSES_H
#define LOOM_TARGET_CUDA_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom::cuda {

#define GEN_PASS_DECL
#include "Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Target/CUDA/Passes.h.inc"

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_PASSES_H
