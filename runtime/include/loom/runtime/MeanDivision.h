//===- MeanDivision.h - The division of a MEAN reduced as a SUM -*- C++ -*-===//
//
// Header-only, so that communicator plugins (which do not link the runtime
// library) share it with the runtime's own backends. Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_MEANDIVISION_H
#define LOOM_RUNTIME_MEANDIVISION_H

#include "loom/runtime/Base.h"
#include <cstddef>
#include <cstdint>

namespace loom::rt {

/// Divides each of the `count` values of type T at `data` by `divisor`
/// (truncating for integers).
template <typename T>
inline void divideEach(void *data, size_t count, int divisor) {
  T *values = static_cast<T *>(data);
  for (size_t i = 0; i < count; ++i)
    values[i] = static_cast<T>(values[i] / static_cast<T>(divisor));
}

/// divideEach for an integer `dtype` (bool is not one); nothing for any
/// other dtype.
inline void divideIntegers(void *data, size_t count, loom_dtype dtype,
                           int divisor) {
  switch (dtype) {
  case LOOM_DTYPE_INT8:
    return divideEach<int8_t>(data, count, divisor);
  case LOOM_DTYPE_INT16:
    return divideEach<int16_t>(data, count, divisor);
  case LOOM_DTYPE_INT32:
    return divideEach<int32_t>(data, count, divisor);
  case LOOM_DTYPE_INT64:
    return divideEach<int64_t>(data, count, divisor);
  case LOOM_DTYPE_UINT8:
    return divideEach<uint8_t>(data, count, divisor);
  case LOOM_DTYPE_UINT16:
    return divideEach<uint16_t>(data, count, divisor);
  case LOOM_DTYPE_UINT32:
    return divideEach<uint32_t>(data, count, divisor);
  case LOOM_DTYPE_UINT64:
    return divideEach<uint64_t>(data, count, divisor);
  default:
    return;
  }
}

} // namespace loom::rt

#endif // LOOM_RUNTIME_MEANDIVISION_H
