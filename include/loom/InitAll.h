//===- InitAll.h - Register Loom's dialects and passes ----------*- C++ -*-===//

#ifndef LOOM_INITALL_H
#define LOOM_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace loom {
/// Loom's dialects and the upstream dialects its pipelines produce.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Loom's passes and the upstream passes its pipelines use.
void registerAllPasses();
} // namespace loom

#endif // LOOM_INITALL_H
