//===- FloatFormat.h - Readable float literals ------------------*- C++ -*-===//

#ifndef LOOM_SUPPORT_FLOATFORMAT_H
#define LOOM_SUPPORT_FLOATFORMAT_H

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/raw_ostream.h"

namespace loom {

/// Prints `value` in the shortest form that reads back to the same value in
/// its semantics: `25`, `2.5`, `1.0E-5`. Integral values print as integers,
/// so parsers of such literals accept integers too. NaN and infinities print
/// as MLIR's hexadecimal float form.
void printShortestFloat(llvm::raw_ostream &os, const llvm::APFloat &value);

/// Parses a number (integer or float) as a double: the parser of the f64
/// parameters of Loom's attributes.
mlir::FailureOr<llvm::APFloat> parseF64(mlir::AsmParser &parser);
/// Prints a double in the shortest form that reads back exactly.
void printF64(mlir::AsmPrinter &printer, const llvm::APFloat &value);

} // namespace loom

#endif // LOOM_SUPPORT_FLOATFORMAT_H
