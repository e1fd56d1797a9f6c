//===- Program.h - The loom_program handle ----------------------*- C++ -*-===//
//
// Shared by Program.cpp (loading, running) and Comm.cpp (binding to a
// communicator, sharding inputs and gathering outputs).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_LIB_PROGRAM_H
#define LOOM_RUNTIME_LIB_PROGRAM_H

#include "Comm.h"
#include "Manifest.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include <string>
#include <vector>

namespace loom::rt {
using EntryFunction = void (*)(void **);

/// What loom_tensor_info points into, per tensor.
struct TensorText {
  /// Per dimension, "dp,tp" (loom_program_tensor_sharding).
  std::vector<std::string> sharding;
};
} // namespace loom::rt

struct loom_program {
  std::string artifactDir;
  loom::rt::Manifest manifest;
  std::vector<loom_tensor_info> parameterInfos;
  std::vector<loom_tensor_info> inputInfos;
  std::vector<loom_tensor_info> outputInfos;
  /// Indexed by loom_tensor_list, then tensor.
  std::vector<loom::rt::TensorText> tensorText[3];
  std::vector<std::string> groupAxes;
  unsigned flags = 0;

  void *mappedParameters = nullptr;
  size_t mappedSize = 0;
  /// What the program gets per parameter: the mapping, or this rank's
  /// block of a sharded parameter (held in parameterBlocks).
  std::vector<const void *> parameterData;
  std::vector<loom::rt::AlignedBuffer> parameterBlocks;
  /// Every parameter lives in parameterBlocks (training artifacts,
  /// zero-initialised parameters, parameters loaded from a file): the
  /// blocks are mutable state and outlive unbinding.
  bool ownsParameters = false;

  void *library = nullptr;
  loom::rt::EntryFunction entry = nullptr;

  /// Unbound: comm is null and every group has one rank.
  loom::rt::Binding binding;

  ~loom_program();
};

namespace loom::rt {
/// The mapped parameter data of `program` (the global tensors).
const void *mappedParameter(const loom_program &program, size_t index);
/// Makes this library's symbols visible to libraries loaded later (programs,
/// backend plugins), even when it was itself loaded RTLD_LOCAL.
void promoteRuntimeToGlobalScope();
/// The unbound binding: every group of one rank.
Binding unboundBinding(const Manifest &manifest);
/// Rank `rank`'s block of every sharded parameter, or of every parameter
/// when `all` (zeros for `init: zeros`), into `blocks`.
bool makeParameterBlocks(const loom_program &program, int64_t rank, bool all,
                         std::vector<AlignedBuffer> &blocks,
                         std::string &error);
/// Makes block `index` the parameter's buffer, freeing the previous one
/// (packed GEMM weights are cached by address: both ranges are forgotten).
void setParameterBlock(loom_program &program, size_t index,
                       AlignedBuffer &&block);
/// Gives every parameter an owned block (this rank's), keeping the current
/// values; false when out of memory.
bool ownParameters(loom_program &program, std::string &error);
/// Swaps parameter `index`'s buffer with `buffer` (same size), without a
/// copy: `buffer` then holds the old value.
void swapParameter(loom_program &program, size_t index, AlignedBuffer &buffer);
/// The parameter's mutable block (ownsParameters only), after forgetting
/// packings of its old contents: for callers about to overwrite it.
void *mutableParameter(loom_program &program, size_t index);
} // namespace loom::rt

#endif // LOOM_RUNTIME_LIB_PROGRAM_H
