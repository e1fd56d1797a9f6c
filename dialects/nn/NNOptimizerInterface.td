//===- NNOptimizerInterface.td - Optimizer updates ---------*- tablegen -*-===//

#ifndef LOOM_NN_OPTIMIZER_INTERFACE
#define LOOM_NN_OPTIMIZER_INTERFACE

include "mlir/IR/OpBase.td"

def NN_OptimizerUpdateOpInterface : OpInterface<"OptimizerUpdateOpInterface"> {
  let cppNamespace = "::loom::nn";
  let description = [{
    An op that computes one optimizer step of one parameter: from the
    parameter, its gradient and its optimizer state (tensors of the
    parameter's type) the new parameter and the new state, in the same
    order; the parameter and the gradient are operands 0 and 1. Passes
    that lay out or schedule a training step (ZeRO's sharding of state,
    gradients and parameters) read these operands instead of the
    arithmetic of one optimizer.
  }];
  let methods = [
    InterfaceMethod<"The parameter before the step.", "::mlir::Value",
      "getParam">,
    InterfaceMethod<"The parameter's gradient (before clipping).",
      "::mlir::Value", "getGrad">,
    InterfaceMethod<"The optimizer state before the step.",
      "::mlir::OperandRange", "getState">,
    InterfaceMethod<[{
        The clipping coefficient the gradient is multiplied by first, or
        null.
      }], "::mlir::Value", "getClip">,
    InterfaceMethod<[{
        The clipping coefficient as an optional operand: clearing it and
        passing `grad * clip` as the gradient computes the same step.
      }], "::mlir::MutableOperandRange", "getClipMutable">,
    InterfaceMethod<"The parameter after the step.", "::mlir::Value",
      "getNewParam">,
    InterfaceMethod<"The optimizer state after the step, one per state operand.",
      "::mlir::ResultRange", "getNewState">
  ];
}

#endif // LOOM_NN_OPTIMIZER_INTERFACE
