//===- Passes.h - Loom Dist passes ------------------------------*- C++ -*-===//

#ifndef LOOM_PASSES_DIST_PASSES_H
#define LOOM_PASSES_DIST_PASSES_H

#include "loom/Dialect/Dist/DistDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "Dist/DistPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Dist/DistPasses.h.inc"

} // namespace loom

#endif // LOOM_PASSES_DIST_PASSES_H
