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

def DistApplyStrategy : Pass<"dist-apply-strategy", "mlir::ModuleOp"> {
  let summary = "Annotate a model with a parallelisation strategy";
  let description = [{
    Writes the layouts a strategy implies onto the public functions, for
    -dist-propagate-sharding to spread. The mesh is the module's `dist.mesh`
    (created from `mesh` when there is none; `loomc --mesh` creates it with
    the links of the cluster description).

    - `data`: the batch (dimension 0 of every input whose dimension 0 equals
      the first input's) is split over all mesh axes; parameters stay whole.
    - `megatron`: matmuls against 2-D parameters are paired column-then-row
      over the axis named `tp`: a matmul whose left operand depends (through
      anything but another parameter matmul or a layer norm) only on
      not-yet-paired column matmuls is a row matmul, and those are its
      columns (an MLP's two layers; attention's Q, K, V and output
      projection, whose heads then follow from propagation through the
      reshapes). Column weights are split along their second
      dimension over `tp`, row weights along their first; unpaired matmuls
      stay whole. The batch is split over
      the remaining axes, as for `data`.

    Inputs whose batch does not divide by its axes are an error naming the
    input, the dimension and the axes.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"data\"",
           "data or megatron">,
    Option<"meshSpec", "mesh", "std::string", /*default=*/"\"\"",
           "Axes as NAME=SIZE,... when the module has no dist.mesh">
  ];
  let dependentDialects = ["::loom::dist::DistDialect"];
}

def DistPropagateSharding : Pass<"dist-propagate-sharding", "mlir::ModuleOp"> {
  let summary = "Spread layouts through every op by its sharding rule";
  let description = [{
    From the layouts written on function arguments and results,
    `dist.annotate` ops and `dist.shardings` already on ops, carries mesh
    axes through each op's sharding rule, forwards and backwards, until
    nothing changes; then records a layout for every op result
    (`dist.shardings`) and for arguments and results that are split. A
    reduction factor that ends up split makes the result partial.

    Conflicts are resolved by priority: layouts a user wrote beat propagated
    ones; then operands beat results; then the earlier operand. Each
    conflict is reported as a remark on the op naming the factor, the
    tensors and the layout kept. Factors the rule marks replicated are
    never split.
  }];
  let dependentDialects = ["::loom::dist::DistDialect"];
}

def DistInsertReshards : Pass<"dist-insert-reshards", "mlir::ModuleOp"> {
  let summary = "Insert a dist.reshard wherever a consumer needs another layout";
  let description = [{
    Derives each op's factor split from its result layouts and its rule, and
    inserts `dist.reshard` before operands whose layout differs from what
    the op needs (a partial sum before a consumer, a split softmax axis, a
    matmul's contracted dimension split differently on its operands), before
    `dist.annotate` and before the return when a result layout differs.
  }];
  let dependentDialects = ["::loom::dist::DistDialect"];
}

def DistPartition : Pass<"dist-partition", "mlir::ModuleOp"> {
  let summary = "Rewrite a laid-out function into the program of one device";
  let description = [{
    Gives every value the type of one device's block, rewrites the
    attributes that spell shapes (reshape, broadcast, slice sizes,
    convolution groups), removes annotations, cuts parameters, non-splat
    constants and ranges with `dist.take_shard`, and marks the function
    `dist.spmd`. Reshards keep their layouts with per-device types.
  }];
  let dependentDialects = ["::loom::dist::DistDialect"];
}

def DistLowerReshards : Pass<"dist-lower-reshards", "mlir::ModuleOp"> {
  let summary = "Turn per-device reshards into collectives";
  let description = [{
    Partial axes the target drops become a reduce-scatter (when the target
    splits a dimension by them next) or an all-reduce; axes a dimension
    loses become an all-to-all (when another dimension takes the axis) or an
    all-gather; axes a dimension gains become `dist.take_shard`.
  }];
}

def DistSimplifyCollectives : Pass<"dist-simplify-collectives"> {
  let summary = "Merge and cancel redundant collectives";
  let description = [{
    Removes collectives over one device, cancels all_gather/take_shard pairs
    of one block, turns all_reduce + take_shard into reduce_scatter and
    all_gather + take_shard along another dimension into all_to_all, and
    merges consecutive all_reduces (and all_gathers or take_shards of one
    dimension) into one over both groups.
  }];
}

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

#endif // LOOM_PASSES
