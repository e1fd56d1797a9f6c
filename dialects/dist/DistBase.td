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
    "::mlir::ArrayAttr":$shardings
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
  let parser = "::loom::dist::parseF64($_parser)";
  let printer = "::loom::dist::printF64($_printer, $_self)";
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

#endif // LOOM_DIST_BASE
