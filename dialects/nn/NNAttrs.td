//===- NNAttrs.td - nn attributes and their enums ----------*- tablegen -*-===//

#ifndef LOOM_NN_ATTRS
#define LOOM_NN_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def NN_Optimizer : I32EnumAttr<"Optimizer", "a training step's optimizer", [
      I32EnumAttrCase<"SGD", 0, "sgd">, I32EnumAttrCase<"AdamW", 1, "adamw">
    ]> {
  let cppNamespace = "::loom::nn";
}

def NN_LRSchedule : I32EnumAttr<"LRSchedule", "how the learning rate moves", [
      I32EnumAttrCase<"Constant", 0, "constant">,
      I32EnumAttrCase<"Cosine", 1, "cosine">
    ]> {
  let cppNamespace = "::loom::nn";
}

class NN_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<NN_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A double printed shortest-round-trip and parsed from an integer or float;
// zero when absent.
def NN_F64Parameter : AttrOrTypeParameter<"::llvm::APFloat", ""> {
  let parser = "::loom::parseF64($_parser)";
  let printer = "::loom::printF64($_printer, $_self)";
  let defaultValue = "::llvm::APFloat(0.0)";
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
}

def NN_TrainingAttr : NN_Attr<"Training", "training"> {
  let summary = "what the runtime needs to drive a training step";
  let description = [{
    Set on the module by -nn-build-training-step (the ZeRO stage by
    -dist-zero-layouts) and copied into the artifact's manifest (its
    `training` object, docs/Training.md): the
    step's loss and gradient-norm results, the optimizer and its
    hyper-parameters, the learning-rate schedule, gradient accumulation,
    clipping (0: off), the ZeRO stage, the data inputs the loader fills, the
    labels input and class count for cross entropy, the batch and tokens per
    example (0: unknown) and the step's FLOPs. Hyper-parameters that the
    optimizer does not use are 0 and not printed.

    ```mlir
    module attributes {nn.training = #nn.training<loss = "loss",
        grad_norm = "train.grad_norm", optimizer = adamw, lr = 0.001,
        beta1 = 0.9, beta2 = 0.999, eps = 1.0E-8, lr_schedule = constant,
        grad_accum = 1, data_inputs = ["x"], batch = 8,
        flops_per_step = 1.2E+6>} { ... }
    ```
  }];
  let parameters = (ins
    StringRefParameter<"the loss result">:$loss,
    StringRefParameter<"the gradient-norm result">:$grad_norm,
    EnumParameter<NN_Optimizer>:$optimizer,
    NN_F64Parameter:$lr,
    NN_F64Parameter:$weight_decay,
    NN_F64Parameter:$momentum,
    NN_F64Parameter:$beta1,
    NN_F64Parameter:$beta2,
    NN_F64Parameter:$eps,
    EnumParameter<NN_LRSchedule>:$lr_schedule,
    DefaultValuedParameter<"int64_t", "0">:$warmup,
    DefaultValuedParameter<"int64_t", "0">:$decay_steps,
    NN_F64Parameter:$min_lr,
    DefaultValuedParameter<"int64_t", "1">:$grad_accum,
    NN_F64Parameter:$clip_grad_norm,
    DefaultValuedParameter<"int64_t", "0">:$zero,
    "::mlir::ArrayAttr":$data_inputs,
    StringRefParameter<"the labels input (cross entropy)", "\"\"">:$labels,
    DefaultValuedParameter<"int64_t", "0">:$num_classes,
    DefaultValuedParameter<"int64_t", "0">:$batch,
    DefaultValuedParameter<"int64_t", "0">:$tokens_per_example,
    NN_F64Parameter:$flops_per_step);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The float scalars the runtime passes every step, as (input name,
    /// manifest key) pairs: the learning rate, the loss scale and, for
    /// AdamW, the bias corrections.
    ::llvm::SmallVector<std::pair<::llvm::StringRef, ::llvm::StringRef>>
    getScalarInputs() const;
  }];
}

#endif // LOOM_NN_ATTRS
