//===- CostInterface.td - Analytical per-op cost -----------*- tablegen -*-===//

#ifndef LOOM_INTERFACES_COST
#define LOOM_INTERFACES_COST

include "mlir/IR/OpBase.td"

def CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::loom";
  let description = [{
    Counts the work an op does for given operand and result types: floating
    point (or integer) operations, transcendental evaluations, and bytes read
    and written, in the dtype it computes in. A multiply-add counts as two
    operations. The cost model prices these against a device's peak rate and
    memory bandwidth; passing per-device (sharded) types prices one shard.
  }];

  let methods = [
    InterfaceMethod<[{
        Returns the cost of the op evaluated on values of the given types (the
        op's own attributes still apply), or failure when a dimension the
        count depends on is dynamic.
      }],
      "::mlir::FailureOr<::loom::OpCost>", "computeCost",
      (ins "::mlir::TypeRange":$operandTypes, "::mlir::TypeRange":$resultTypes)>,
    InterfaceMethod<"Returns the cost of the op on its own types.",
      "::mlir::FailureOr<::loom::OpCost>", "getCost", (ins), [{}], [{
        return $_op.computeCost($_op->getOperandTypes(), $_op->getResultTypes());
      }]>
  ];
}

#endif // LOOM_INTERFACES_COST
