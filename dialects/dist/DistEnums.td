//===- DistEnums.td - Enums of the dist dialect ------------*- tablegen -*-===//
//
// Kept apart from DistBase.td so that enum generation sees only dist's own
// enums, not the shared ones from interfaces/LoomEnums.td.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIST_ENUMS
#define LOOM_DIST_ENUMS

include "mlir/IR/EnumAttr.td"

def Dist_LinkKind : I32EnumAttr<"LinkKind",
    "mesh axis link kind", [
      I32EnumAttrCase<"IntraNode", 0, "intra_node">,
      I32EnumAttrCase<"InterNode", 1, "inter_node">
    ]> {
  let cppNamespace = "::loom::dist";
  let genSpecializedAttr = 0;
}

def Dist_Schedule : I32EnumAttr<"Schedule",
    "pipeline schedule", [
      I32EnumAttrCase<"GPipe", 0, "gpipe">,
      I32EnumAttrCase<"OneFOneB", 1, "1f1b">,
      I32EnumAttrCase<"Interleaved", 2, "interleaved">,
      I32EnumAttrCase<"ZeroBubble", 3, "zb1p">
    ]> {
  let cppNamespace = "::loom::dist";
  let genSpecializedAttr = 0;
}

def Dist_Recompute : I32EnumAttr<"Recompute",
    "activation recomputation", [
      I32EnumAttrCase<"Off", 0, "off">,
      I32EnumAttrCase<"Full", 1, "full">,
      I32EnumAttrCase<"Selective", 2, "selective">
    ]> {
  let cppNamespace = "::loom::dist";
  let genSpecializedAttr = 0;
}
#endif // LOOM_DIST_ENUMS
