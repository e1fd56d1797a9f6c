//===- Passes.h - Loom Training passes --------------------------*- C++ -*-===//

#ifndef LOOM_PASSES_TRAINING_PASSES_H
#define LOOM_PASSES_TRAINING_PASSES_H

#include "loom/Dialect/NN/NNDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "Training/TrainingPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Training/TrainingPasses.h.inc"

} // namespace loom

#endif // LOOM_PASSES_TRAINING_PASSES_H
