//===- Checksum.cpp - CRC-32 of buffers and files -------------------------===//
//
// The one CRC-32 of the runtime: checkpoint shards and artifact files record
// it (zlib's polynomial, so `python -c "zlib.crc32(...)"` agrees). Artifacts
// are checked on every load, so it runs eight bytes a step (slicing-by-8)
// rather than one.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Support.h"
#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>

using namespace loom::rt;

namespace {
struct Crc32Tables {
  uint32_t t[8][256];
  Crc32Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k)
        t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
};
} // namespace

uint32_t loom::rt::crc32(uint32_t crc, const void *data, size_t size) {
  static const Crc32Tables tables;
  const auto &t = tables.t;
  const auto *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  // Little-endian words: the low byte of `lo` is the first byte.
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "slicing-by-8 reads little-endian words");
  while (size >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, bytes, 4);
    std::memcpy(&hi, bytes + 4, 4);
    lo ^= crc;
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
          t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
          t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    bytes += 8;
    size -= 8;
  }
  while (size--)
    crc = t[0][(crc ^ *bytes++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

bool loom::rt::crc32OfFile(int fd, uint64_t size, uint32_t &crc, uint64_t &got,
                           int &err) {
  constexpr size_t chunk = 1u << 20;
  std::unique_ptr<char[]> buffer(new (std::nothrow) char[chunk]);
  if (!buffer) {
    err = ENOMEM;
    return false;
  }
  crc = 0;
  got = 0;
  while (got < size) {
    size_t want = size - got < chunk ? size_t(size - got) : chunk;
    size_t n = 0;
    if (!readFull(fd, buffer.get(), want, n, err))
      return false;
    crc = crc32(crc, buffer.get(), n);
    got += n;
    if (n < want)
      break;
  }
  return true;
}
