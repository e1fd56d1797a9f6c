//===- FloatFormat.h - Readable float literals ------------------*- C++ -*-===//

#ifndef LOOM_SUPPORT_FLOATFORMAT_H
#define LOOM_SUPPORT_FLOATFORMAT_H

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/raw_ostream.h"

namespace loom {

/// Prints `value` in the shortest form that reads back to the same value in
/// its semantics: `25`, `2.5`, `1.0E-5`. Integral values print as integers,
/// so parsers of such literals accept integers too. NaN and infinities print
/// as MLIR's hexadecimal float form.
void printShortestFloat(llvm::raw_ostream &os, const llvm::APFloat &value);

} // namespace loom

#endif // LOOM_SUPPORT_FLOATFORMAT_H
