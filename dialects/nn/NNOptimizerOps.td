//===- NNOptimizerOps.td - Optimizer updates ---------------*- tablegen -*-===//
//
// One optimizer step of one parameter, as an op: -nn-build-training-step
// emits them, -dist-zero-layouts reads their parameter, gradient and state
// operands, -nn-expand-optimizers rewrites them into elementwise nn ops.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_NN_OPTIMIZER_OPS
#define LOOM_NN_OPTIMIZER_OPS

include "nn/NNBase.td"
include "nn/NNOptimizerInterface.td"

// The operands and results of an update share the parameter's type; the
// per-step scalars are 0-d tensors of its element type.
defvar NN_ScalarOfParam =
  "::mlir::RankedTensorType::get({}, ::mlir::getElementTypeOrSelf($_self))";

class NN_UpdateOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([
        DeclareOpInterfaceMethods<NN_OptimizerUpdateOpInterface,
                                  ["getState", "getNewState"]>,
        TypesMatchWith<"the gradient has the parameter's type", "param",
                       "grad", "$_self">,
        TypesMatchWith<"lr is a scalar of the parameter's element type",
                       "param", "lr", NN_ScalarOfParam>,
        OptionalTypesMatchWith<"clip is a scalar of the parameter's element "
                               "type", "param", "clip", NN_ScalarOfParam>],
        traits)> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::loom::ShardingRule $cppClass::getShardingRule() {
      return ::loom::getElementwiseShardingRule(
          getOperation()->getOperandTypes(), getOperation()->getResultTypes());
    }
  }];
}

def NN_SGDUpdateOp : NN_UpdateOp<"sgd_update", [AttrSizedOperandSegments,
    OptionalTypesMatchWith<"the momentum buffer has the parameter's type",
                           "param", "momentum_buffer", "$_self">]> {
  let summary = "one SGD step of a parameter (momentum, L2 weight decay)";
  let description = [{
    The update `torch.optim.SGD` makes to one parameter, operation by
    operation (so that a step can be checked against it to the bit):

    ```
    g = grad * clip                           (when clip is given)
    g = g + param * weight_decay              (when weight_decay > 0)
    buf = momentum_buffer * momentum + g      (when momentum > 0)
    new_param = param - buf * lr              (g * lr without momentum)
    ```

    `momentum_buffer` is given, and `new_momentum_buffer` returned, exactly
    when `momentum` > 0. `lr` and the clipping coefficient `clip` are 0-d
    tensors of the parameter's element type, read every step; `momentum` and
    `weight_decay` are fixed. The op is elementwise over its tensors (the
    scalars replicated), so ZeRO can update each device's block. It has no
    gradient rule: updates are built after differentiation.
    `-nn-expand-optimizers` rewrites it into the ops above.

    ```mlir
    %w1 = nn.sgd_update %w, %g lr(%lr) : tensor<4x2xf32>
    %w2, %buf2 = nn.sgd_update %w, %g momentum_buffer(%buf) lr(%lr) clip(%c)
        momentum = 0.9 weight_decay = 0.01 : tensor<4x2xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$param, NN_FloatTensor:$grad,
                       Optional<NN_FloatTensor>:$momentum_buffer,
                       NN_FloatTensor:$lr, Optional<NN_FloatTensor>:$clip,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs NN_FloatTensor:$new_param,
                      Optional<NN_FloatTensor>:$new_momentum_buffer);
  let assemblyFormat = [{
    $param `,` $grad (`momentum_buffer` `(` $momentum_buffer^ `)`)?
      `lr` `(` $lr `)` (`clip` `(` $clip^ `)`)?
      (`momentum` `=` custom<F64Attr>($momentum)^)? (`weight_decay` `=` custom<F64Attr>($weight_decay)^)?
      attr-dict `:` type($param)
  }];
}

def NN_AdamWUpdateOp : NN_UpdateOp<"adamw_update", [
    AllTypesMatch<["param", "exp_avg", "exp_avg_sq"]>,
    TypesMatchWith<"bias_correction1 is a scalar of the parameter's element "
                   "type", "param", "bias_correction1", NN_ScalarOfParam>,
    TypesMatchWith<"bias_correction2 is a scalar of the parameter's element "
                   "type", "param", "bias_correction2", NN_ScalarOfParam>]> {
  let summary = "one AdamW step of a parameter (decoupled weight decay)";
  let description = [{
    The update `torch.optim.AdamW` makes to one parameter, operation by
    operation (so that a step can be checked against it to the bit), with
    `exp_avg` (m) and `exp_avg_sq` (v) its state:

    ```
    g = grad * clip                                 (when clip is given)
    p = param * (1 - lr * weight_decay)             (when weight_decay > 0)
    new_exp_avg = m + (g - m) * (1 - beta1)         (m.lerp_(g, 1 - beta1))
    new_exp_avg_sq = v * beta2 + g * g * (1 - beta2)
    denom = sqrt(new_exp_avg_sq) / sqrt(bias_correction2) + eps
    new_param = p - new_exp_avg / denom * (lr / bias_correction1)
    ```

    `lr`, the bias corrections `1 - beta^t` and the clipping coefficient
    `clip` are 0-d tensors of the parameter's element type, read every
    step; `beta1`, `beta2`, `eps` and `weight_decay` are fixed. The op is
    elementwise over its tensors (the scalars replicated), so ZeRO can
    update each device's block. It has no gradient rule: updates are built
    after differentiation. `-nn-expand-optimizers` rewrites it into the ops
    above.

    ```mlir
    %w1, %m1, %v1 = nn.adamw_update %w, %g state(%m, %v) lr(%lr)
        bias_correction(%bc1, %bc2) clip(%c) weight_decay = 0.01
        : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$param, NN_FloatTensor:$grad,
                       NN_FloatTensor:$exp_avg, NN_FloatTensor:$exp_avg_sq,
                       NN_FloatTensor:$lr, NN_FloatTensor:$bias_correction1,
                       NN_FloatTensor:$bias_correction2,
                       Optional<NN_FloatTensor>:$clip,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs NN_FloatTensor:$new_param, NN_FloatTensor:$new_exp_avg,
                      NN_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `state` `(` $exp_avg `,` $exp_avg_sq `)` `lr` `(` $lr `)`
      `bias_correction` `(` $bias_correction1 `,` $bias_correction2 `)`
      (`clip` `(` $clip^ `)`)? (`beta1` `=` custom<F64Attr>($beta1)^)? (`beta2` `=` custom<F64Attr>($beta2)^)?
      (`eps` `=` custom<F64Attr>($eps)^)? (`weight_decay` `=` custom<F64Attr>($weight_decay)^)?
      attr-dict `:` type($param)
  }];
}

#endif // LOOM_NN_OPTIMIZER_OPS
