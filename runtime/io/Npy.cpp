//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// The format: the magic "\x93NUMPY", a major and minor version byte, the
// header length (uint16 for 1.0, uint32 for 2.0 and 3.0, little-endian), then
// the header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and ended by '\n', then the raw array bytes.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Npy.h"
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the runtime assumes a little-endian host, like the artifacts it runs"
#endif

namespace {
constexpr char npyMagic[] = "\x93NUMPY";
constexpr size_t npyMagicSize = 6;
// Headers beyond this are not something numpy writes (it caps them at
// 10000 bytes when reading); refusing them bounds what a hostile file can
// make us allocate.
constexpr size_t maxHeaderSize = 1 << 20;
constexpr size_t maxRank = 64;
constexpr unsigned maxLiteralDepth = 8;

std::string invalidFile(std::string_view fileName, std::string_view problem) {
  return "'" + std::string(fileName) +
         "' is not a valid .npy file: " + std::string(problem);
}

//===----------------------------------------------------------------------===//
// The header's Python literal
//===----------------------------------------------------------------------===//

/// The subset of Python literals numpy writes into headers.
struct PyValue {
  enum class Kind { String, Bool, None, Int, Sequence };
  Kind kind = Kind::None;
  std::string text;
  bool boolValue = false;
  int64_t intValue = 0;
  bool intOverflow = false;
  std::vector<PyValue> items;
};

class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  /// Parses the dict into (key, value) pairs; on failure returns false with
  /// a short description of the problem in `error`.
  bool parseDict(std::vector<std::pair<std::string, PyValue>> &entries,
                 std::string &error) {
    skipSpace();
    if (!consume('{'))
      return fail("the header is not a dict", error);
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a string key", error);
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after a key", error);
      PyValue value;
      if (!parseValue(value, 0))
        return fail(valueError.empty() ? "malformed value" : valueError, error);
      for (const auto &entry : entries)
        if (entry.first == key)
          return fail("duplicate key '" + key + "'", error);
      entries.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the dict", error);
    return true;
  }

private:
  bool fail(const std::string &message, std::string &error) {
    error = "malformed header (" + message + " at header byte " +
            std::to_string(pos) + ")";
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  bool parseString(std::string &out) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos++];
    while (pos < text.size() && text[pos] != quote) {
      if (text[pos] == '\\' && pos + 1 < text.size())
        ++pos;
      out += text[pos++];
    }
    return consume(quote);
  }

  bool parseValue(PyValue &value, unsigned depth) {
    skipSpace();
    if (pos >= text.size())
      return false;
    char c = text[pos];
    if (c == '\'' || c == '"') {
      value.kind = PyValue::Kind::String;
      return parseString(value.text);
    }
    if (c == '(' || c == '[') {
      if (depth >= maxLiteralDepth) {
        valueError = "nested too deeply";
        return false;
      }
      char close = c == '(' ? ')' : ']';
      ++pos;
      value.kind = PyValue::Kind::Sequence;
      while (true) {
        skipSpace();
        if (consume(close))
          return true;
        if (value.items.size() >= maxRank) {
          valueError = "more than " + std::to_string(maxRank) + " dimensions";
          return false;
        }
        PyValue item;
        if (!parseValue(item, depth + 1))
          return false;
        value.items.push_back(std::move(item));
        skipSpace();
        if (consume(','))
          continue;
        if (consume(close))
          return true;
        return false;
      }
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseInt(value);
    struct Word {
      std::string_view text;
      PyValue::Kind kind;
      bool flag;
    };
    static constexpr Word words[] = {{"True", PyValue::Kind::Bool, true},
                                     {"False", PyValue::Kind::Bool, false},
                                     {"None", PyValue::Kind::None, false}};
    for (const Word &word : words) {
      if (text.substr(pos, word.text.size()) == word.text) {
        pos += word.text.size();
        value.kind = word.kind;
        value.boolValue = word.flag;
        return true;
      }
    }
    return false;
  }

  bool parseInt(PyValue &value) {
    value.kind = PyValue::Kind::Int;
    bool negative = consume('-');
    if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
      return false;
    int64_t result = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      int digit = text[pos++] - '0';
      if (__builtin_mul_overflow(result, 10, &result) ||
          __builtin_add_overflow(result, digit, &result))
        value.intOverflow = true;
    }
    // Python 2 wrote long integers with an 'L' suffix.
    consume('L');
    value.intValue = negative ? -result : result;
    return true;
  }

  std::string_view text;
  size_t pos = 0;
  std::string valueError;
};

const PyValue *
findEntry(const std::vector<std::pair<std::string, PyValue>> &entries,
          std::string_view key) {
  for (const auto &entry : entries)
    if (entry.first == key)
      return &entry.second;
  return nullptr;
}

uint32_t readLittleEndian(const unsigned char *bytes, size_t count) {
  uint32_t value = 0;
  for (size_t i = count; i-- > 0;)
    value = (value << 8) | bytes[i];
  return value;
}

/// Parses the fixed-size preamble: checks the magic and version and finds
/// where the header dict starts and how long it is.
bool parsePreamble(const unsigned char *bytes, size_t size,
                   std::string_view fileName, size_t &dictOffset,
                   size_t &dictSize, std::string &error) {
  if (size >= 4 && std::memcmp(bytes, "PK\x03\x04", 4) == 0) {
    error = "'" + std::string(fileName) +
            "' is a .npz archive, not a .npy file: save each array with "
            "np.save";
    return false;
  }
  if (size < npyMagicSize || std::memcmp(bytes, npyMagic, npyMagicSize) != 0) {
    error = invalidFile(fileName, "it does not start with the .npy magic "
                                  "\"\\x93NUMPY\"");
    return false;
  }
  if (size < npyMagicSize + 2) {
    error = invalidFile(fileName, "the file ends inside the header");
    return false;
  }
  unsigned major = bytes[6], minor = bytes[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    error = invalidFile(
        fileName, "unsupported format version " + std::to_string(major) + "." +
                      std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
    return false;
  }
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (size < 8 + lengthBytes) {
    error = invalidFile(fileName, "the file ends inside the header");
    return false;
  }
  dictSize = readLittleEndian(bytes + 8, lengthBytes);
  dictOffset = 8 + lengthBytes;
  if (dictSize > maxHeaderSize) {
    error = invalidFile(fileName, "the header is " + std::to_string(dictSize) +
                                      " bytes, more than the limit of " +
                                      std::to_string(maxHeaderSize));
    return false;
  }
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// dtypes
//===----------------------------------------------------------------------===//

const char *loom::rt::npyDescr(loom_dtype dtype) {
  switch (dtype) {
  case LOOM_DTYPE_FLOAT16:
    return "<f2";
  case LOOM_DTYPE_BFLOAT16:
    return "|V2";
  case LOOM_DTYPE_FLOAT32:
    return "<f4";
  case LOOM_DTYPE_FLOAT64:
    return "<f8";
  case LOOM_DTYPE_INT8:
    return "|i1";
  case LOOM_DTYPE_INT16:
    return "<i2";
  case LOOM_DTYPE_INT32:
    return "<i4";
  case LOOM_DTYPE_INT64:
    return "<i8";
  case LOOM_DTYPE_UINT8:
  case LOOM_DTYPE_UINT4:
    return "|u1";
  case LOOM_DTYPE_UINT16:
    return "<u2";
  case LOOM_DTYPE_UINT32:
    return "<u4";
  case LOOM_DTYPE_UINT64:
    return "<u8";
  case LOOM_DTYPE_INT4:
    return "|i1";
  case LOOM_DTYPE_FLOAT8E4M3FN:
  case LOOM_DTYPE_FLOAT8E4M3FNUZ:
  case LOOM_DTYPE_FLOAT8E5M2:
  case LOOM_DTYPE_FLOAT8E5M2FNUZ:
    // numpy has no 8-bit floats: raw bytes, as for bfloat16.
    return "|V1";
  case LOOM_DTYPE_BOOL:
    return "|b1";
  case LOOM_DTYPE_INVALID:
  case LOOM_DTYPE_MAX_ENUM:
    break;
  }
  return nullptr;
}

bool loom::rt::dtypeFromNpyDescr(std::string_view descr,
                                 std::string_view fileName, loom_dtype &dtype,
                                 std::string &error) {
  std::string_view type = descr;
  char order = '=';
  if (!type.empty() &&
      (type[0] == '<' || type[0] == '>' || type[0] == '|' || type[0] == '=')) {
    order = type[0];
    type.remove_prefix(1);
  }
  struct Code {
    std::string_view code;
    loom_dtype dtype;
  };
  static constexpr Code codes[] = {
      {"f2", LOOM_DTYPE_FLOAT16},
      {"e", LOOM_DTYPE_FLOAT16},
      {"V2", LOOM_DTYPE_BFLOAT16},
      {"f4", LOOM_DTYPE_FLOAT32},
      {"f", LOOM_DTYPE_FLOAT32},
      {"f8", LOOM_DTYPE_FLOAT64},
      {"d", LOOM_DTYPE_FLOAT64},
      {"i1", LOOM_DTYPE_INT8},
      {"b", LOOM_DTYPE_INT8},
      {"i2", LOOM_DTYPE_INT16},
      {"h", LOOM_DTYPE_INT16},
      {"i4", LOOM_DTYPE_INT32},
      {"i8", LOOM_DTYPE_INT64},
      {"u1", LOOM_DTYPE_UINT8},
      {"B", LOOM_DTYPE_UINT8},
      {"b1", LOOM_DTYPE_BOOL},
      {"?", LOOM_DTYPE_BOOL},
      {"u2", LOOM_DTYPE_UINT16},
      {"H", LOOM_DTYPE_UINT16},
      {"u4", LOOM_DTYPE_UINT32},
      {"I", LOOM_DTYPE_UINT32},
      {"u8", LOOM_DTYPE_UINT64},
      // Raw bytes: 8-bit floats (see npyHolds).
      {"V1", LOOM_DTYPE_UINT8},
  };
  for (const Code &code : codes) {
    if (type != code.code)
      continue;
    // Byte order matters only for multi-byte types.
    if (order == '>' && loom_dtype_size(code.dtype) > 1 &&
        code.dtype != LOOM_DTYPE_BFLOAT16) {
      error = "'" + std::string(fileName) + "' holds big-endian data ('" +
              std::string(descr) +
              "'), which is not supported: save it little-endian, e.g. "
              "np.save(path, a.astype(a.dtype.newbyteorder('<')))";
      return false;
    }
    dtype = code.dtype;
    return true;
  }
  std::string hint;
  if (type == "O")
    hint = "; object arrays (pickled Python objects) are never read";
  error = "'" + std::string(fileName) + "' holds dtype '" + std::string(descr) +
          "', which is not supported (supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 "
          "|u1 <u2 <u4 <u8 |b1, |V2 for bfloat16 and |V1 or |u1 for the "
          "8-bit floats)" +
          hint;
  return false;
}

bool loom::rt::npyHolds(loom_dtype file, loom_dtype expected) {
  switch (expected) {
  case LOOM_DTYPE_FLOAT8E4M3FN:
  case LOOM_DTYPE_FLOAT8E4M3FNUZ:
  case LOOM_DTYPE_FLOAT8E5M2:
  case LOOM_DTYPE_FLOAT8E5M2FNUZ:
  case LOOM_DTYPE_UINT4:
    return file == LOOM_DTYPE_UINT8;
  case LOOM_DTYPE_INT4:
    return file == LOOM_DTYPE_INT8;
  default:
    return file == expected;
  }
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

bool loom::rt::parseNpyHeader(const void *data, size_t size,
                              std::string_view fileName, NpyHeader &header,
                              std::string &error) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  size_t dictOffset = 0, dictSize = 0;
  if (!parsePreamble(bytes, size, fileName, dictOffset, dictSize, error))
    return false;
  if (size - dictOffset < dictSize) {
    error = invalidFile(fileName, "the file ends inside the header");
    return false;
  }
  std::string_view dict(reinterpret_cast<const char *>(bytes) + dictOffset,
                        dictSize);
  std::vector<std::pair<std::string, PyValue>> entries;
  HeaderParser parser(dict);
  std::string problem;
  if (!parser.parseDict(entries, problem)) {
    error = invalidFile(fileName, problem);
    return false;
  }

  const PyValue *descr = findEntry(entries, "descr");
  const PyValue *fortranOrder = findEntry(entries, "fortran_order");
  const PyValue *shape = findEntry(entries, "shape");
  if (!descr || !fortranOrder || !shape) {
    error = invalidFile(fileName, std::string("the header has no '") +
                                      (!descr          ? "descr"
                                       : !fortranOrder ? "fortran_order"
                                                       : "shape") +
                                      "' key");
    return false;
  }
  if (descr->kind == PyValue::Kind::Sequence) {
    error = "'" + std::string(fileName) +
            "' holds a structured array, which is not supported: save each "
            "field as its own array";
    return false;
  }
  if (descr->kind != PyValue::Kind::String) {
    error = invalidFile(fileName, "'descr' is not a string");
    return false;
  }
  if (!dtypeFromNpyDescr(descr->text, fileName, header.dtype, error))
    return false;
  if (fortranOrder->kind != PyValue::Kind::Bool) {
    error = invalidFile(fileName, "'fortran_order' is not True or False");
    return false;
  }
  if (shape->kind != PyValue::Kind::Sequence) {
    error = invalidFile(fileName, "'shape' is not a tuple");
    return false;
  }
  header.shape.clear();
  for (const PyValue &dim : shape->items) {
    if (dim.kind != PyValue::Kind::Int) {
      error = invalidFile(fileName, "'shape' holds something other than an "
                                    "integer");
      return false;
    }
    if (dim.intOverflow || dim.intValue < 0) {
      error = invalidFile(fileName, "'shape' holds a negative or huge "
                                    "dimension");
      return false;
    }
    header.shape.push_back(dim.intValue);
  }
  if (fortranOrder->boolValue) {
    // Column-major equals row-major when at most one extent exceeds 1.
    size_t nonTrivial = 0;
    for (int64_t dim : header.shape)
      nonTrivial += dim > 1;
    if (nonTrivial > 1) {
      error = "'" + std::string(fileName) +
              "' is in Fortran (column-major) order, which is not supported: "
              "save it in C order, e.g. np.save(path, np.ascontiguousarray(a))";
      return false;
    }
  }
  if (!checkedByteSize(header.dtype, header.shape.data(), header.shape.size(),
                       header.dataBytes)) {
    error = invalidFile(fileName, "the array described by the header is too "
                                  "large");
    return false;
  }
  header.dataOffset = dictOffset + dictSize;
  return true;
}

namespace {
void normalizeBools(NpyArray &array) {
  if (array.dtype != LOOM_DTYPE_BOOL)
    return;
  auto *bytes = static_cast<unsigned char *>(array.data.data());
  for (size_t i = 0; i < array.nbytes; ++i)
    bytes[i] = bytes[i] != 0;
}

std::string truncatedMessage(std::string_view fileName, const NpyHeader &header,
                             size_t available) {
  return "'" + std::string(fileName) + "' is truncated: its header describes " +
         formatTensorType(header.dtype, header.shape) + " (" +
         std::to_string(header.dataBytes) + " data bytes), but only " +
         std::to_string(available) + " follow";
}
} // namespace

bool loom::rt::parseNpy(const void *data, size_t size,
                        std::string_view fileName, NpyArray &array,
                        std::string &error) {
  NpyHeader header;
  if (!parseNpyHeader(data, size, fileName, header, error))
    return false;
  size_t available = size - header.dataOffset;
  if (available < header.dataBytes) {
    error = truncatedMessage(fileName, header, available);
    return false;
  }
  if (!array.data.allocate(header.dataBytes)) {
    error = "cannot allocate " + std::to_string(header.dataBytes) +
            " bytes for '" + std::string(fileName) + "'";
    return false;
  }
  if (header.dataBytes)
    std::memcpy(array.data.data(),
                static_cast<const char *>(data) + header.dataOffset,
                header.dataBytes);
  array.dtype = header.dtype;
  array.shape = std::move(header.shape);
  array.nbytes = header.dataBytes;
  normalizeBools(array);
  return true;
}

bool loom::rt::readNpy(const std::string &path, NpyArray &array,
                       std::string &error) {
  // Regular files only: a FIFO may never deliver, a device never end.
  uint64_t fileSize = 0;
  int fd = openRegularFile(path, fileSize, error, "read");
  if (fd < 0)
    return false;
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};

  // The preamble first, then the header it announces, then the data.
  std::string prefix(12, '\0');
  size_t got = 0;
  int err = 0;
  if (!readFull(fd, prefix.data(), prefix.size(), got, err)) {
    error = "cannot read '" + path + "': " + errnoMessage(err);
    return false;
  }
  prefix.resize(got);
  size_t dictOffset = 0, dictSize = 0;
  if (!parsePreamble(reinterpret_cast<const unsigned char *>(prefix.data()),
                     prefix.size(), path, dictOffset, dictSize, error))
    return false;
  size_t headerEnd = dictOffset + dictSize;
  if (headerEnd > prefix.size()) {
    size_t have = prefix.size();
    prefix.resize(headerEnd);
    if (!readFull(fd, prefix.data() + have, headerEnd - have, got, err)) {
      error = "cannot read '" + path + "': " + errnoMessage(err);
      return false;
    }
    prefix.resize(have + got);
  }
  NpyHeader header;
  if (!parseNpyHeader(prefix.data(), prefix.size(), path, header, error))
    return false;

  // Bytes of data already read with the preamble (a header shorter than the
  // preamble buffer is malformed but possible).
  size_t already = prefix.size() - header.dataOffset;
  // Refuse before allocating what the header claims.
  size_t available =
      fileSize > header.dataOffset ? fileSize - header.dataOffset : 0;
  if (available < header.dataBytes) {
    error = truncatedMessage(path, header, available);
    return false;
  }
  if (!array.data.allocate(header.dataBytes)) {
    error = "cannot allocate " + std::to_string(header.dataBytes) +
            " bytes for '" + path + "'";
    return false;
  }
  size_t copied = already < header.dataBytes ? already : header.dataBytes;
  if (copied)
    std::memcpy(array.data.data(), prefix.data() + header.dataOffset, copied);
  if (!readFull(fd, static_cast<char *>(array.data.data()) + copied,
                header.dataBytes - copied, got, err)) {
    error = "cannot read '" + path + "': " + errnoMessage(err);
    array.data.reset();
    return false;
  }
  if (copied + got < header.dataBytes) {
    error = truncatedMessage(path, header, copied + got);
    array.data.reset();
    return false;
  }
  array.dtype = header.dtype;
  array.shape = std::move(header.shape);
  array.nbytes = header.dataBytes;
  normalizeBools(array);
  return true;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

std::string loom::rt::encodeNpyHeader(loom_dtype dtype, const int64_t *shape,
                                      size_t rank) {
  const char *descr = npyDescr(dtype);
  if (!descr)
    return std::string();
  // The dict exactly as numpy's format.write_array_header_1_0 spells it.
  std::string dict = "{'descr': '";
  dict += descr;
  dict += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (rank == 1)
    dict += ',';
  dict += "), }";

  // Pad with spaces so that magic + version + length + dict + '\n' is a
  // multiple of 64: the data then starts aligned, as numpy does.
  size_t preamble = 10;
  size_t total = preamble + dict.size() + 1;
  bool version2 = false;
  if ((total + 63) / 64 * 64 - preamble > 0xffff) {
    // Too long for a 1.0 header's uint16 length (thousands of dimensions).
    version2 = true;
    preamble = 12;
    total = preamble + dict.size() + 1;
  }
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';

  std::string header(npyMagic, npyMagicSize);
  header += static_cast<char>(version2 ? 2 : 1);
  header += '\0';
  size_t length = dict.size();
  for (size_t i = 0; i < (version2 ? 4u : 2u); ++i)
    header += static_cast<char>((length >> (8 * i)) & 0xff);
  header += dict;
  return header;
}

bool loom::rt::writeNpy(int fd, std::string_view fileName, loom_dtype dtype,
                        const int64_t *shape, size_t rank, const void *data,
                        std::string &error) {
  size_t nbytes = 0;
  if (!checkedByteSize(dtype, shape, rank, nbytes)) {
    error = "cannot write '" + std::string(fileName) +
            "': invalid dtype or shape " + formatTensorType(dtype, shape, rank);
    return false;
  }
  std::string header = encodeNpyHeader(dtype, shape, rank);
  int err = 0;
  if (!writeAll(fd, header.data(), header.size(), err) ||
      (nbytes && !writeAll(fd, data, nbytes, err))) {
    error =
        "cannot write '" + std::string(fileName) + "': " + errnoMessage(err);
    return false;
  }
  return true;
}

bool loom::rt::writeNpyFile(const std::string &path, loom_dtype dtype,
                            const int64_t *shape, size_t rank, const void *data,
                            std::string &error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = "cannot write '" + path + "': " + errnoMessage(errno);
    return false;
  }
  bool ok = writeNpy(fd, path, dtype, shape, rank, data, error);
  if (::close(fd) != 0 && ok) {
    error = "cannot write '" + path + "': " + errnoMessage(errno);
    ok = false;
  }
  return ok;
}
