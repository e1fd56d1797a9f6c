//===- Passes.td - nn passes -------------------------------*- tablegen -*-===//
//
// The nn-level passes: analyses, idioms, autodiff.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_NN_PASSES
#define LOOM_PASSES_NN_PASSES

include "mlir/Pass/PassBase.td"

def NNPrintCost : Pass<"nn-print-cost", "mlir::ModuleOp"> {
  let summary = "Print the FLOPs and bytes of every function, op by op";
  let description = [{
    Queries `CostOpInterface` on every op and prints, per function, a table
    of operations, transcendental evaluations, and bytes read and written,
    followed by totals per compute dtype. The IR is left unchanged; the
    report goes to standard error so that it can sit beside the printed IR.

    ```
    cost of @mlp (5 ops)
      op             location          flops  trans  read  written dtype
      nn.matmul      mlp.mlir:17:8     16384      0  4608     2048 f32
      ...
      total: 27136 FLOPs (f32: 27136), 512 transcendentals, 13056 B read, 6400 B written
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

def NNRecognizeIdioms : Pass<"nn-recognize-idioms"> {
  let summary = "Raise exported op sequences to single nn ops";
  let description = [{
    Exporters decompose operators that `nn` has as single ops. This pass
    recognises the decompositions and replaces them, so that later passes
    (sharding, fusion, autodiff) see one op with one rule:

    - LayerNorm: `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)` over
      trailing axes (also with `* rsqrt(...)`), then an optional multiply by
      a scale and add of a bias of the normalised shape, becomes
      `nn.layer_norm`.
    - erf-GELU: `x * 0.5 * (1 + erf(x / sqrt(2)))` in any association and
      order (also `x * 0.7071...`), becomes `nn.gelu`.

    ```mlir
    // before
    %m = nn.reduce_mean %x axes = [1] {keepdims = true} ...
    %d = nn.sub %x, %m ...
    ...
    %y = nn.div %d, %s ...
    // after
    %y = nn.layer_norm %x axis = 1 {epsilon = ...} : tensor<4x64xf32>
    ```
  }];
  let constructor = "::loom::createNNRecognizeIdioms()";
  let statistics = [
    Statistic<"numLayerNorms", "layer-norms", "LayerNorm decompositions raised">,
    Statistic<"numGelus", "gelus", "erf-GELU decompositions raised">
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

//===----------------------------------------------------------------------===//
// Distribution
//===----------------------------------------------------------------------===//

def NNAutodiff : Pass<"nn-autodiff", "mlir::ModuleOp"> {
  let summary = "Add the gradients of a scalar loss to every public function";
  let description = [{
    Reverse-mode differentiation over `nn`: the first result of each public
    function is the loss (a float scalar); walking the body backwards, each
    op's `GradientOpInterface` turns the gradients of its results into those
    of its operands (gradients meeting at a value are added). The gradients
    of the float `nn.parameter`s (`wrt=parameters`, the default) or of the
    float arguments (`wrt=arguments`) become extra results, in order, named
    `grad:NAME`. An op on the way without a gradient rule is an error naming
    it.

    ```mlir
    // before
    func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
      %y = nn.exp %x : tensor<4xf64>
      %l = nn.reduce_sum %y axes = [0] : tensor<4xf64> -> tensor<f64>
      return %l : tensor<f64>
    }
    // after -nn-autodiff="wrt=arguments": returns (%l, d%l/d%x) where
    // d%l/d%x = broadcast(1) * exp(x)
    ```
  }];
  let options = [
    Option<"wrt", "wrt", "std::string", /*default=*/"\"parameters\"",
           "parameters or arguments">
  ];
}

#endif // LOOM_PASSES_NN_PASSES
