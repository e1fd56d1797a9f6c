//===- Schedule.h - program.cuda.json, read and checked ---------*- C++ -*-===//
//
// The host schedule loomc --target=cuda writes (docs/CUDA.md): a table of
// buffers (the entry's arguments, ranges of the constants and of one
// arena) and the instructions the device runs in order. Reading it checks
// everything the device will trust: every buffer reference names a buffer,
// every access (a kernel's memref, a GEMM's matrices, a fill or copy) lies
// within its buffer, arena ranges lie within the arena and ranges live at
// the same time do not overlap. No CUDA here: the tests read schedules on
// any machine.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_DEVICES_CUDA_SCHEDULE_H
#define LOOM_RUNTIME_DEVICES_CUDA_SCHEDULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace loom::rt::cuda {

enum class Space { Arg, Const, Arena };

struct BufferDesc {
  Space space = Space::Arg;
  /// Arg: the entry buffer's index.
  int64_t index = 0;
  /// Const, Arena: the byte offset in the constants or the arena.
  uint64_t offset = 0;
  uint64_t bytes = 0;
  /// Arena: the first and last instruction that use it.
  int64_t first = 0, last = 0;
};

/// A byte position in a buffer.
struct Ref {
  uint32_t buffer = 0;
  uint64_t offset = 0;
};

struct KernelArg {
  enum Kind { Memref, I64, I32, F32, F64 } kind = Memref;
  /// Memref: the buffer's address plus `ref.offset` is the base pointer;
  /// `offset` (elements), sizes and strides the descriptor's.
  Ref ref;
  int64_t elementBytes = 0, offset = 0;
  std::vector<int64_t> sizes, strides;
  int64_t i = 0;
  double f = 0;
};

struct Launch {
  uint32_t kernel = 0;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t shared = 0;
  std::vector<KernelArg> args;
};

enum class ElementType { F32, F64, F16, BF16 };

/// A GEMM operand: `rows` x `cols`, row-major (`ld` elements between rows)
/// or column-major (`ld` between columns), `stride` between batches.
struct Matrix {
  Ref ref;
  int64_t rows = 0, cols = 0, ld = 0, stride = 0;
  bool rowMajor = true;
};

/// C = A B (beta 0) or C = A B + C (beta 1), per batch.
struct Gemm {
  Matrix a, b, c;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int beta = 0;
  ElementType typeAB = ElementType::F32, typeC = ElementType::F32;
};

struct Fill {
  Ref dst;
  uint64_t bytes = 0;
  uint32_t pattern = 0;
  /// 1, 2 or 4.
  int size = 4;
};

struct Copy {
  Ref src, dst;
  uint64_t bytes = 0;
};

/// A call of the runtime's loom_coll_<kind> on the host, through staging
/// copies of the two buffers.
struct Collective {
  std::string kind;
  Ref src, dst;
  uint64_t srcBytes = 0, dstBytes = 0;
  std::vector<int64_t> ints;
};

struct Instruction {
  enum Op { LaunchOp, GemmOp, FillOp, CopyOp, CollectiveOp } op = LaunchOp;
  /// Index into the vector of its kind.
  size_t index = 0;
};

struct KernelImage {
  std::string chip;
  std::string file;
};

struct Schedule {
  /// The PTX (chip empty: none) and the cubins.
  KernelImage ptx;
  std::vector<KernelImage> cubins;
  /// constants.bin (empty: none) and its size.
  std::string constantsFile;
  uint64_t constantsBytes = 0;
  uint64_t arenaBytes = 0;
  std::vector<std::string> kernels;
  std::vector<BufferDesc> buffers;
  /// How many entry buffers it takes (1 + the largest argument index).
  size_t numArguments = 0;
  std::vector<Instruction> instructions;
  std::vector<Launch> launches;
  std::vector<Gemm> gemms;
  std::vector<Fill> fills;
  std::vector<Copy> copies;
  std::vector<Collective> collectives;
};

/// Reads `text` (the file `path`, named in messages); false with `error`
/// ("program.cuda.json: instruction 3: ...") when it is not a valid
/// schedule.
bool parseSchedule(const std::string &text, const std::string &path,
                   Schedule &schedule, std::string &error);

/// The compute capability of "sm_90" / "sm_90a" as 90, or -1.
int chipNumber(const std::string &chip);

/// The kernel image to load on a GPU of compute capability `cc` (major *
/// 10 + minor): the cubin for it, else the newest cubin of its major
/// version not above it, else the PTX when its chip is not above it.
/// Null when none runs there.
const KernelImage *chooseImage(const Schedule &schedule, int cc, bool &isPtx);

} // namespace loom::rt::cuda

#endif // LOOM_RUNTIME_DEVICES_CUDA_SCHEDULE_H
