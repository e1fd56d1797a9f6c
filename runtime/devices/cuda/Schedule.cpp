//===- Schedule.cpp - program.cuda.json, read and checked -----------------===//

#include "devices/cuda/Schedule.h"
#include "loom/runtime/ABI.h"
#include "loom/runtime/Json.h"
#include <algorithm>
#include <cstring>

using namespace loom::rt;
using namespace loom::rt::cuda;

namespace {

// Sizes above this are refused: every sum of two stays below 2^63.
constexpr uint64_t kMaxBytes = uint64_t(1) << 62;
// Kernels take few arguments; a descriptor has few dimensions.
constexpr size_t kMaxKernelArgs = 4096, kMaxRank = 16;

class Reader {
public:
  Reader(const std::string &path, std::string &error)
      : path(path), error(error) {}

  bool fail(const std::string &message) {
    error = path + ": " + context + message;
    return false;
  }

  /// A member that must be there.
  const json::Value *member(const json::Value &object, const char *key,
                            json::Kind kind) {
    const json::Value *v = object.find(key);
    if (!v) {
      fail(std::string("'") + key + "' is missing");
      return nullptr;
    }
    if (v->kind() != kind) {
      fail(std::string("'") + key + "' must be a " + json::kindName(kind) +
           ", found a " + json::kindName(v->kind()));
      return nullptr;
    }
    return v;
  }

  bool integer(const json::Value &object, const char *key, int64_t lo,
               int64_t hi, int64_t &out) {
    const json::Value *v = object.find(key);
    if (!v)
      return fail(std::string("'") + key + "' is missing");
    return integerValue(*v, key, lo, hi, out);
  }

  bool integerValue(const json::Value &v, const char *what, int64_t lo,
                    int64_t hi, int64_t &out) {
    if (!v.isInteger() || v.getInteger() < lo || v.getInteger() > hi)
      return fail(std::string("'") + what + "' must be an integer from " +
                  std::to_string(lo) + " to " + std::to_string(hi));
    out = v.getInteger();
    return true;
  }

  bool string(const json::Value &object, const char *key, std::string &out) {
    const json::Value *v = member(object, key, json::Kind::String);
    if (!v)
      return false;
    out = v->getString();
    return true;
  }

  /// [buffer, byte offset] into a known buffer.
  bool ref(const json::Value &object, const char *key, size_t numBuffers,
           Ref &out) {
    const json::Value *v = member(object, key, json::Kind::Array);
    if (!v)
      return false;
    const auto &items = v->getArray();
    int64_t buffer, offset;
    if (items.size() != 2 ||
        !integerValue(items[0], key, 0, int64_t(numBuffers) - 1, buffer) ||
        !integerValue(items[1], key, 0, int64_t(kMaxBytes), offset))
      return error.empty()
                 ? fail(std::string("'") + key +
                        "' must be [buffer, byte offset] of one of the " +
                        std::to_string(numBuffers) + " buffers")
                 : false;
    out = {uint32_t(buffer), uint64_t(offset)};
    return true;
  }

  std::string context;

private:
  const std::string &path;
  std::string &error;
};

bool chipName(const std::string &chip) { return chipNumber(chip) > 0; }

/// Whether a relative file name stays inside the artifact.
bool plainFileName(const std::string &name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." &&
         name != "..";
}

bool elementType(const std::string &name, ElementType &out) {
  static const std::pair<const char *, ElementType> names[] = {
      {"f32", ElementType::F32},
      {"f64", ElementType::F64},
      {"f16", ElementType::F16},
      {"bf16", ElementType::BF16}};
  for (auto &[n, t] : names)
    if (name == n) {
      out = t;
      return true;
    }
  return false;
}

int64_t elementSize(ElementType t) {
  switch (t) {
  case ElementType::F64:
    return 8;
  case ElementType::F32:
    return 4;
  default:
    return 2;
  }
}

class Checker {
public:
  Checker(Schedule &s, Reader &r) : s(s), r(r) {}

  /// [offset, offset + bytes) of `ref`'s buffer holds the access.
  bool within(const Ref &ref, uint64_t offset, uint64_t bytes,
              const char *what) {
    const BufferDesc &b = s.buffers[ref.buffer];
    uint64_t start = ref.offset + offset;
    if (start > b.bytes || bytes > b.bytes - start)
      return r.fail(std::string(what) + " reaches bytes " +
                    std::to_string(start) + " to " +
                    std::to_string(start + bytes) + " of buffer " +
                    std::to_string(ref.buffer) + ", which has " +
                    std::to_string(b.bytes));
    return true;
  }

  /// The bytes a strided view reaches, from its first element.
  bool reach(int64_t elementBytes, int64_t offset,
             const std::vector<int64_t> &sizes,
             const std::vector<int64_t> &strides, uint64_t &start,
             uint64_t &bytes) {
    // Every size and stride is below 2^40 and the rank at most 16, so no
    // product or sum of them overflows 64 bits.
    __int128 last = offset, first = offset;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) {
        start = 0;
        bytes = 0;
        return true;
      }
      __int128 span = __int128(sizes[d] - 1) * strides[d];
      if (span < 0)
        first += span;
      else
        last += span;
    }
    if (first < 0)
      return r.fail("a view reaches before its buffer's start");
    __int128 end = (last + 1) * elementBytes;
    if (end > __int128(kMaxBytes))
      return r.fail("a view reaches past 2^62 bytes");
    start = uint64_t(first * elementBytes);
    bytes = uint64_t(end) - start;
    return true;
  }

  bool matrix(const json::Value &object, const char *key, int64_t rows,
              int64_t cols, int64_t batch, ElementType type, Matrix &m) {
    const json::Value *v = r.member(object, key, json::Kind::Object);
    if (!v)
      return false;
    std::string order;
    int64_t ld, stride, mr, mc;
    if (!r.ref(*v, "ref", s.buffers.size(), m.ref) ||
        !r.integer(*v, "rows", 0, kMaxDim, mr) ||
        !r.integer(*v, "cols", 0, kMaxDim, mc) ||
        !r.integer(*v, "ld", 1, kMaxDim, ld) ||
        !r.integer(*v, "stride", 0, kMaxDim, stride) ||
        !r.string(*v, "order", order))
      return false;
    if (order != "row" && order != "col")
      return r.fail(std::string(key) + ".order must be \"row\" or \"col\"");
    m.rows = mr;
    m.cols = mc;
    m.ld = ld;
    m.stride = stride;
    m.rowMajor = order == "row";
    if (mr != rows || mc != cols)
      return r.fail(std::string(key) + " is " + std::to_string(mr) + "x" +
                    std::to_string(mc) + ", expected " + std::to_string(rows) +
                    "x" + std::to_string(cols));
    if (ld < (m.rowMajor ? mc : mr))
      return r.fail(std::string(key) + ".ld " + std::to_string(ld) +
                    " is less than a " + (m.rowMajor ? "row" : "column"));
    uint64_t start, bytes;
    if (!reach(elementSize(type), 0, {batch, mr, mc},
               {stride, m.rowMajor ? ld : 1, m.rowMajor ? 1 : ld}, start,
               bytes))
      return false;
    return within(m.ref, start, bytes, key);
  }

  bool launch(const json::Value &in, Launch &out) {
    int64_t kernel, shared;
    if (!r.integer(in, "kernel", 0, int64_t(s.kernels.size()) - 1, kernel) ||
        !r.integer(in, "shared", 0, 1 << 20, shared))
      return false;
    out.kernel = uint32_t(kernel);
    out.shared = uint32_t(shared);
    for (const char *key : {"grid", "block"}) {
      const json::Value *v = r.member(in, key, json::Kind::Array);
      if (!v)
        return false;
      if (v->getArray().size() != 3)
        return r.fail(std::string("'") + key + "' must have 3 sizes");
      uint32_t *dims = key[0] == 'g' ? out.grid : out.block;
      for (size_t d = 0; d < 3; ++d) {
        int64_t value;
        if (!r.integerValue(v->getArray()[d], key, 1,
                            key[0] == 'g' ? INT32_MAX : 1024, value))
          return false;
        dims[d] = uint32_t(value);
      }
    }
    if (uint64_t(out.block[0]) * out.block[1] * out.block[2] > 1024)
      return r.fail("a block of more than 1024 threads");
    const json::Value *args = r.member(in, "args", json::Kind::Array);
    if (!args)
      return false;
    if (args->getArray().size() > kMaxKernelArgs)
      return r.fail("more than " + std::to_string(kMaxKernelArgs) +
                    " kernel arguments");
    for (const json::Value &a : args->getArray()) {
      if (!a.isObject())
        return r.fail("a kernel argument must be an object");
      KernelArg arg;
      if (a.find("memref")) {
        if (!memref(a, arg))
          return false;
      } else if (const json::Value *v = a.find("i64")) {
        if (!r.integerValue(*v, "i64", INT64_MIN, INT64_MAX, arg.i))
          return false;
        arg.kind = KernelArg::I64;
      } else if (const json::Value *v = a.find("i32")) {
        if (!r.integerValue(*v, "i32", INT32_MIN, INT32_MAX, arg.i))
          return false;
        arg.kind = KernelArg::I32;
      } else if (const json::Value *v = a.find("f32")) {
        if (!v->isNumber())
          return r.fail("'f32' must be a number");
        arg.kind = KernelArg::F32;
        arg.f = v->getNumber();
      } else if (const json::Value *v = a.find("f64")) {
        if (!v->isNumber())
          return r.fail("'f64' must be a number");
        arg.kind = KernelArg::F64;
        arg.f = v->getNumber();
      } else {
        return r.fail("a kernel argument must have one of 'memref', 'i64', "
                      "'i32', 'f32', 'f64'");
      }
      out.args.push_back(std::move(arg));
    }
    return true;
  }

  bool memref(const json::Value &a, KernelArg &arg) {
    arg.kind = KernelArg::Memref;
    if (!r.ref(a, "memref", s.buffers.size(), arg.ref) ||
        !r.integer(a, "elem", 1, 16, arg.elementBytes) ||
        !r.integer(a, "offset", -kMaxDim, kMaxDim, arg.offset))
      return false;
    for (const char *key : {"sizes", "strides"}) {
      const json::Value *v = r.member(a, key, json::Kind::Array);
      if (!v)
        return false;
      if (v->getArray().size() > kMaxRank)
        return r.fail(std::string("'") + key + "' has more than " +
                      std::to_string(kMaxRank) + " dimensions");
      std::vector<int64_t> &dims = key[1] == 'i' ? arg.sizes : arg.strides;
      for (const json::Value &d : v->getArray()) {
        int64_t value;
        if (!r.integerValue(d, key, key[1] == 'i' ? 0 : -kMaxDim, kMaxDim,
                            value))
          return false;
        dims.push_back(value);
      }
    }
    if (arg.sizes.size() != arg.strides.size())
      return r.fail("'sizes' and 'strides' differ in length");
    uint64_t start, bytes;
    return reach(arg.elementBytes, arg.offset, arg.sizes, arg.strides, start,
                 bytes) &&
           within(arg.ref, start, bytes, "a kernel argument");
  }

  bool gemm(const json::Value &in, Gemm &g) {
    std::string ab, c;
    int64_t beta;
    if (!r.integer(in, "m", 0, kMaxDim, g.m) ||
        !r.integer(in, "n", 0, kMaxDim, g.n) ||
        !r.integer(in, "k", 0, kMaxDim, g.k) ||
        !r.integer(in, "batch", 1, kMaxDim, g.batch) ||
        !r.integer(in, "beta", 0, 1, beta) || !r.string(in, "type_ab", ab) ||
        !r.string(in, "type_c", c))
      return false;
    g.beta = int(beta);
    if (!elementType(ab, g.typeAB) || !elementType(c, g.typeC))
      return r.fail("unknown GEMM types '" + ab + "', '" + c + "'");
    bool sameType = g.typeAB == g.typeC;
    bool widened =
        (g.typeAB == ElementType::F16 || g.typeAB == ElementType::BF16) &&
        g.typeC == ElementType::F32;
    if (!sameType && !widened)
      return r.fail("cuBLASLt has no GEMM of " + ab + " into " + c);
    if (!matrix(in, "a", g.m, g.k, g.batch, g.typeAB, g.a) ||
        !matrix(in, "b", g.k, g.n, g.batch, g.typeAB, g.b) ||
        !matrix(in, "c", g.m, g.n, g.batch, g.typeC, g.c))
      return false;
    if (!g.c.rowMajor)
      return r.fail("the GEMM's C must be row-major");
    return true;
  }

  bool fill(const json::Value &in, Fill &f) {
    int64_t bytes, pattern, size;
    if (!r.ref(in, "dst", s.buffers.size(), f.dst) ||
        !r.integer(in, "bytes", 0, kMaxBytes, bytes) ||
        !r.integer(in, "pattern", 0, UINT32_MAX, pattern) ||
        !r.integer(in, "size", 1, 4, size))
      return false;
    if (size == 3 || bytes % size || f.dst.offset % size)
      return r.fail("a fill of " + std::to_string(size) +
                    "-byte patterns needs sizes and offsets that are "
                    "multiples of it");
    if (size < 4 && pattern >> (8 * size))
      return r.fail("the fill pattern does not fit its size");
    f.bytes = uint64_t(bytes);
    f.pattern = uint32_t(pattern);
    f.size = int(size);
    return within(f.dst, 0, f.bytes, "a fill");
  }

  bool copy(const json::Value &in, Copy &c) {
    int64_t bytes;
    if (!r.ref(in, "src", s.buffers.size(), c.src) ||
        !r.ref(in, "dst", s.buffers.size(), c.dst) ||
        !r.integer(in, "bytes", 0, kMaxBytes, bytes))
      return false;
    c.bytes = uint64_t(bytes);
    return within(c.src, 0, c.bytes, "a copy's source") &&
           within(c.dst, 0, c.bytes, "a copy's destination");
  }

  bool collective(const json::Value &in, Collective &c) {
    static const std::pair<const char *, size_t> kinds[] = {
        {"all_reduce", 4}, {"all_gather", 3}, {"reduce_scatter", 5},
        {"all_to_all", 5}, {"broadcast", 3},  {"take_shard", 3},
        {"send", 4},       {"recv", 4}};
    int64_t srcBytes, dstBytes;
    if (!r.string(in, "kind", c.kind) ||
        !r.ref(in, "src", s.buffers.size(), c.src) ||
        !r.ref(in, "dst", s.buffers.size(), c.dst) ||
        !r.integer(in, "src_bytes", 0, kMaxBytes, srcBytes) ||
        !r.integer(in, "dst_bytes", 0, kMaxBytes, dstBytes))
      return false;
    size_t arity = 0;
    for (auto &[name, n] : kinds)
      if (c.kind == name)
        arity = n;
    if (!arity)
      return r.fail("unknown collective '" + c.kind + "'");
    const json::Value *ints = r.member(in, "ints", json::Kind::Array);
    if (!ints)
      return false;
    if (ints->getArray().size() != arity)
      return r.fail("'" + c.kind + "' takes " + std::to_string(arity) +
                    " integers");
    for (const json::Value &v : ints->getArray()) {
      int64_t value;
      if (!r.integerValue(v, "ints", INT64_MIN, INT64_MAX, value))
        return false;
      c.ints.push_back(value);
    }
    c.srcBytes = uint64_t(srcBytes);
    c.dstBytes = uint64_t(dstBytes);
    return within(c.src, 0, c.srcBytes, "a collective's source") &&
           within(c.dst, 0, c.dstBytes, "a collective's destination");
  }

  static constexpr int64_t kMaxDim = int64_t(1) << 40;

private:
  Schedule &s;
  Reader &r;
};

bool readImage(Reader &r, const json::Value &v, KernelImage &image) {
  if (!v.isObject())
    return r.fail("a kernel image must be an object");
  if (!r.string(v, "chip", image.chip) || !r.string(v, "file", image.file))
    return false;
  if (!chipName(image.chip))
    return r.fail("'" + image.chip + "' is not a chip (sm_NN)");
  if (!plainFileName(image.file))
    return r.fail("'" + image.file + "' is not a file of the artifact");
  return true;
}

bool readBuffers(Reader &r, const json::Value &root, Schedule &s) {
  const json::Value *buffers = r.member(root, "buffers", json::Kind::Array);
  if (!buffers)
    return false;
  if (buffers->getArray().size() > UINT32_MAX)
    return r.fail("too many buffers");
  for (size_t i = 0; i < buffers->getArray().size(); ++i) {
    const json::Value &v = buffers->getArray()[i];
    r.context = "buffer " + std::to_string(i) + ": ";
    if (!v.isObject())
      return r.fail("must be an object");
    BufferDesc b;
    std::string space;
    int64_t bytes;
    if (!r.string(v, "space", space) ||
        !r.integer(v, "bytes", 0, kMaxBytes, bytes))
      return false;
    b.bytes = uint64_t(bytes);
    if (space == "arg") {
      b.space = Space::Arg;
      if (!r.integer(v, "index", 0, 1 << 24, b.index))
        return false;
      s.numArguments = std::max(s.numArguments, size_t(b.index) + 1);
    } else if (space == "const" || space == "arena") {
      b.space = space == "const" ? Space::Const : Space::Arena;
      int64_t offset;
      if (!r.integer(v, "offset", 0, kMaxBytes, offset))
        return false;
      b.offset = uint64_t(offset);
      uint64_t limit =
          b.space == Space::Const ? s.constantsBytes : s.arenaBytes;
      if (b.offset + b.bytes > limit)
        return r.fail("bytes " + std::to_string(b.offset) + " to " +
                      std::to_string(b.offset + b.bytes) + " lie outside the " +
                      std::to_string(limit) + " bytes of the " + space);
      if (b.space == Space::Arena) {
        const json::Value *live = r.member(v, "live", json::Kind::Array);
        if (!live)
          return false;
        if (live->getArray().size() != 2 ||
            !r.integerValue(live->getArray()[0], "live", 0, INT32_MAX,
                            b.first) ||
            !r.integerValue(live->getArray()[1], "live", b.first, INT32_MAX,
                            b.last))
          return r.fail("'live' must be [first, last] instructions");
      }
    } else {
      return r.fail("unknown space '" + space + "'");
    }
    s.buffers.push_back(b);
  }
  r.context.clear();
  return true;
}

/// Arena ranges live at the same time must not share bytes: the device
/// would hand one buffer's contents to another.
bool checkArena(Reader &r, const Schedule &s) {
  std::vector<size_t> arena;
  for (size_t i = 0; i < s.buffers.size(); ++i)
    if (s.buffers[i].space == Space::Arena && s.buffers[i].bytes)
      arena.push_back(i);
  std::sort(arena.begin(), arena.end(), [&](size_t a, size_t b) {
    return s.buffers[a].offset < s.buffers[b].offset;
  });
  for (size_t x = 0; x < arena.size(); ++x) {
    const BufferDesc &a = s.buffers[arena[x]];
    for (size_t y = x + 1; y < arena.size(); ++y) {
      const BufferDesc &b = s.buffers[arena[y]];
      if (b.offset >= a.offset + a.bytes)
        break;
      if (a.first <= b.last && b.first <= a.last)
        return r.fail("arena buffers " + std::to_string(arena[x]) + " and " +
                      std::to_string(arena[y]) +
                      " share bytes while both are live");
    }
  }
  return true;
}

/// Every instruction uses arena buffers only while they are live.
bool checkLiveness(Reader &r, const Schedule &s) {
  auto live = [&](const Ref &ref, size_t at) {
    const BufferDesc &b = s.buffers[ref.buffer];
    if (b.space != Space::Arena ||
        (int64_t(at) >= b.first && int64_t(at) <= b.last))
      return true;
    return r.fail("instruction " + std::to_string(at) + " uses arena buffer " +
                  std::to_string(ref.buffer) + " outside its live range");
  };
  for (size_t i = 0; i < s.instructions.size(); ++i) {
    const Instruction &in = s.instructions[i];
    bool ok = true;
    switch (in.op) {
    case Instruction::LaunchOp:
      for (const KernelArg &a : s.launches[in.index].args)
        ok = ok && (a.kind != KernelArg::Memref || live(a.ref, i));
      break;
    case Instruction::GemmOp: {
      const Gemm &g = s.gemms[in.index];
      ok = live(g.a.ref, i) && live(g.b.ref, i) && live(g.c.ref, i);
      break;
    }
    case Instruction::FillOp:
      ok = live(s.fills[in.index].dst, i);
      break;
    case Instruction::CopyOp:
      ok = live(s.copies[in.index].src, i) && live(s.copies[in.index].dst, i);
      break;
    case Instruction::CollectiveOp:
      ok = live(s.collectives[in.index].src, i) &&
           live(s.collectives[in.index].dst, i);
      break;
    }
    if (!ok)
      return false;
  }
  return true;
}

} // namespace

int loom::rt::cuda::chipNumber(const std::string &chip) {
  if (chip.size() < 5 || chip.compare(0, 3, "sm_") != 0)
    return -1;
  std::string digits = chip.substr(3);
  if (!digits.empty() && digits.back() == 'a')
    digits.pop_back();
  if (digits.empty() || digits.size() > 4 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(digits);
}

const KernelImage *loom::rt::cuda::chooseImage(const Schedule &schedule, int cc,
                                               bool &isPtx) {
  isPtx = false;
  const KernelImage *best = nullptr;
  for (const KernelImage &image : schedule.cubins) {
    int n = chipNumber(image.chip);
    bool accelerated = image.chip.back() == 'a';
    // sm_90a code runs on 9.0 only; sm_80 code on 8.x from 8.0.
    if (accelerated ? n != cc : (n / 10 != cc / 10 || n > cc))
      continue;
    if (!best || n > chipNumber(best->chip))
      best = &image;
  }
  if (best)
    return best;
  if (!schedule.ptx.chip.empty() && chipNumber(schedule.ptx.chip) <= cc &&
      schedule.ptx.chip.back() != 'a') {
    isPtx = true;
    return &schedule.ptx;
  }
  return nullptr;
}

bool loom::rt::cuda::parseSchedule(const std::string &text,
                                   const std::string &path, Schedule &s,
                                   std::string &error) {
  error.clear();
  Reader r(path, error);
  json::Value root;
  json::ParseError parseError;
  json::ParseOptions options;
  options.maxDepth = 16;
  if (!json::parse(text, root, parseError, options))
    return r.fail("not JSON: " + parseError.format());
  if (!root.isObject())
    return r.fail("must be a JSON object");
  std::string format;
  int64_t version, constantsBytes, arenaBytes;
  if (!r.string(root, "format", format))
    return false;
  if (format != LOOM_CUDA_PROGRAM_FORMAT)
    return r.fail("'format' is '" + format + "', not '" +
                  LOOM_CUDA_PROGRAM_FORMAT "'");
  if (!r.integer(root, "version", 0, INT32_MAX, version))
    return false;
  if (version != LOOM_CUDA_PROGRAM_VERSION)
    return r.fail("version " + std::to_string(version) +
                  " (this runtime reads version " +
                  std::to_string(LOOM_CUDA_PROGRAM_VERSION) +
                  "): rebuild the artifact with a matching loomc");
  if (!r.integer(root, "constants_bytes", 0, kMaxBytes, constantsBytes) ||
      !r.integer(root, "arena_bytes", 0, kMaxBytes, arenaBytes))
    return false;
  s.constantsBytes = uint64_t(constantsBytes);
  s.arenaBytes = uint64_t(arenaBytes);
  if (const json::Value *c = root.find("constants")) {
    if (!c->isString() || !plainFileName(c->getString()))
      return r.fail("'constants' must name a file of the artifact");
    s.constantsFile = c->getString();
  } else if (s.constantsBytes) {
    return r.fail("'constants_bytes' is set but 'constants' is missing");
  }
  if (const json::Value *ptx = root.find("ptx"))
    if (!readImage(r, *ptx, s.ptx))
      return false;
  const json::Value *cubins = r.member(root, "cubins", json::Kind::Array);
  if (!cubins)
    return false;
  for (const json::Value &v : cubins->getArray()) {
    s.cubins.emplace_back();
    if (!readImage(r, v, s.cubins.back()))
      return false;
  }
  const json::Value *kernels = r.member(root, "kernels", json::Kind::Array);
  if (!kernels)
    return false;
  for (const json::Value &k : kernels->getArray()) {
    if (!k.isString() || k.getString().empty() || k.getString().size() > 1024)
      return r.fail("kernel names must be non-empty strings");
    s.kernels.push_back(k.getString());
  }
  if (!s.kernels.empty() && s.ptx.chip.empty() && s.cubins.empty())
    return r.fail("it has kernels but no PTX or cubin");
  if (!readBuffers(r, root, s))
    return false;

  const json::Value *instructions =
      r.member(root, "instructions", json::Kind::Array);
  if (!instructions)
    return false;
  Checker check(s, r);
  for (size_t i = 0; i < instructions->getArray().size(); ++i) {
    const json::Value &v = instructions->getArray()[i];
    r.context = "instruction " + std::to_string(i) + ": ";
    if (!v.isObject())
      return r.fail("must be an object");
    std::string op;
    if (!r.string(v, "op", op))
      return false;
    Instruction in;
    bool ok;
    if (op == "launch") {
      in = {Instruction::LaunchOp, s.launches.size()};
      s.launches.emplace_back();
      ok = check.launch(v, s.launches.back());
    } else if (op == "gemm") {
      in = {Instruction::GemmOp, s.gemms.size()};
      s.gemms.emplace_back();
      ok = check.gemm(v, s.gemms.back());
    } else if (op == "fill") {
      in = {Instruction::FillOp, s.fills.size()};
      s.fills.emplace_back();
      ok = check.fill(v, s.fills.back());
    } else if (op == "copy") {
      in = {Instruction::CopyOp, s.copies.size()};
      s.copies.emplace_back();
      ok = check.copy(v, s.copies.back());
    } else if (op == "collective") {
      in = {Instruction::CollectiveOp, s.collectives.size()};
      s.collectives.emplace_back();
      ok = check.collective(v, s.collectives.back());
    } else {
      return r.fail("unknown op '" + op + "'");
    }
    if (!ok)
      return false;
    s.instructions.push_back(in);
  }
  r.context.clear();
  return checkArena(r, s) && checkLiveness(r, s);
}
