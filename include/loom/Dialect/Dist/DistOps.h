//===- DistOps.h - dist dialect operations ----------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_DIST_DISTOPS_H
#define LOOM_DIALECT_DIST_DISTOPS_H

#include "loom/Dialect/Dist/DistDialect.h"
#include "loom/Interfaces/Interfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dist/DistOps.h.inc"

namespace loom::dist {

/// Checks `sharding` against a value of type `type`: the mesh exists, axes
/// are axes of it and used once, the rank matches, and each static dimension
/// divides by the product of its axes. Reports through `emitError`.
mlir::LogicalResult
verifySharding(ShardingAttr sharding, mlir::Type type, mlir::Operation *from,
               mlir::SymbolTableCollection &symbols,
               llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

} // namespace loom::dist

#endif // LOOM_DIALECT_DIST_DISTOPS_H
