//===- Limits.h - Bounds on what Loom's tools accept ------------*- C++ -*-===//
//
// Inputs beyond these bounds are errors, not crashes: overflowing products,
// stack-exhausting recursion, endless reads (docs/UserGuide.md, "Files and
// limits").
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SUPPORT_LIMITS_H
#define LOOM_SUPPORT_LIMITS_H

#include <cstdint>

namespace loom {

/// The most devices a mesh or a cluster may have: far beyond any machine,
/// small enough that group sizes, rank numbers and device counts stay far
/// from overflowing (products with tensor sizes are still checked).
inline constexpr int64_t kMaxDevices = int64_t(1) << 20;

/// The deepest nesting of brackets, braces, parentheses and angle brackets
/// MLIR text may have (checkMLIRNesting): Loom's programs nest a few levels,
/// lowered ones a few dozen; the parser recurses once or more per level.
inline constexpr unsigned kMaxMLIRNesting = 512;

/// The largest JSON side input (cluster descriptions, --rename-parameters)
/// and its deepest nesting of arrays and objects.
inline constexpr uint64_t kMaxJSONFileBytes = uint64_t(16) << 20;
inline constexpr unsigned kMaxJSONNesting = 64;

} // namespace loom

#endif // LOOM_SUPPORT_LIMITS_H
