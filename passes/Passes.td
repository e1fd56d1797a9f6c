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
    - `planned`: the layouts of weights are already there (written by the
      planner, `loomc --strategy=auto`); the batch is split over every axis
      but `tp` and `pp`, as for `data`.

    Inputs whose batch does not divide by its axes are an error naming the
    input, the dimension and the axes.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"data\"",
           "data, megatron or planned">,
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

def DistBucketCollectives : Pass<"dist-bucket-collectives"> {
  let summary = "Fuse small collectives into buckets of one call each";
  let description = [{
    A training step reduces every gradient (and under ZeRO gathers every
    parameter) on its own; each call pays the network's latency, so (as
    PyTorch DDP and DeepSpeed do) consecutive collectives of one kind, mesh
    group, reduction and element type are packed into buckets of at most
    `bucket-bytes`: all_reduces; all_gathers and reduce_scatters along
    their outermost non-unit dimension. The inputs are flattened and
    concatenated (a reduce-scatter's per device, so that each device's
    blocks stay contiguous), one call runs, and slices give each result
    back. Uses of a result that come before the bucket's last member move
    after the bucket; a member that needs an earlier member's result ends
    the bucket. Bucketing follows program order, so the reduction order,
    and with it every bit of a run, is the same from run to run.

    ```mlir
    // before
    %a = dist.all_reduce sum %x over @m ["dp"] : tensor<16x32xf32>
    %b = dist.all_reduce sum %y over @m ["dp"] : tensor<32xf32>
    // after: one all_reduce of tensor<544xf32>, two slices
    ```
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", "25 << 20",
           "Largest bucket, in bytes (of one device's input)">
  ];
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

def NNBuildTrainingStep : Pass<"nn-build-training-step", "mlir::ModuleOp"> {
  let summary = "Turn a model into one training step: loss, gradients, update";
  let description = [{
    Rewrites the module's public function into one step of training: the
    loss (a scalar result of the model, or the mean cross entropy of a
    logits result against a new integer input), its gradients with respect
    to every float `nn.parameter` not matched by `freeze` (through each op's
    `GradientOpInterface`, one microbatch at a time when `grad-accum` > 1),
    their global L2 norm, clipping, and the optimizer's update (SGD with
    momentum and weight decay, or AdamW, as PyTorch computes them).

    The step takes the model's inputs (with `grad-accum` times the batch)
    and the float scalars `train.lr`, `train.loss_scale` and, for AdamW,
    `train.bias_correction1` and `train.bias_correction2`; it returns
    `loss`, `train.grad_norm` and, per updated tensor, `update:NAME`.
    Optimizer state is new zero-initialised parameters (`adamw.m:NAME`,
    `adamw.v:NAME`, `sgd.momentum:NAME`); each updated parameter carries
    `loom.update`, the name of the result that replaces it after a step. The
    module gets `loom.training`, what the runtime needs to drive the steps.

    With a mesh, `zero` shards the optimizer state (1), also the gradients
    (2) and also the parameters (3) over the mesh axis `dp` by annotations
    that -dist-propagate-sharding and -dist-partition carry out.
  }];
  let options = [
    Option<"loss", "loss", "std::string", "\"\"",
           "The loss: a scalar output's name, or cross_entropy">,
    Option<"logits", "logits", "std::string", "\"\"",
           "With loss=cross_entropy: the output holding the logits">,
    Option<"labels", "labels", "std::string", "\"labels\"",
           "With loss=cross_entropy: the name of the labels input to add">,
    Option<"optimizer", "optimizer", "std::string", "\"adamw\"",
           "sgd or adamw">,
    Option<"lr", "lr", "double", "1e-3", "Learning rate">,
    Option<"momentum", "momentum", "double", "0.0", "SGD momentum">,
    Option<"beta1", "beta1", "double", "0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", "0.999", "AdamW beta2">,
    Option<"eps", "eps", "double", "1e-8", "AdamW epsilon">,
    Option<"weightDecay", "weight-decay", "double", "0.0",
           "Weight decay (decoupled for AdamW, L2 for SGD)">,
    Option<"lrSchedule", "lr-schedule", "std::string", "\"constant\"",
           "constant or cosine">,
    Option<"warmup", "warmup", "int64_t", "0", "Linear warm-up steps">,
    Option<"decaySteps", "decay-steps", "int64_t", "0",
           "Cosine: steps from the end of warm-up to min-lr">,
    Option<"minLr", "min-lr", "double", "0.0", "Cosine: the final rate">,
    Option<"gradAccum", "grad-accum", "int64_t", "1",
           "Microbatches per step">,
    Option<"clipGradNorm", "clip-grad-norm", "double", "0.0",
           "Clip the global gradient norm to this (0: off)">,
    Option<"zero", "zero", "int64_t", "0", "ZeRO stage 0 to 3">,
    Option<"freeze", "freeze", "std::string", "\"\"",
           "Parameters whose whole name matches this regex are not trained">
  ];
  let dependentDialects = ["::loom::nn::NNDialect", "::loom::dist::DistDialect"];
}

def DistTieStateLayouts : Pass<"dist-tie-state-layouts", "mlir::ModuleOp"> {
  let summary = "Lay out each update result like the parameter it replaces";
  let description = [{
    A training step returns, for every parameter it updates, the next value
    (a result named by the parameter's `loom.update`). The runtime swaps the
    two buffers after a step, so both must be the same block of the global
    tensor on every device: this pass, run after -dist-propagate-sharding,
    sets the result's `dist.sharding` to the parameter's layout, and
    -dist-insert-reshards then moves the data if the update was computed in
    another layout (an all_gather after a ZeRO-sharded update).
  }];
}

#endif // LOOM_PASSES
