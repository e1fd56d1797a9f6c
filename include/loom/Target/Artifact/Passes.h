//===- Passes.h - Artifact passes -------------------------------*- C++ -*-===//

#ifndef LOOM_TARGET_ARTIFACT_PASSES_H
#define LOOM_TARGET_ARTIFACT_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "loom/Target/Artifact/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "loom/Target/Artifact/Passes.h.inc"

} // namespace loom

#endif // LOOM_TARGET_ARTIFACT_PASSES_H
