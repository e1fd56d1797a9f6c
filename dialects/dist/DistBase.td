//===- DistBase.td - The dist dialect and its attributes ---*- tablegen -*-===//

#ifndef LOOM_DIST_BASE
#define LOOM_DIST_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "interfaces/LoomEnums.td"
include "dist/DistEnums.td"

def Dist_Dialect : Dialect {
  let name = "dist";
  let cppNamespace = "::loom::dist";
  let summary = "Meshes, shardings and collectives: where each tensor lives";
  let description = [{
    The `dist` dialect is the distribution vocabulary of Loom. A
    `dist.mesh` names the axes devices are arranged along and the links they
    talk over. A `#dist.sharding` says, for each dimension of a tensor, which
    mesh axes split it, and over which axes the value is still an unreduced
    partial result. Collectives move data over named mesh axes.

    Shardings are attached to function arguments and results with the
    `dist.sharding` attribute, to op results with `dist.shardings` (one per
    result), and pinned inside a body with `dist.annotate`.

    The other discardable attributes:

    - `dist.spmd` (unit, on a function): the function is partitioned; its
      values have per-device types (-dist-partition).
    - `dist.stage` (integer, on an op): the pipeline stage the planner put
      the op in (`loomc --simulate --emit=plan`).
    - `dist.backward` (unit, on an op): the op belongs to the backward pass
      of a microbatch (set by the gradient builder); a pipeline schedule
      runs a microbatch's forward and backward ops as separate units.
    - `dist.pipeline` (`#dist.pipeline`, on the module): the module is one
      stage of a pipelined step (-dist-split-stages).
    - `dist.plan` (`#dist.plan`, on the module): the planner's plan shape.
    - `dist.comm_groups` (on the module): the mesh groups the program's
      collectives run over, each an array of axis names; a collective call
      names its group by index (-convert-dist-to-runtime).
    - `dist.collectives` (on the module): every collective call of the
      program in order, as `#dist.call`s, which the artifact's manifest
      lists for the runtime's checks and logs.

    ```mlir
    dist.mesh @cluster axes [<"dp" = 2, inter_node>, <"tp" = 4, intra_node>]
  }] # "  func.func @f(%x: tensor<8x64xf32> {dist.sharding = #dist.sharding<@cluster, [{\"dp\"}, {}]>})\n" # [{
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (defined beside their storage classes).
    void registerAttributes();
  }];
  let discardableAttrs = (ins
    "::loom::dist::ShardingAttr":$sharding,
    "::mlir::ArrayAttr":$shardings,
    "::mlir::UnitAttr":$spmd,
    "::mlir::IntegerAttr":$stage,
    "::mlir::UnitAttr":$backward,
    "::loom::dist::PipelineAttr":$pipeline,
    "::loom::dist::PlanAttr":$plan,
    "::mlir::ArrayAttr":$comm_groups,
    "::mlir::ArrayAttr":$collectives
  );
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//



//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Dist_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Dist_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A double printed shortest-round-trip and parsed from an integer or float.
def Dist_F64Parameter : AttrOrTypeParameter<"::llvm::APFloat", ""> {
  let parser = "::loom::parseF64($_parser)";
  let printer = "::loom::printF64($_printer, $_self)";
  let defaultValue = "::llvm::APFloat(0.0)";
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
}

def Dist_MeshAxisAttr : Dist_Attr<"MeshAxis", "axis"> {
  let summary = "a named mesh axis with its size and link";
  let description = [{
    One axis of a `dist.mesh`: its name, its number of devices, and the link
    its collectives run over. `bandwidth` (GB/s per device per direction) and
    `latency` (microseconds) refine the cost model; zero means "take the
    figure from the cluster description".

    ```mlir
    #dist.axis<"tp" = 8, intra_node, bandwidth = 450, latency = 2.5>
    ```
  }];
  let parameters = (ins StringRefParameter<"axis name">:$name,
                        "int64_t":$size,
                        "::loom::dist::LinkKind":$link,
                        Dist_F64Parameter:$bandwidth,
                        Dist_F64Parameter:$latency);
  let assemblyFormat = [{
    `<` $name `=` $size `,` $link (`,` `bandwidth` `=` $bandwidth^)?
      (`,` `latency` `=` $latency^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Dist_DimShardingAttr : Dist_Attr<"DimSharding", "dim"> {
  let summary = "the mesh axes splitting one tensor dimension";
  let description = [{
    Axes listed major to minor: `{"dp", "tp"}` splits the dimension into
    `size(dp) * size(tp)` blocks, block `i_dp * size(tp) + i_tp` on the
    device at those coordinates. `{}` keeps the dimension whole. A trailing
    `?` marks the dimension *open*: propagation may split it further along
    other axes; without it the dimension is *closed* and stays as written.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"::mlir::StringAttr">:$axes,
    "bool":$open);
  let hasCustomAssemblyFormat = 1;
}

def Dist_ShardingAttr : Dist_Attr<"Sharding", "sharding"> {
  let summary = "how a tensor is laid out over a mesh";
  let description = [{
    Names a mesh and gives one `#dist.dim` per tensor dimension, plus the
    axes over which the value is an unreduced partial result (`partial`,
    summed unless a kind is given). Every axis appears at most once.

    ```mlir
  }] # "  #dist.sharding<@m, [{\"dp\"}, {}, {\"tp\"}]>\n"
     # "  #dist.sharding<@m, [{\"dp\"}, {?}], partial = {\"tp\"}>\n"
     # "  #dist.sharding<@m, [{}, {}], partial<max> = {\"tp\"}>\n" # [{
    ```
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    ArrayRefParameter<"::loom::dist::DimShardingAttr">:$dims,
    OptionalArrayRefParameter<"::mlir::StringAttr">:$partial_axes,
    DefaultValuedParameter<"::loom::ReductionKind", "::loom::ReductionKind::Sum">:$partial_kind);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// A sharding of `rank` dimensions that splits nothing.
    static ShardingAttr getReplicated(::mlir::MLIRContext *ctx,
                                      ::mlir::FlatSymbolRefAttr mesh,
                                      int64_t rank);
    /// All axes used, dimensions first (major to minor), then partial axes.
    ::llvm::SmallVector<::mlir::StringAttr> getAllAxes() const;
    bool isReplicated() const;
  }];
}

def Dist_PlanAttr : Dist_Attr<"Plan", "plan"> {
  let summary = "the shape of a plan the planner chose";
  let description = [{
    Set on the module by `loomc --strategy=auto --simulate --emit=plan`
    beside the `dist.stage` markers: the data, tensor and pipeline degrees,
    microbatches per step, the ZeRO stage, whether layers are recomputed
    (fully or selectively), the pipeline schedule (`none`, `gpipe`, `1f1b`,
    `interleaved` or `zb1p`) and the predicted step time.

    ```mlir
    module attributes {dist.plan = #dist.plan<dp = 8, tp = 4, pp = 4,
        microbatches = 16, zero = 1, recompute = true, schedule = "1f1b",
        predicted_step_seconds = 1.25>} { ... }
    ```
  }];
  let parameters = (ins "int64_t":$dp, "int64_t":$tp, "int64_t":$pp,
                        "int64_t":$microbatches, "int64_t":$zero,
                        "::mlir::BoolAttr":$recompute,
                        StringRefParameter<"pipeline schedule">:$schedule,
                        Dist_F64Parameter:$predicted_step_seconds);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Dist_PipelineAttr : Dist_Attr<"Pipeline", "pipeline"> {
  let summary = "which stage of a pipelined step a module is";
  let description = [{
    Set on each stage's module by `-dist-split-stages`: the stage this
    module runs, the number of stages, the microbatches per step, the
    schedule that orders their forward and backward units (`gpipe`,
    `1f1b`, `interleaved`, `zb1p`), the recomputation mode (`off`, `full`,
    `selective`), the mesh axis that indexes the stages and, for the
    interleaved schedule, the model chunks each stage holds (virtual stage
    `stage + c * stages` for chunk `c`; 1, the default, is not printed).

    ```mlir
    module attributes {dist.pipeline = #dist.pipeline<stage = 1, stages = 2,
        microbatches = 4, schedule = "1f1b", recompute = "off", axis = "pp">}
    ```
  }];
  let parameters = (ins "int64_t":$stage, "int64_t":$stages,
                        "int64_t":$microbatches,
                        StringRefParameter<"pipeline schedule">:$schedule,
                        StringRefParameter<"recomputation">:$recompute,
                        StringRefParameter<"pipeline mesh axis">:$axis,
                        DefaultValuedParameter<"int64_t", "1",
                          "model chunks per stage">:$chunks);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Dist_CollectiveCallAttr : Dist_Attr<"CollectiveCall", "call"> {
  let summary = "one collective call of a compiled program";
  let description = [{
    The kind of a `loom_coll_*` call, the index of its group in the
    module's `dist.comm_groups`, and the bytes of its input on one device.

    ```mlir
    #dist.call<"all_reduce", group = 0, bytes = 4096>
    ```
  }];
  let parameters = (ins StringRefParameter<"collective kind">:$kind,
                        "int64_t":$group, "int64_t":$bytes);
  let assemblyFormat = "`<` $kind `,` `group` `=` $group `,` `bytes` `=` $bytes `>`";
  let genVerifyDecl = 1;
}

#endif // LOOM_DIST_BASE
