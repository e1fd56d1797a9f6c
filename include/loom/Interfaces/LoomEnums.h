//===- LoomEnums.h - Enums shared by Loom's dialects ------------*- C++ -*-===//

#ifndef LOOM_INTERFACES_LOOMENUMS_H
#define LOOM_INTERFACES_LOOMENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

#include "interfaces/LoomEnums.h.inc"

#endif // LOOM_INTERFACES_LOOMENUMS_H
