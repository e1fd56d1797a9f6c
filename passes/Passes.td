//===- Passes.td - Loom passes -----------------------------*- tablegen -*-===//

#ifndef LOOM_PASSES
#define LOOM_PASSES

include "mlir/Pass/PassBase.td"

def NNPrintCost : Pass<"nn-print-cost", "mlir::ModuleOp"> {
  let summary = "Print the FLOPs and bytes of every function, op by op";
  let description = [{
    Queries `CostOpInterface` on every op and prints, per function, a table
    of operations, transcendental evaluations, and bytes read and written,
    followed by totals per compute dtype. The IR is left unchanged; the
    report goes to standard error so that it can sit beside the printed IR.

    ```
    cost of @mlp (4 ops)
      op           location      flops  trans  read  written  dtype
      nn.matmul    mlp.mlir:5:10  16384   0      5120  1024     f32
      ...
    total: 17408 FLOPs (f32: 17408), 0 transcendentals, 6272 B read, 2048 B written
    ```
  }];
  let options = [
    Option<"perOp", "per-op", "bool", /*default=*/"true",
           "Print one row per op, not only the totals">
  ];
  let statistics = [
    Statistic<"numPriced", "priced-ops", "Ops whose cost was counted">,
    Statistic<"numUnpriced", "unpriced-ops",
              "Ops without a cost (no interface or a dynamic shape)">
  ];
}

def NNPrintShardingRules : Pass<"nn-print-sharding-rules"> {
  let summary = "Report the sharding rule of every op as a remark";
  let description = [{
    Emits a remark on each op implementing `ShardingRuleOpInterface` with its
    rule in Shardy-like notation, and an error if the rule does not match the
    op's types (a bug in the op's rule). For reading how a model may be
    split, and for testing the rules.

    ```mlir
    // remark: nn.matmul: ([i, k], [k, j]) -> ([i, j]) {i=4, j=8, k=16} reduction={k}
    %y = nn.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

#endif // LOOM_PASSES
