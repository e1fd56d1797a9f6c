//===- ShardingRuleInterface.td - Per-op sharding rules ----*- tablegen -*-===//

#ifndef LOOM_INTERFACES_SHARDINGRULE
#define LOOM_INTERFACES_SHARDINGRULE

include "mlir/IR/OpBase.td"

def ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::loom";
  let description = [{
    States how an op's tensor dimensions may be split across devices, as
    named *factors* (einsum-like). Every dimension of every operand and result
    is the product of zero or more factors, major to minor. A factor that
    appears in a result is *parallel*: splitting it splits the result. A
    factor that appears only in operands is a *reduction* factor: splitting it
    leaves each device with a partial result, combined with the factor's
    reduction kind. A factor marked *replicated* must not be split: the op
    needs the whole extent on every device (softmax's axis, a convolution's
    spatial window).

    Matmul `tensor<2x4x8xf32> x tensor<2x8x16xf32>` states

    ```
    ([i, j, k], [i, k, l]) -> ([i, j, l]) {i=2, j=4, k=8, l=16} reduction={k}
    ```

    Propagation and partitioning (`passes/`) are derived from the rule alone,
    so a new op only has to state its rule.
  }];

  let methods = [
    InterfaceMethod<
      "Returns the op's sharding rule for its current operand and result types.",
      "::loom::ShardingRule", "getShardingRule", (ins)>
  ];
}

#endif // LOOM_INTERFACES_SHARDINGRULE
