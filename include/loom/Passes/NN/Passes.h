//===- Passes.h - Loom NN passes --------------------------------*- C++ -*-===//

#ifndef LOOM_PASSES_NN_PASSES_H
#define LOOM_PASSES_NN_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "NN/NNPasses.h.inc"

std::unique_ptr<mlir::Pass> createNNRecognizeIdioms();

#define GEN_PASS_REGISTRATION
#include "NN/NNPasses.h.inc"

} // namespace loom

#endif // LOOM_PASSES_NN_PASSES_H
