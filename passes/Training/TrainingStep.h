//===- TrainingStep.h - The parts of a training step ------------*- C++ -*-===//
//
// -nn-build-training-step (TrainingStep.cpp) assembles a step from parts,
// one file each: the loss (Loss.cpp), the gradients of one microbatch at a
// time (Microbatches.cpp), unscaling, the global norm and the clipping
// coefficient (Clipping.cpp), and the optimizer's update ops with their
// state (Optimizers.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_TRAINING_TRAININGSTEP_H
#define LOOM_PASSES_TRAINING_TRAININGSTEP_H

#include "loom/Dialect/NN/NNOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include <string>
#include <utility>

namespace loom::training {

/// Whether `t` is a ranked tensor of floats.
bool isFloatTensor(mlir::Type t);

/// A parameter the step trains, and its gradient once built.
struct Trained {
  nn::ParameterOp param;
  std::string name;
  mlir::Value grad;
};

//===----------------------------------------------------------------------===//
// Loss.cpp
//===----------------------------------------------------------------------===//

struct LossOptions {
  /// A scalar output's name, or "cross_entropy".
  llvm::StringRef loss;
  /// With cross entropy: the output holding the logits.
  llvm::StringRef logits;
  /// With cross entropy: the name of the labels input to add.
  llvm::StringRef labels;
};

struct Loss {
  /// The float scalar loss.
  mlir::Value value;
  /// With cross entropy: the logits' classes (else 0).
  int64_t numClasses = 0;
};

/// Builds the loss at `b` from `fn`'s outputs; for cross entropy adds the
/// labels argument (last, laid out like the batch of the inputs).
mlir::FailureOr<Loss> buildLoss(mlir::func::FuncOp fn, mlir::OpBuilder &b,
                                const LossOptions &options);

//===----------------------------------------------------------------------===//
// Microbatches.cpp
//===----------------------------------------------------------------------===//

/// Gradient accumulation over `count` microbatches: the first
/// `numDataInputs` arguments of `fn` take `count` times their batch, and
/// `forward` (the ops computing `loss`) moves into a dist.microbatches loop
/// over them that also differentiates each microbatch (seed `lossScale /
/// count`) and yields its gradients and loss. Sets each trained
/// parameter's gradient (the loop's sums) and returns the mean loss.
mlir::FailureOr<mlir::Value>
buildMicrobatchLoop(mlir::func::FuncOp fn, mlir::OpBuilder &b,
                    llvm::ArrayRef<mlir::Operation *> forward, mlir::Value loss,
                    mlir::Value lossScale, unsigned numDataInputs,
                    int64_t count, llvm::MutableArrayRef<Trained> trained);

//===----------------------------------------------------------------------===//
// Clipping.cpp
//===----------------------------------------------------------------------===//

struct GradientNorm {
  /// The global L2 norm of the unscaled gradients.
  mlir::Value norm;
  /// min(1, maxNorm / (norm + 1e-6)), or null without clipping.
  mlir::Value clip;
};

/// Divides every gradient by `lossScale` (zeros for a parameter no
/// gradient reaches), then builds the global norm and, for `maxNorm` > 0,
/// the clipping coefficient of torch.nn.utils.clip_grad_norm_.
GradientNorm buildGradientNorm(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value lossScale,
                               llvm::MutableArrayRef<Trained> trained,
                               double maxNorm);

//===----------------------------------------------------------------------===//
// Optimizers.cpp
//===----------------------------------------------------------------------===//

struct OptimizerOptions {
  nn::Optimizer kind;
  double momentum, weightDecay, beta1, beta2, eps;
};

/// The per-step scalars the updates read.
struct OptimizerScalars {
  mlir::Value lr;
  /// AdamW's bias corrections (null for SGD).
  mlir::Value biasCorrection1, biasCorrection2;
  /// The clipping coefficient, or null.
  mlir::Value clip;
};

/// One update op per trained parameter, with its optimizer state as new
/// zero-initialised parameters (`sgd.momentum:NAME`, `adamw.m:NAME`,
/// `adamw.v:NAME`). Returns (name, new value) for every updated tensor:
/// each parameter's state first, then the parameter.
llvm::SmallVector<std::pair<std::string, mlir::Value>> buildOptimizerUpdates(
    mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<Trained> trained,
    const OptimizerOptions &options, const OptimizerScalars &scalars);

} // namespace loom::training

#endif // LOOM_PASSES_TRAINING_TRAININGSTEP_H
