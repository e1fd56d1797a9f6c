//===- Passes.h - Loom passes -----------------------------------*- C++ -*-===//

#ifndef LOOM_PASSES_PASSES_H
#define LOOM_PASSES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "Passes.h.inc"

std::unique_ptr<mlir::Pass> createNNRecognizeIdioms();

#define GEN_PASS_REGISTRATION
#include "Passes.h.inc"

} // namespace loom

#endif // LOOM_PASSES_PASSES_H
