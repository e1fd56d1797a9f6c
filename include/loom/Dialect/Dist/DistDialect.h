//===- DistDialect.h - The dist dialect -------------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_DIST_DISTDIALECT_H
#define LOOM_DIALECT_DIST_DISTDIALECT_H

#include "loom/Interfaces/LoomEnums.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "dist/DistEnums.h.inc"

namespace loom::dist {
/// Parses a number (integer or float) as a double.
mlir::FailureOr<llvm::APFloat> parseF64(mlir::AsmParser &parser);
/// Prints a double in the shortest form that reads back exactly.
void printF64(mlir::AsmPrinter &printer, const llvm::APFloat &value);

/// Marks a function as partitioned (`-dist-partition`): its values have
/// per-device types, and the `dist.sharding` of its arguments and results
/// says which block of the global tensor each device holds.
constexpr llvm::StringLiteral kSPMDAttrName = "dist.spmd";
} // namespace loom::dist

#define GET_ATTRDEF_CLASSES
#include "dist/DistAttrs.h.inc"

#include "dist/DistDialect.h.inc"

#endif // LOOM_DIALECT_DIST_DISTDIALECT_H
