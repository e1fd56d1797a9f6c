//===- Program.h - The loom_program handle ----------------------*- C++ -*-===//
//
// Shared by the core: Program.cpp (loading, running), ProgramInfo.cpp (the
// signature accessors), Parameters.cpp (owned, mutable parameters) and
// Binding.cpp (communicators); and by the training loop above it.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_CORE_PROGRAM_H
#define LOOM_RUNTIME_CORE_PROGRAM_H

#include "comm/Comm.h"
#include "core/DeviceMirror.h"
#include "core/Manifest.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include <string>
#include <vector>

namespace loom::rt {
/// What loom_tensor_info points into, per tensor.
struct TensorText {
  /// Per dimension, "dp,tp" (loom_program_tensor_sharding).
  std::vector<std::string> sharding;
};
} // namespace loom::rt

struct loom_program {
  std::string artifactDir;
  /// The stages of the pipelined artifact this program is one stage of
  /// (loom_program_load_rank), else 1.
  int64_t pipelineStages = 1;
  /// For a stage of a pipelined artifact: its index, the pipelined
  /// artifact's directory, each rank's stage and each stage's directory.
  int64_t pipelineStage = 0;
  std::string pipelineDir;
  /// The mesh axis whose coordinate is the stage.
  std::string pipelineAxis;
  std::vector<int64_t> rankStages;
  std::vector<std::string> stageDirs;
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

  /// The device the program runs on, the stream its runs go to, and its
  /// code; all null when loaded with LOOM_LOAD_MANIFEST_ONLY (so
  /// `executable` says whether the program can run).
  loom_device *device = nullptr;
  loom_stream *stream = nullptr;
  loom_executable *executable = nullptr;
  /// The tensors in device memory, for devices that are not host memory
  /// (mutable: the parameter-update hook marks its copies stale).
  mutable loom::rt::DeviceMirror mirror;

  /// Unbound: comm is null and every group has one rank.
  loom::rt::Binding binding;

  ~loom_program();
};

namespace loom::rt {
/// The mapped parameter data of `program` (the global tensors).
const void *mappedParameter(const loom_program &program, size_t index);
/// Tells the program's device that parameter memory changed or goes away
/// (the parameter-update hook: devices cache what they derive from
/// parameters by address).
void parameterUpdated(const loom_program &program, const void *data,
                      size_t bytes);
/// The unbound binding: every group of one rank.
Binding unboundBinding(const Manifest &manifest);
/// Drops `program`'s binding (its groups and parameter blocks); also what
/// loom_comm_free does for programs still bound.
void unbindProgram(loom_program *program);
/// Rank `rank`'s block of every sharded parameter, or of every parameter
/// when `all` (zeros for `init: zeros`), into `blocks`.
bool makeParameterBlocks(const loom_program &program, int64_t rank, bool all,
                         std::vector<AlignedBuffer> &blocks,
                         std::string &error);
/// Makes block `index` the parameter's buffer, freeing the previous one
/// (the device is told about both).
void setParameterBlock(loom_program &program, size_t index,
                       AlignedBuffer &&block);
/// Gives every parameter an owned block (this rank's), keeping the current
/// values; false when out of memory.
bool ownParameters(loom_program &program, std::string &error);
/// Swaps parameter `index`'s buffer with `buffer` (same size), without a
/// copy: `buffer` then holds the old value.
void swapParameter(loom_program &program, size_t index, AlignedBuffer &buffer);
/// The parameter's mutable block (ownsParameters only), after telling the
/// device its contents change: for callers about to overwrite it.
void *mutableParameter(loom_program &program, size_t index);
} // namespace loom::rt

#endif // LOOM_RUNTIME_CORE_PROGRAM_H
