//===- Passes.td - Training passes -------------------------*- tablegen -*-===//
//
// The training passes: the training step.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_TRAINING_PASSES
#define LOOM_PASSES_TRAINING_PASSES

include "mlir/Pass/PassBase.td"

def NNBuildTrainingStep : Pass<"nn-build-training-step", "mlir::ModuleOp"> {
  let summary = "Turn a model into one training step: loss, gradients, update";
  let description = [{
    Rewrites the module's public function into one step of training: the
    loss (a scalar result of the model, or the mean cross entropy of a
    logits result against a new integer input), its gradients with respect
    to every float `nn.parameter` not matched by `freeze` (through each op's
    `GradientOpInterface`, one microbatch at a time when `grad-accum` > 1),
    their global L2 norm, clipping, and the optimizer's update (SGD with
    momentum and weight decay, or AdamW, as PyTorch computes them).

    The step takes the model's inputs (with `grad-accum` times the batch)
    and the float scalars `train.lr`, `train.loss_scale` and, for AdamW,
    `train.bias_correction1` and `train.bias_correction2`; it returns
    `loss`, `train.grad_norm` and, per updated tensor, `update:NAME`.
    Optimizer state is new zero-initialised parameters (`adamw.m:NAME`,
    `adamw.v:NAME`, `sgd.momentum:NAME`); each updated parameter carries
    `loom.update`, the name of the result that replaces it after a step. The
    module gets `loom.training`, what the runtime needs to drive the steps.

    With a mesh, `zero` shards the optimizer state (1), also the gradients
    (2) and also the parameters (3) over the mesh axis `dp` by annotations
    that -dist-propagate-sharding and -dist-partition carry out.
  }];
  let options = [
    Option<"loss", "loss", "std::string", "\"\"",
           "The loss: a scalar output's name, or cross_entropy">,
    Option<"logits", "logits", "std::string", "\"\"",
           "With loss=cross_entropy: the output holding the logits">,
    Option<"labels", "labels", "std::string", "\"labels\"",
           "With loss=cross_entropy: the name of the labels input to add">,
    Option<"optimizer", "optimizer", "std::string", "\"adamw\"",
           "sgd or adamw">,
    Option<"lr", "lr", "double", "1e-3", "Learning rate">,
    Option<"momentum", "momentum", "double", "0.0", "SGD momentum">,
    Option<"beta1", "beta1", "double", "0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", "0.999", "AdamW beta2">,
    Option<"eps", "eps", "double", "1e-8", "AdamW epsilon">,
    Option<"weightDecay", "weight-decay", "double", "0.0",
           "Weight decay (decoupled for AdamW, L2 for SGD)">,
    Option<"lrSchedule", "lr-schedule", "std::string", "\"constant\"",
           "constant or cosine">,
    Option<"warmup", "warmup", "int64_t", "0", "Linear warm-up steps">,
    Option<"decaySteps", "decay-steps", "int64_t", "0",
           "Cosine: steps from the end of warm-up to min-lr">,
    Option<"minLr", "min-lr", "double", "0.0", "Cosine: the final rate">,
    Option<"gradAccum", "grad-accum", "int64_t", "1",
           "Microbatches per step">,
    Option<"clipGradNorm", "clip-grad-norm", "double", "0.0",
           "Clip the global gradient norm to this (0: off)">,
    Option<"zero", "zero", "int64_t", "0", "ZeRO stage 0 to 3">,
    Option<"freeze", "freeze", "std::string", "\"\"",
           "Parameters whose whole name matches this regex are not trained">
  ];
  let dependentDialects = ["::loom::nn::NNDialect", "::loom::dist::DistDialect"];
}

def NNExpandOptimizers : Pass<"nn-expand-optimizers"> {
  let summary = "Rewrite optimizer updates into elementwise nn ops";
  let description = [{
    Replaces every `nn.sgd_update` and `nn.adamw_update` with the nn ops of
    its formula, operation by operation as `torch.optim.SGD` and
    `torch.optim.AdamW` compute it (so a step can be checked against
    PyTorch to the bit), the hyper-parameters becoming scalar constants of
    the parameter's element type.

    ```mlir
    // before
    %w1, %b1 = nn.sgd_update %w, %g momentum_buffer(%b) lr(%lr)
        momentum = 0.9 : tensor<4x2xf32>
    // after
    %c = nn.constant dense<0.9> : tensor<f32>
    %0 = nn.mul %b, %c : tensor<4x2xf32>, tensor<f32>
    %b1 = nn.add %0, %g : tensor<4x2xf32>, tensor<4x2xf32>
    %1 = nn.mul %b1, %lr : tensor<4x2xf32>, tensor<f32>
    %w1 = nn.sub %w, %1 : tensor<4x2xf32>, tensor<4x2xf32>
    ```
  }];
  let dependentDialects = ["::loom::nn::NNDialect"];
}

#endif // LOOM_PASSES_TRAINING_PASSES
