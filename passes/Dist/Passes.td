//===- Passes.td - dist passes -----------------------------*- tablegen -*-===//
//
// The distribution passes: strategies, propagation, partitioning, collectives.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_DIST_PASSES
#define LOOM_PASSES_DIST_PASSES

include "mlir/Pass/PassBase.td"

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
  let options = [
    Option<"remarks", "remarks", "bool", "true",
           "Report conflicts resolved by priority as remarks (a second run "
           "over layouts already propagated has nothing new to say)">
  ];
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

def DistTieStateLayouts : Pass<"dist-tie-state-layouts", "mlir::ModuleOp"> {
  let summary = "Lay out each update result like the parameter it replaces";
  let description = [{
    A training step returns, for every parameter it updates, the next value
    (a result named by the parameter's `nn.update`). The runtime swaps the
    two buffers after a step, so both must be the same block of the global
    tensor on every device: this pass, run after -dist-propagate-sharding,
    sets the result's `dist.sharding` to the parameter's layout, and
    -dist-insert-reshards then moves the data if the update was computed in
    another layout (an all_gather after a ZeRO-sharded update).
  }];
}

def DistZeroLayouts : Pass<"dist-zero-layouts", "mlir::ModuleOp"> {
  let summary = "Lay out a training step for data parallelism and ZeRO";
  let description = [{
    Runs on a training step (after -nn-build-training-step, before
    -nn-expand-optimizers and -dist-propagate-sharding) and writes the
    layouts that distribute it over the data axes: the mesh axes that
    split dimension 0 of the step's data inputs (the layouts
    -dist-apply-strategy wrote on them), axes of size 1 left out. Every
    other axis of size > 1 is a model axis. Nothing happens without data
    axes. The pass reads the parameter, gradient and state operands of the
    optimizer update ops (`OptimizerUpdateOpInterface`):

    - every stage: each gradient is pinned where it is made (the value the
      update reads, before the norm and clipping use it): replicated, so
      that it is all-reduced once (unless the mesh has a model axis), or
      from stage 2 split, so that it is reduce-scattered;
    - stage >= 1: the optimizer state is split (ZeRO's layout: the data
      axes on the first dimension they divide); below stage 3 the update
      reads its block of the parameter (which, without a model axis, stays
      whole), below stage 2 its block of the clipped gradient (the
      multiplication by the clipping coefficient, the first the update
      would do, moves out of it);
    - stage 3: the parameter itself is split, and every use but the update
      reads it through an all-gathering annotation.

    The stage is recorded as `zero` in the module's `#nn.training`.

    ```mlir
    // before (stage 1, data axis "data" of size 2)
    %g = nn.mul %gw, %inv : tensor<8x4xf32>, tensor<f32>
    %w1, %m1, %v1 = nn.adamw_update %w, %g state(%m, %v) ... : tensor<8x4xf32>
    // after (and the state parameters %m, %v laid out split like %ws)
    %0 = nn.mul %gw, %inv : tensor<8x4xf32>, tensor<f32>
  }] # "  %g = dist.annotate %0 <@mesh, [{}, {}]> : tensor<8x4xf32>\n"
     # "  %ws = dist.annotate %w <@mesh, [{\"data\"}, {}]> : tensor<8x4xf32>\n"
     # "  %gs = dist.annotate %g <@mesh, [{\"data\"}, {}]> : tensor<8x4xf32>\n"
     # [{
    %w1, %m1, %v1 = nn.adamw_update %ws, %gs state(%m, %v) ... : tensor<8x4xf32>
    ```
  }];
  let options = [
    Option<"stage", "stage", "int64_t", "0",
           "ZeRO stage: 0 (data parallel), 1 (state split), 2 (also "
           "gradients), 3 (also parameters)">
  ];
  let dependentDialects = ["::loom::dist::DistDialect"];
}

def DistAssignStages : Pass<"dist-assign-stages", "mlir::ModuleOp"> {
  let summary = "Cut a model into pipeline stages of about equal cost";
  let description = [{
    Marks every op of each public function that computes from the inputs or
    the parameters with `dist.stage`: the ops, in program order, are cut
    into `stages` runs of about equal cost (the ops' `Cost` interface), each
    cut placed, within an eighth of a stage's cost of its ideal point,
    where the fewest bytes cross it (between layers, where only the
    residual stream does). Ops computed from constants alone are left
    unmarked: every stage computes them. A function whose ops already carry
    `dist.stage` (the planner's, or the user's) is checked, not changed.

    ```mlir
    %h = nn.matmul %x, %w1 {dist.stage = 0 : i64} ...
    %y = nn.matmul %h, %w2 {dist.stage = 1 : i64} ...
    ```
  }];
  let options = [
    Option<"stages", "stages", "int64_t", "1", "Number of pipeline stages">
  ];
  let dependentDialects = ["::loom::dist::DistDialect"];
}

def DistSplitStages : Pass<"dist-split-stages", "mlir::ModuleOp"> {
  let summary = "Keep one pipeline stage of a training step";
  let description = [{
    Runs on a training step whose forward ops carry `dist.stage` and whose
    forward and backward pass sit in a `dist.microbatches` loop, and keeps
    what stage `stage` computes: its ops of the loop (each microbatch's
    forward ops, and the backward ops that inherited their stage), the
    updates of its parameters, and the step's outputs (the loss and the
    gradient norm on every stage; its own parameters' updates). Every value
    a kept op needs from another stage crosses as `dist.send` on the stage
    that makes it and `dist.recv` on the stage that uses it, over the mesh
    axis `axis`, tagged by its index in a list every stage builds alike.
    Scalars outside the loop (the parts of the gradient norm, the clipping
    coefficient, the loss) cross the same way, each in the layout
    propagation gave it before the split. With `chunks` > 1 (interleaved)
    the ops of virtual stage v run on stage v % stages and values cross
    only between stages. A trained parameter several stages use (a tied
    embedding) keeps a copy on each: the stage that computes its update
    sends it to the others, which return it too. Every op left in the loop
    carries its virtual stage; what depends on no stage moves before the
    loop or runs with its first user. The module gets `#dist.pipeline`,
    which -dist-unroll-microbatches reads to order the units.

    ```mlir
    // stage 0 of 2, in the loop body
    %h = nn.matmul %xk, %w1 {dist.stage = 0 : i64} ...
    dist.send %h to 1 over @mesh ["pp"] tag = 0 : tensor<8x16xf32>
    %gh = dist.recv from 1 over @mesh ["pp"] tag = 1 {dist.backward}
        : tensor<8x16xf32>
    ```
  }];
  let options = [
    Option<"stages", "stages", "int64_t", "2", "Number of pipeline stages">,
    Option<"stage", "stage", "int64_t", "0", "The stage to keep">,
    Option<"schedule", "schedule", "std::string", "\"1f1b\"",
           "gpipe, 1f1b, interleaved or zb1p (recorded for "
           "-dist-unroll-microbatches)">,
    Option<"recompute", "recompute", "std::string", "\"off\"",
           "off, full or selective (recorded)">,
    Option<"axis", "axis", "std::string", "\"pp\"",
           "The mesh axis whose coordinate is the stage">,
    Option<"chunks", "chunks", "int64_t", "1",
           "Model chunks per stage (interleaved): the ops of virtual stage "
           "v run on stage v % stages">
  ];
  let dependentDialects = ["::loom::dist::DistDialect"];
}

def DistUnrollMicrobatches : Pass<"dist-unroll-microbatches"> {
  let summary = "Unroll the microbatch loop into one copy of its body each";
  let description = [{
    Replaces every `dist.microbatches` loop with straight code: the inputs
    cut into their microbatches (microbatch `k` holds rows `k, k + count,
    ...`, as a reshape to `[rows / count, count, ...]` and a slice per
    microbatch), the body cloned once per microbatch in order, and each
    result the sum of the yielded values, added in microbatch order.

    ```mlir
    // before
    %g = dist.microbatches 2 (%xk = %x) : (tensor<16x4xf32>)
        -> (tensor<4x2xf32>) {
      %gk = ... %xk ...
      dist.yield %gk : tensor<4x2xf32>
    }
    // after
    %r = nn.reshape %x [8, 2, 4] : tensor<16x4xf32> -> tensor<8x2x4xf32>
    %s0 = nn.slice %r offsets = [0, 0, 0] sizes = [8, 1, 4] strides = [1, 1, 1]
        : tensor<8x2x4xf32> -> tensor<8x1x4xf32>
    %x0 = nn.reshape %s0 [8, 4] : tensor<8x1x4xf32> -> tensor<8x4xf32>
    %s1 = nn.slice %r offsets = [0, 1, 0] ...
    %x1 = nn.reshape %s1 [8, 4] : tensor<8x1x4xf32> -> tensor<8x4xf32>
    %g0 = ... %x0 ...
    %g1 = ... %x1 ...
    %g = nn.add %g0, %g1 : tensor<4x2xf32>, tensor<4x2xf32>
    ```

    Each microbatch's body runs as units: its forward ops and its backward
    ops (`dist.backward`, and what uses them). In a stage of a pipelined
    step (`#dist.pipeline` on the module) the schedule orders them:
    `gpipe` runs every forward unit, then every backward unit; `1f1b` runs
    `stages - stage - 1` forward units, then one forward and one backward
    unit in turn, then the remaining backward units; `zb1p` (ZB-H1) splits
    each backward unit into the ops the gradients sent to the previous
    stage need (B) and the rest, the weight gradients (W), and puts off up
    to `stage` W units to fill the waits; `interleaved` runs the units of
    every model chunk the stage holds (ops whose `dist.stage` is
    `stage + chunk * stages`) in Megatron's interleaved order. The order is
    checked for every stage: a schedule whose receives could wait forever
    is an error naming the stuck unit.

    Recomputation (`recompute`, or the pipeline's): with `full` a backward
    unit reruns the forward ops it needs from the values kept at the cuts
    where one activation is live (between layers), one segment at a time,
    right before the first backward op that needs them; `selective` keeps
    the results of matrix products and convolutions and reruns the cheap
    ops between them. Recomputed ops start from `dist.recompute` barriers,
    so that nothing merges them with the first run, and the forward unit's
    other activations die at its end.

    ```mlir
    // recompute=full, in the backward unit of microbatch 0
    %x1 = dist.recompute %x0 : tensor<8x16x32xf32>
    %n1 = nn.layer_norm %x1, %g, %b ...   // the forward op, again
    %dn = ... %n1 ...                      // its backward op uses it
    ```
  }];
  let options = [
    Option<"printUnits", "print-units", "bool", "false",
           "Report each stage's unit order as a remark">,
    Option<"recompute", "recompute", "::loom::dist::Recompute",
           "::loom::dist::Recompute::Off",
           "Activation recomputation when the module has no #dist.pipeline",
           [{::llvm::cl::values(
             clEnumValN(::loom::dist::Recompute::Off, "off",
                        "keep every activation"),
             clEnumValN(::loom::dist::Recompute::Full, "full",
                        "keep layer inputs, rerun the layers"),
             clEnumValN(::loom::dist::Recompute::Selective, "selective",
                        "keep matrix products, rerun the cheap ops"))}]>
  ];
  let statistics = [
    Statistic<"numRecomputed", "recomputed-ops",
              "Forward ops run again in backward units">,
    Statistic<"numCheckpoints", "checkpoints",
              "Values kept for recomputation, per microbatch">
  ];
  let dependentDialects = ["::loom::nn::NNDialect",
                           "::loom::dist::DistDialect"];
}

#endif // LOOM_PASSES_DIST_PASSES
