//===- NNDialect.h - The nn dialect -----------------------------*- C++ -*-===//

#ifndef LOOM_DIALECT_NN_NNDIALECT_H
#define LOOM_DIALECT_NN_NNDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "nn/NNDialect.h.inc"

#endif // LOOM_DIALECT_NN_NNDIALECT_H
