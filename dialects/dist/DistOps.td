//===- DistOps.td - dist dialect operations ----------------*- tablegen -*-===//

#ifndef LOOM_DIST_OPS
#define LOOM_DIST_OPS

include "dist/DistBase.td"
include "interfaces/CostInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Dist_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dist_Dialect, mnemonic, traits>;

def Dist_MeshOp : Dist_Op<"mesh", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "a named arrangement of devices";
  let description = [{
    Declares a logical device mesh: named axes, major to minor, whose sizes
    multiply to the number of ranks. Each axis is tagged with the link its
    collectives run over, so the cost model prices a `tp` all-reduce over
    NVLink and a `dp` all-reduce over InfiniBand differently.

    ```mlir
    dist.mesh @cluster axes [<"dp" = 2, inter_node, bandwidth = 25>,
                             <"tp" = 4, intra_node, bandwidth = 450, latency = 2.5>]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypedArrayAttrBase<Dist_MeshAxisAttr, "mesh axes">:$axes);
  let assemblyFormat = "$sym_name `axes` custom<MeshAxes>($axes) attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis named `name`, or null.
    MeshAxisAttr getAxis(::llvm::StringRef name);
    /// Product of the sizes of `axes` (each must exist).
    int64_t getGroupSize(::llvm::ArrayRef<::mlir::StringAttr> axes);
    /// Number of devices in the mesh.
    int64_t getNumDevices();
  }];
}

def Dist_AnnotateOp : Dist_Op<"annotate", [Pure, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<CostOpInterface>]> {
  let summary = "pin the sharding of a value";
  let description = [{
    Returns its operand unchanged and states that the value must have
    `sharding` at this point: a user constraint that propagation respects and
    partitioning realises (inserting a reshard when the producer's sharding
    differs).

    ```mlir
  }] # "  %y = dist.annotate %x <@m, [{\"dp\"}, {\"tp\"}]> : tensor<8x64xf32>\n" # [{
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Dist_ShardingAttr:$sharding);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input $sharding attr-dict `:` type($input)";
}

def Dist_ReshardOp : Dist_Op<"reshard", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "change how a value is laid out over the mesh";
  let description = [{
    The value is unchanged; its layout goes from `from` to `to`. Propagation
    and reshard insertion put one wherever a consumer needs a layout its
    producer does not have; `-dist-lower-reshards` turns it into collectives
    (a partial value into an all-reduce or reduce-scatter, a split dimension
    made whole into an all-gather, a split moved between dimensions into an
    all-to-all, a whole dimension split into `dist.take_shard`).

    In a global program operand and result have the global type. After
    `-dist-partition` they have the per-device types of the two layouts.

    ```mlir
  }] # "  %y = dist.reshard %x <@m, [{}, {}], partial = {\"tp\"}> -> <@m, [{}, {}]>\n"
     # "      : tensor<8x64xf32> -> tensor<8x64xf32>\n" # [{
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Dist_ShardingAttr:$from,
                       Dist_ShardingAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input $from `->` $to attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "ShardingAttr":$from,
                   "ShardingAttr":$to), [{
      build($_builder, $_state, input.getType(), input, from, to);
    }]>
  ];
}

def Dist_TakeShardOp : Dist_Op<"take_shard", [Pure,
    SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "keep this device's block of a dimension (no communication)";
  let description = [{
    The operand is the same on every device of the group (replicated along
    `mesh_axes`); each keeps block `i` of dimension `dim`, where `i` is its
    index in the group (first axis major). The inverse of `dist.all_gather`.

    ```mlir
    %y = dist.take_shard %x over @m ["tp"] dim = 1 : tensor<4x64xf32> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$mesh_axes, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `over` $mesh $mesh_axes `dim` `=` $dim attr-dict `:` type($input)
      `->` type($result)
  }];
  let extraClassDeclaration = [{
    MeshOp getMeshOp(::mlir::SymbolTableCollection &symbols) {
      return symbols.lookupNearestSymbolFrom<MeshOp>(getOperation(),
                                                     getMeshAttr());
    }
  }];
}

// Collectives act on the per-device values of one rank; `mesh_axes` names
// the device groups (devices that differ only in those coordinates).
class Dist_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Dist_Op<mnemonic, !listconcat(traits,
          [DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  let extraClassDeclaration = [{
    /// The mesh this collective runs over (null before symbol verification).
    MeshOp getMeshOp(::mlir::SymbolTableCollection &symbols);
  }];
  let extraClassDefinition = [{
    MeshOp $cppClass::getMeshOp(::mlir::SymbolTableCollection &symbols) {
      return symbols.lookupNearestSymbolFrom<MeshOp>(getOperation(),
                                                     getMeshAttr());
    }
  }];
}

def Dist_AllReduceOp : Dist_CollectiveOp<"all_reduce",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "combine values across a device group; everyone gets the result";
  let description = [{
    ```mlir
    %y = dist.all_reduce sum %x over @m ["tp"] : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins Loom_ReductionKind:$reduction, AnyRankedTensor:$input,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$mesh_axes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $reduction $input `over` $mesh $mesh_axes attr-dict `:` type($input)
  }];
}

def Dist_AllGatherOp : Dist_CollectiveOp<"all_gather",
    [SameOperandsAndResultElementType]> {
  let summary = "concatenate the group's values along a dimension";
  let description = [{
    Result dimension `dim` is the operand's times the group size, in group
    order (the first axis major); other dimensions are unchanged.

    ```mlir
    %y = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<4x16xf32> -> tensor<4x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$mesh_axes, I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `over` $mesh $mesh_axes `dim` `=` $dim attr-dict `:` type($input)
      `->` type($result)
  }];
}

def Dist_ReduceScatterOp : Dist_CollectiveOp<"reduce_scatter",
    [SameOperandsAndResultElementType]> {
  let summary = "combine across the group and keep one block of the result each";
  let description = [{
    Equal to an all-reduce followed by each device keeping its block of
    dimension `dim`, which must divide by the group size.

    ```mlir
    %y = dist.reduce_scatter sum %x over @m ["dp"] dim = 0 : tensor<64x8xf32> -> tensor<32x8xf32>
    ```
  }];
  let arguments = (ins Loom_ReductionKind:$reduction, AnyRankedTensor:$input,
                       FlatSymbolRefAttr:$mesh, StrArrayAttr:$mesh_axes,
                       I64Attr:$dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $reduction $input `over` $mesh $mesh_axes `dim` `=` $dim attr-dict `:`
      type($input) `->` type($result)
  }];
}

def Dist_AllToAllOp : Dist_CollectiveOp<"all_to_all",
    [SameOperandsAndResultElementType]> {
  let summary = "move a split from one dimension to another";
  let description = [{
    Each device cuts dimension `split_dim` into group-size blocks, sends
    block `j` to the `j`-th device of its group, and concatenates what it
    receives along `concat_dim`.

    ```mlir
    %y = dist.all_to_all %x over @m ["tp"] split_dim = 1 concat_dim = 0
        : tensor<4x64xf32> -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$mesh_axes, I64Attr:$split_dim,
                       I64Attr:$concat_dim);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `over` $mesh $mesh_axes `split_dim` `=` $split_dim `concat_dim` `=`
      $concat_dim attr-dict `:` type($input) `->` type($result)
  }];
}

def Dist_BroadcastOp : Dist_CollectiveOp<"broadcast",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "copy one device's value to its whole group";
  let description = [{
    `root` gives the source's coordinate along each of `mesh_axes`.

    ```mlir
    %y = dist.broadcast %x over @m ["dp"] root = [0] : tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$mesh_axes, DenseI64ArrayAttr:$root);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `over` $mesh $mesh_axes `root` `=` $root attr-dict `:` type($input)
  }];
}

def Dist_CollectivePermuteOp : Dist_CollectiveOp<"collective_permute",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "send to and receive from given peers in the group";
  let description = [{
    Each pair `source -> target` (indices within the group, first axis
    major) sends the source's value to the target. A device that is no
    pair's target receives zeros. Sources are distinct, and so are targets.

    ```mlir
    %y = dist.collective_permute %x over @m ["pp"] pairs = [0 -> 1, 1 -> 2, 2 -> 3]
        : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$mesh_axes, DenseI64ArrayAttr:$pairs);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `over` $mesh $mesh_axes `pairs` `=` custom<PermutePairs>($pairs)
      attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// Pipeline: point-to-point transfers between stages
//===----------------------------------------------------------------------===//

def Dist_SendOp : Dist_CollectiveOp<"send", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "send a value to another pipeline stage";
  let description = [{
    Sends this device's value to member `peer` (an index within the group
    of `mesh_axes`, the pipeline axis) under `tag`. The matching
    `dist.recv` on the peer names this device's index and the same tag;
    transfers with one tag between two devices arrive in the order they
    were sent. A send never waits for its receiver (the runtime copies the
    value out), so any schedule whose receives follow their sends in the
    order of the units runs without deadlock. It has effects, so it is
    neither erased nor merged.

    `layout`, when given, is how the value crosses: each device sends its
    own block of it in that layout (split along the data axes, say), and
    the matching `dist.recv` records the same layout on its result, so
    nothing is gathered to cross a stage boundary. Without it the value
    crosses whole.

    ```mlir
    dist.send %act to 1 over @m ["pp"] tag = 3
        layout <@m, [{"dp"}, {}, {} ]> : tensor<8x16x32xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$mesh_axes, I64Attr:$peer, I64Attr:$tag,
                       OptionalAttr<Dist_ShardingAttr>:$layout);
  let assemblyFormat = [{
    $input `to` $peer `over` $mesh $mesh_axes `tag` `=` $tag
      (`layout` $layout^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Dist_RecvOp : Dist_CollectiveOp<"recv", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "receive a value from another pipeline stage";
  let description = [{
    Waits for the value member `peer` of the group sent under `tag`
    (`dist.send`) and returns it. The runtime bounds the wait with the
    collective timeout and names the peer when it is gone.

    ```mlir
    %act = dist.recv from 0 over @m ["pp"] tag = 3 : tensor<8x16x32xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrArrayAttr:$mesh_axes,
                       I64Attr:$peer, I64Attr:$tag);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    `from` $peer `over` $mesh $mesh_axes `tag` `=` $tag attr-dict `:`
      type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Recomputation
//===----------------------------------------------------------------------===//

def Dist_RecomputeOp : Dist_Op<"recompute", [AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemWrite]>]> {
  let summary = "where a backward unit starts recomputing from a kept value";
  let description = [{
    Returns its operand: a value the forward unit kept (a checkpoint) that
    a backward unit recomputes forward ops from. It is a barrier: the ops
    recomputed from its result differ from the first run's, so that
    canonicalization and CSE cannot merge the two runs and bring back the
    activations recomputation let go. The value keeps its layout
    (partial sums included); `-convert-dist-to-runtime` removes the op,
    after the last merging of tensor ops.

    ```mlir
    %x1 = dist.recompute %x : tensor<8x16x32xf32>
    %h1 = nn.layer_norm %x1, %g, %b ...
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Pipeline: the microbatch loop
//===----------------------------------------------------------------------===//

def Dist_MicrobatchesOp : Dist_Op<"microbatches", [SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "run a body once per microbatch and sum what it yields";
  let description = [{
    Splits each of `inputs` along dimension 0 into `count` microbatches and
    runs the body once per microbatch, on block arguments of the
    microbatch types; each result is the sum, over the microbatches in
    order, of the value the body yields for it (microbatch 0 first, each
    next one added to the running sum). The body may use values defined
    above (parameters, scalars).

    Microbatch `k` of an input holds its rows `k, k + count, k + 2 count,
    ...`: a batch split over devices along dimension 0 (a data-parallel
    layout) then gives every device whole microbatches of its own rows, so
    splitting needs no data movement. The training step uses it for
    gradient accumulation (the body is one microbatch's forward and
    backward pass, yielding its gradients and loss); it is the loop that a
    pipeline schedule orders. `-dist-unroll-microbatches` unrolls it.

    ```mlir
    %g, %l = dist.microbatches 2 (%xk = %x) : (tensor<16x4xf32>)
        -> (tensor<4x2xf32>, tensor<f32>) {
      %y = nn.matmul %xk, %w : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
      ...
      dist.yield %gw, %loss : tensor<4x2xf32>, tensor<f32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$count);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs, "int64_t":$count)>
  ];
  let extraClassDeclaration = [{
    /// The type of one of `count` microbatches of a tensor of `type`, or
    /// null when its dimension 0 does not divide.
    static ::mlir::RankedTensorType getMicrobatchType(
        ::mlir::RankedTensorType type, int64_t count);
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    YieldOp getYield();
  }];
}

def Dist_YieldOp : Dist_Op<"yield", [Pure, Terminator,
    HasParent<"MicrobatchesOp">]> {
  let summary = "the values one microbatch contributes to the sums";
  let description = [{
    Ends the body of `dist.microbatches`: one value per result of the loop,
    of the result's type.

    ```mlir
    dist.yield %gw, %loss : tensor<4x2xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

#endif // LOOM_DIST_OPS
