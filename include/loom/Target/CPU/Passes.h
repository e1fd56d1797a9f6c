//===- Passes.h - CPU target passes -----------------------------*- C++ -*-===//

#ifndef LOOM_TARGET_CPU_PASSES_H
#define LOOM_TARGET_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom::cpu {

#define GEN_PASS_DECL
#include "Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Target/CPU/Passes.h.inc"

/// The function attribute (an LLVM string attribute after translation) that
/// marks an outlined op whose first loop runs in parallel over [0, value).
inline constexpr const char *kParallelExtentAttr = "loom-parallel-extent";

} // namespace loom::cpu

#endif // LOOM_TARGET_CPU_PASSES_H
