//===- Passes.h - Target-independent codegen passes -------------*- C++ -*-===//

#ifndef LOOM_TRANSFORMS_PASSES_H
#define LOOM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "loom/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "loom/Transforms/Passes.h.inc"

} // namespace loom

#endif // LOOM_TRANSFORMS_PASSES_H
