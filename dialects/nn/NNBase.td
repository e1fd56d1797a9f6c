//===- NNBase.td - The nn dialect, its types and enums -----*- tablegen -*-===//

#ifndef LOOM_NN_BASE
#define LOOM_NN_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "interfaces/CostInterface.td"
include "interfaces/GradientInterface.td"
include "interfaces/ShardingRuleInterface.td"

def NN_Dialect : Dialect {
  let name = "nn";
  let cppNamespace = "::loom::nn";
  let summary = "Value-semantics tensor ops at the level users think in";
  let description = [{
    The `nn` dialect is Loom's model-level IR: what the ONNX frontend
    produces, what autodiff differentiates, what the planner annotates with
    shardings and what the backends lower. Ops work on ranked tensors with
    value semantics and have no side effects. Binary ops broadcast by the
    numpy/ONNX rules (dimensions aligned on the right; a dimension of size 1
    stretches). Attributes are normalised at import: axes are non-negative,
    padding is explicit, shapes are static once the frontend fixed them.

    Every op infers its result types, states a sharding rule
    (`ShardingRuleOpInterface`) and a cost (`CostOpInterface`). Function
    arguments and results imported from a model carry the model's names in
    `nn.name` string attributes.

    The dialect's discardable attributes:

    - `nn.name` (string): the model's name of a function argument or result.
    - `nn.parameter` (string): makes a function argument a weightless
      parameter of that name (below).
    - `nn.update` (string, on `nn.parameter`): the result of a training step
      that replaces the parameter after the step (`update:NAME`).
    - `nn.zero_init` (unit, on `nn.parameter`): training state that starts as
      zeros and has no data in the artifact (optimizer moments).
    - `nn.immutable` (unit, on a function argument): a parameter no step
      updates, at one address while the program is loaded (its packed
      copies may be cached).
    - `nn.training` (`#nn.training`, on the module): what the runtime needs
      to drive the steps of a training step function.
    - `nn.unsigned`, `nn.cast_from`: set only inside -convert-nn-to-linalg.

    A weightless parameter is a `func.func` argument carrying
    `nn.parameter = "NAME"` instead of an `nn.parameter` op: the module has
    the weight's name and type (a ranked float tensor) but no data. Such
    modules can be priced, propagated and planned; training and compilation
    refuse them.

    ```mlir
    %h = nn.matmul %x, %w : tensor<4x16xf32>, tensor<16x64xf32> -> tensor<4x64xf32>
    %a = nn.gelu %h : tensor<4x64xf32>
    ```
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // `nn.unsigned` and `nn.cast_from` are set only by
  // -nn-legalize-storage-types, which stores unsigned, 8-bit float and 4-bit
  // types as signless integers and records here what the op computed on; a
  // cast with `nn.cast_from` yields `to` in its storage type.
  let discardableAttrs = (ins "::mlir::StringAttr":$name,
                              "::mlir::StringAttr":$parameter,
                              "::mlir::StringAttr":$update,
                              "::mlir::UnitAttr":$zero_init,
                              "::mlir::UnitAttr":$immutable,
                              "::loom::nn::TrainingAttr":$training,
                              "::mlir::UnitAttr":$unsigned,
                              "::mlir::TypeAttr":$cast_from);
  let extraClassDeclaration = [{
    /// Registers the attributes (defined beside their storage classes).
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def NN_Float : AnyTypeOf<[F16, BF16, F32, F64], "floating-point">;
// Unsigned integers are their own types (`ui8`): the ops whose result
// depends on the sign (division, comparison, max/min, conversion) read it
// from the element type.
def NN_Int : AnyTypeOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64],
                       "8- to 64-bit integer">;
def NN_SignlessInt : AnyTypeOf<[I8, I16, I32, I64], "signless integer">;
def NN_Index : AnyTypeOf<[I32, I64], "32- or 64-bit integer">;
// Storage-only types: converted by nn.cast and moved by the data-movement
// ops, never computed on.
def NN_Float8 : AnyTypeOf<[F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ],
                          "8-bit float">;
def NN_Int4 : AnyTypeOf<[I<4>, UI<4>], "4-bit integer">;

def NN_FloatTensor : RankedTensorOf<[NN_Float]>;
def NN_NumericTensor : RankedTensorOf<[NN_Float, NN_Int]>;
def NN_AnyTensor : RankedTensorOf<[NN_Float, NN_Int, I1]>;
def NN_StorageTensor : RankedTensorOf<[NN_Float, NN_Int, I1, NN_Float8,
                                       NN_Int4]>;
def NN_BoolTensor : RankedTensorOf<[I1]>;
def NN_IndexTensor : RankedTensorOf<[NN_Index]>;
def NN_IntegerTensor : RankedTensorOf<[NN_Int]>;

//===----------------------------------------------------------------------===//
// Enums (stored as integer attributes, printed as keywords)
//===----------------------------------------------------------------------===//

def NN_CompareDirection : I32EnumAttr<"CompareDirection",
    "comparison predicate", [
      I32EnumAttrCase<"EQ", 0, "eq">, I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">, I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">, I32EnumAttrCase<"GE", 5, "ge">
    ]> {
  let cppNamespace = "::loom::nn";
}

def NN_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"None", 0, "none">, I32EnumAttrCase<"Tanh", 1, "tanh">
    ]> {
  let cppNamespace = "::loom::nn";
}

def NN_IndexOrder : I32EnumAttr<"IndexOrder",
    "how positions in a multi-dimensional tensor are numbered", [
      I32EnumAttrCase<"RowMajor", 0, "row_major">,
      I32EnumAttrCase<"ColumnMajor", 1, "column_major">
    ]> {
  let cppNamespace = "::loom::nn";
}

def NN_PadMode : I32EnumAttr<"PadMode", "how padding values are chosen", [
      I32EnumAttrCase<"Constant", 0, "constant">,
      I32EnumAttrCase<"Reflect", 1, "reflect">,
      I32EnumAttrCase<"Edge", 2, "edge">,
      I32EnumAttrCase<"Wrap", 3, "wrap">
    ]> {
  let cppNamespace = "::loom::nn";
}

include "nn/NNAttrs.td"

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

// Every nn op is pure, infers its result types, and states a sharding rule
// and a cost. Ops whose result type is their operand type get inference
// generated from SameOperandsAndResultType (NN_SameTypeOp); the others
// implement inferReturnTypes on an adaptor.
class NN_BaseOp<string mnemonic, list<Trait> traits>
    : Op<NN_Dialect, mnemonic, !listconcat([Pure,
          DeclareOpInterfaceMethods<ShardingRuleOpInterface>,
          DeclareOpInterfaceMethods<CostOpInterface>], traits)>;
class NN_Op<string mnemonic, list<Trait> traits = []>
    : NN_BaseOp<mnemonic, !listconcat([InferTypeOpAdaptor], traits)>;
class NN_SameTypeOp<string mnemonic, list<Trait> traits = []>
    : NN_BaseOp<mnemonic, !listconcat([SameOperandsAndResultType,
                                       InferTypeOpInterface], traits)>;

// Unary elementwise: result type equals the operand type. `flops` and
// `trans` are the arithmetic and transcendental operations per element.
class NN_UnaryOp<string mnemonic, Type type, string flops, string trans,
                 list<Trait> traits = []>
    : NN_SameTypeOp<mnemonic, !listconcat(traits,
          [DeclareOpInterfaceMethods<GradientOpInterface>])> {
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::loom::ShardingRule $cppClass::getShardingRule() {
      return ::loom::getElementwiseShardingRule(
          getOperation()->getOperandTypes(), getOperation()->getResultTypes());
    }
    ::mlir::FailureOr<::loom::OpCost> $cppClass::computeCost(
        ::mlir::TypeRange operandTypes, ::mlir::TypeRange resultTypes) {
      return ::loom::getElementwiseCost(operandTypes, resultTypes, }]
        # flops # ", " # trans # [{);
    }
  }];
}

// Binary elementwise with numpy/ONNX broadcasting.
class NN_BinaryOp<string mnemonic, Type type, string flops, string trans,
                  list<Trait> traits = []>
    : NN_Op<mnemonic, !listconcat([SameOperandsAndResultElementType,
          DeclareOpInterfaceMethods<GradientOpInterface>], traits)> {
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::loom::nn::inferBroadcastResult(
          loc, adaptor.getOperands().getTypes(),
          ::mlir::getElementTypeOrSelf(adaptor.getLhs().getType()), types);
    }
    ::loom::ShardingRule $cppClass::getShardingRule() {
      return ::loom::getElementwiseShardingRule(
          getOperation()->getOperandTypes(), getOperation()->getResultTypes());
    }
    ::mlir::FailureOr<::loom::OpCost> $cppClass::computeCost(
        ::mlir::TypeRange operandTypes, ::mlir::TypeRange resultTypes) {
      return ::loom::getElementwiseCost(operandTypes, resultTypes, }]
        # flops # ", " # trans # [{);
    }
  }];
}

// Reductions over `axes`; reduced dimensions are kept as size 1 when
// `keepdims` is set.
class NN_ReduceOp<string mnemonic, string kind, Type type>
    : NN_Op<mnemonic, [SameOperandsAndResultElementType,
                       DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let arguments = (ins type:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::loom::nn::inferReduceResult(loc, adaptor.getInput().getType(),
          adaptor.getAxes(), adaptor.getKeepdims(), types);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return ::loom::nn::verifyAxes(getOperation(), getAxes(),
          getInput().getType().getRank(), /*requireSorted=*/true);
    }
    ::loom::ShardingRule $cppClass::getShardingRule() {
      return ::loom::nn::getReduceShardingRule(getInput().getType(),
          getAxes(), getKeepdims(), ::loom::ReductionKind::}] # kind # [{);
    }
    ::mlir::FailureOr<::loom::OpCost> $cppClass::computeCost(
        ::mlir::TypeRange operandTypes, ::mlir::TypeRange resultTypes) {
      return ::loom::nn::getReduceCost(operandTypes, resultTypes,
          ::loom::ReductionKind::}] # kind # [{);
    }
  }];
}

// Pooling over the spatial dimensions of an `[N, C, spatial...]` input (1 to
// 3 of them). `padding` is `[begin..., end...]` over the spatial dimensions
// (ONNX order); absent `strides`, `padding` and `dilations` mean ones, zeros
// and ones (getWindow() fills them in).
defvar NN_PoolWindowArguments = (ins DenseI64ArrayAttr:$kernel,
    OptionalAttr<DenseI64ArrayAttr>:$strides,
    OptionalAttr<DenseI64ArrayAttr>:$padding,
    OptionalAttr<DenseI64ArrayAttr>:$dilations,
    DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);

class NN_PoolOp<string mnemonic, Type type, dag extraArguments = (ins)>
    : NN_Op<mnemonic, [SameOperandsAndResultElementType,
                       DeclareOpInterfaceMethods<GradientOpInterface>]> {
  let arguments = !con((ins type:$input), NN_PoolWindowArguments,
                       extraArguments);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The window attributes, absent ones filled in.
    ::loom::nn::PoolWindow getWindow() {
      return ::loom::nn::PoolWindow(getKernel(), getStrides(), getPadding(),
                                    getDilations());
    }
  }];
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::loom::nn::inferPoolResult(loc, adaptor.getInput().getType(),
          ::loom::nn::PoolWindow(adaptor.getKernel(), adaptor.getStrides(),
                                 adaptor.getPadding(), adaptor.getDilations()),
          adaptor.getCeilMode(), types);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return ::loom::nn::verifyPoolPadding(getOperation(), getWindow());
    }
  }];
}

#endif // LOOM_NN_BASE
