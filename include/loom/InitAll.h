//===- InitAll.h - Register Loom's dialects, passes and targets -*- C++ -*-===//

#ifndef LOOM_INITALL_H
#define LOOM_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace loom {
/// Loom's dialects and the upstream dialects its pipelines produce.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Loom's passes and pipelines, and the upstream passes its pipelines use.
void registerAllPasses();
/// The compilation targets of this build (`loomc --target`).
void registerAllTargets();
} // namespace loom

#endif // LOOM_INITALL_H
