//===- LoomEnums.td - Enums shared by Loom's dialects ------*- tablegen -*-===//
//
// Enums that more than one dialect speaks. They are defined without a
// dialect so that `nn` (through its sharding rules) and `dist` (through its
// collectives and `partial` shardings) share one C++ enum.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_INTERFACES_ENUMS
#define LOOM_INTERFACES_ENUMS

include "mlir/IR/EnumAttr.td"

def Loom_ReductionKind : I32EnumAttr<"ReductionKind",
    "how partial values are combined", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Mean", 1, "mean">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"Min", 3, "min">
    ]> {
  let cppNamespace = "::loom";
}

#endif // LOOM_INTERFACES_ENUMS
