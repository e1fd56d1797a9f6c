//===- Passes.td - Training passes -------------------------*- tablegen -*-===//
//
// The training passes: the training step and the expansion of its
// optimizer updates.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_TRAINING_PASSES
#define LOOM_PASSES_TRAINING_PASSES

include "mlir/Pass/PassBase.td"

def NNBuildTrainingStep : Pass<"nn-build-training-step", "mlir::ModuleOp"> {
  let summary = "Turn a model into one training step: loss, gradients, update";
  let description = [{
    Rewrites the module's public function into one step of training, in
    global (single-device) semantics: the loss (a scalar result of the
    model, or the mean cross entropy of a logits result against a new
    integer input), its gradients with respect to every float
    `nn.parameter` not matched by `freeze` (through each op's
    `GradientOpInterface`), their unscaling by the loss scale, their global
    L2 norm, the clipping coefficient, and one optimizer update op per
    parameter (`nn.sgd_update` or `nn.adamw_update`).

    With `grad-accum` K > 1 the data inputs take K times the batch and the
    forward and backward pass become the body of a `dist.microbatches` loop
    over them (microbatch k: rows k, k + K, ...), seeded with
    `loss_scale / K`, which yields each microbatch's gradients and loss.

    The step takes the model's inputs and the float scalars `train.lr`,
    `train.loss_scale` and, for AdamW, `train.bias_correction1` and
    `train.bias_correction2`; it returns `loss`, `train.grad_norm` and, per
    updated tensor, `update:NAME`. Optimizer state is new zero-initialised
    parameters (`adamw.m:NAME`, `adamw.v:NAME`, `sgd.momentum:NAME`); each
    updated parameter carries `nn.update`, the name of the result that
    replaces it after a step. The module gets `#nn.training`, what the
    runtime needs to drive the steps (its FLOPs counted as the step runs
    once the loop is unrolled and the updates expanded).

    ```mlir
    // before
    func.func @main(%x: tensor<8x4xf32> {nn.name = "x"})
        -> (tensor<f32> {nn.name = "l"}) {
      %w = nn.parameter "w" = dense<0.5> : tensor<4x2xf32>
      ...
      return %l : tensor<f32>
    }
    // after (optimizer=sgd)
    func.func @main(%x: tensor<8x4xf32> {nn.name = "x"},
                    %lr: tensor<f32> {nn.name = "train.lr"},
                    %scale: tensor<f32> {nn.name = "train.loss_scale"})
        -> (tensor<f32> {nn.name = "loss"},
            tensor<f32> {nn.name = "train.grad_norm"},
            tensor<4x2xf32> {nn.name = "update:w"}) {
      %w = nn.parameter "w" {nn.update = "update:w"} = dense<0.5> : ...
      ... the model, its gradient %gw, unscaled to %g, the norm %n ...
      %w1 = nn.sgd_update %w, %g lr(%lr) : tensor<4x2xf32>
      return %l, %n, %w1 : tensor<f32>, tensor<f32>, tensor<4x2xf32>
    }
    ```

    The `loom-train` pipeline (lib/Pipelines) runs it with
    -dist-zero-layouts, -nn-expand-optimizers and -dist-unroll-microbatches.
  }];
  let options = [
    Option<"loss", "loss", "std::string", "\"\"",
           "The loss: a scalar output's name, or cross_entropy">,
    Option<"logits", "logits", "std::string", "\"\"",
           "With loss=cross_entropy: the output holding the logits">,
    Option<"labels", "labels", "std::string", "\"labels\"",
           "With loss=cross_entropy: the name of the labels input to add">,
    Option<"optimizer", "optimizer", "::loom::nn::Optimizer",
           "::loom::nn::Optimizer::AdamW", "The update rule",
           [{::llvm::cl::values(
             clEnumValN(::loom::nn::Optimizer::SGD, "sgd",
                        "SGD with momentum and L2 weight decay"),
             clEnumValN(::loom::nn::Optimizer::AdamW, "adamw",
                        "AdamW (decoupled weight decay)"))}]>,
    Option<"lr", "lr", "double", "1e-3", "Learning rate">,
    Option<"momentum", "momentum", "double", "0.0", "SGD momentum">,
    Option<"beta1", "beta1", "double", "0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", "0.999", "AdamW beta2">,
    Option<"eps", "eps", "double", "1e-8", "AdamW epsilon">,
    Option<"weightDecay", "weight-decay", "double", "0.0",
           "Weight decay (decoupled for AdamW, L2 for SGD)">,
    Option<"lrSchedule", "lr-schedule", "::loom::nn::LRSchedule",
           "::loom::nn::LRSchedule::Constant",
           "How the runtime moves the learning rate",
           [{::llvm::cl::values(
             clEnumValN(::loom::nn::LRSchedule::Constant, "constant",
                        "lr at every step"),
             clEnumValN(::loom::nn::LRSchedule::Cosine, "cosine",
                        "linear warm-up, then cosine decay to min-lr"))}]>,
    Option<"warmup", "warmup", "int64_t", "0", "Linear warm-up steps">,
    Option<"decaySteps", "decay-steps", "int64_t", "0",
           "Cosine: steps from the end of warm-up to min-lr">,
    Option<"minLr", "min-lr", "double", "0.0", "Cosine: the final rate">,
    Option<"gradAccum", "grad-accum", "int64_t", "1",
           "Microbatches per step">,
    Option<"microbatchLoop", "microbatch-loop", "bool", "false",
           "Build the microbatch loop even for one microbatch (a pipeline "
           "schedule orders its units)">,
    Option<"clipGradNorm", "clip-grad-norm", "double", "0.0",
           "Clip the global gradient norm to this (0: off)">,
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
