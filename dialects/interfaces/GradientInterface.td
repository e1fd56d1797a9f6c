//===- GradientInterface.td - Vector-Jacobian products -----*- tablegen -*-===//

#ifndef LOOM_INTERFACES_GRADIENT
#define LOOM_INTERFACES_GRADIENT

include "mlir/IR/OpBase.td"

def GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::loom";
  let description = [{
    The vector-Jacobian product of an op, built from other ops of its
    dialect. Given the gradients flowing into the op's results (null where a
    result does not reach the loss; at least one is not), `buildVJP` creates
    the ops computing the gradient of every differentiable operand and
    stores them in `operandGradients`, which the caller sizes to the
    operands and fills with null (left null for non-differentiable operands
    such as integer indices).
    The autodiff pass walks a scalar loss backwards through this interface;
    an op that does not implement it stops differentiation with a diagnostic.
  }];

  let methods = [
    InterfaceMethod<
      "Builds the gradients of the operands from the gradients of the results.",
      "::mlir::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>
  ];
}

#endif // LOOM_INTERFACES_GRADIENT
