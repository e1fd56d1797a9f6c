//===- TestUtils.h - Helpers for Loom's unit tests --------------*- C++ -*-===//

#ifndef LOOM_TEST_UNIT_TESTUTILS_H
#define LOOM_TEST_UNIT_TESTUTILS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include <string>
#include <vector>

namespace loom::test {

/// A context with every Loom dialect loaded.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// Parses `body` as the body of `func.func @f(%a: T0, %b: T1, ...)` with
/// `argTypes`, and returns the module (null with the diagnostic printed if
/// it does not parse and verify).
mlir::OwningOpRef<mlir::ModuleOp>
parseBody(mlir::MLIRContext &context, const std::vector<std::string> &argTypes,
          const std::string &body);

/// The first op of `module`'s function body.
mlir::Operation *firstOp(mlir::ModuleOp module);

/// Names of every registered op of dialect `ns`.
std::vector<std::string> registeredOps(mlir::MLIRContext &context,
                                       llvm::StringRef ns);

} // namespace loom::test

#endif // LOOM_TEST_UNIT_TESTUTILS_H
