//===- Binding.cpp - Programs on communicators ----------------------------===//
//
// Binding a program splits the world into the manifest's groups (the mesh
// arithmetic of Layout.h decides who is in which), creates the backend's
// groups over them and copies this rank's parameter blocks; the ranks agree
// on the outcome of each step, so that a failure on one rank fails the call
// on all. The program registers itself with the communicator, which unbinds
// it when freed first. Sharding inputs and gathering outputs use the same
// arithmetic.
//
//===----------------------------------------------------------------------===//

#include "comm/Comm.h"
#include "comm/Layout.h"
#include "core/Program.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include <cstring>

using namespace loom::rt;

namespace {
/// Every rank says whether its part succeeded; true when all did. On
/// failure `error` keeps this rank's own message, or names the first rank
/// that failed.
bool agree(loom_comm *comm, bool ok, std::string &error, bool &peerFailed) {
  int first = -1;
  std::string message;
  if (!firstFailedRank(comm, ok, "agreeing on the outcome of loom_program_bind",
                       first, message)) {
    error = "cannot agree with the other ranks: " + message;
    return false;
  }
  if (first < 0)
    return true;
  if (ok) {
    error = "rank " + std::to_string(first) +
            " could not bind the program (see its message)";
    peerFailed = true;
  }
  return false;
}

/// This rank's size, index and color in every group of the manifest.
void placeInGroups(const Manifest &manifest, int rank,
                   std::vector<BoundGroup> &groups,
                   std::vector<int64_t> &colors) {
  std::vector<int64_t> sizes = manifest.meshSizes();
  std::vector<int64_t> coords = layout::coordinates(sizes, rank);
  colors.assign(groups.size(), 0);
  for (size_t g = 0; g < manifest.groups.size(); ++g) {
    const std::vector<int> &axes = manifest.groups[g];
    groups[g].size = static_cast<int>(layout::sizeAlong(sizes, axes));
    groups[g].index = static_cast<int>(layout::indexAlong(sizes, coords, axes));
    colors[g] = layout::groupColor(sizes, axes, rank);
  }
}

/// loom_comm_free's way to unbind a program still bound.
void releaseProgram(void *program) {
  unbindProgram(static_cast<loom_program *>(program));
}
} // namespace

Binding loom::rt::unboundBinding(const Manifest &manifest) {
  Binding binding;
  for (const std::vector<int> &group : manifest.groups) {
    BoundGroup bound;
    bound.axes = manifest.axisNames(group, ", ");
    bound.axesJson = "[";
    for (size_t i = 0; i < group.size(); ++i)
      bound.axesJson +=
          (i ? "," : "") + json::quote(manifest.mesh[group[i]].name);
    bound.axesJson += "]";
    binding.groups.push_back(std::move(bound));
  }
  return binding;
}

void loom::rt::unbindProgram(loom_program *program) {
  loom_comm *comm = program->binding.comm;
  if (!comm)
    return;
  destroyGroups(comm, program->binding.groups);
  // Owned parameters are state (training): this rank's blocks stay.
  for (size_t i = 0;
       !program->ownsParameters && i < program->parameterBlocks.size(); ++i) {
    AlignedBuffer &block = program->parameterBlocks[i];
    if (!block.isAllocated())
      continue;
    parameterUpdated(*program, block.data(), block.size());
    block.reset();
    program->parameterData[i] = mappedParameter(*program, i);
  }
  program->binding = unboundBinding(program->manifest);
  removeClient(comm, program);
}

extern "C" int loom_program_bind(loom_program *program, loom_comm *comm,
                                 char *err, size_t errLen) {
  if (!program || !comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    std::string("loom_program_bind: the ") +
                        (program ? "communicator" : "program") + " is NULL",
                    err, errLen);
  if (!program->executable)
    return failWith(
        LOOM_ERROR_UNSUPPORTED,
        "loom_program_bind: artifact '" + program->artifactDir +
            "' was loaded with LOOM_LOAD_MANIFEST_ONLY and cannot run",
        err, errLen);
  const Manifest &manifest = program->manifest;
  // The same on every rank, so every rank returns here together.
  if (!manifest.mesh.empty() && manifest.meshSize() != comm->size)
    return failWith(LOOM_ERROR_INCOMPATIBLE,
                    "the program was compiled for a mesh of " +
                        std::to_string(manifest.meshSize()) + " devices (" +
                        manifest.describeMesh() + ") but runs on " +
                        std::to_string(comm->size) +
                        (comm->size == 1 ? " rank" : " ranks"),
                    err, errLen);
  unbindProgram(program);

  Binding binding = unboundBinding(manifest);
  binding.comm = comm;
  binding.rank = comm->rank;
  binding.stream = loom_stream_native(program->stream);
  std::vector<int64_t> colors;
  placeInGroups(manifest, comm->rank, binding.groups, colors);
  std::vector<AlignedBuffer> blocks;
  std::string error;
  bool peerFailed = false;
  bool ok = makeParameterBlocks(*program, comm->rank, program->ownsParameters,
                                blocks, error);
  if (!agree(comm, ok, error, peerFailed))
    return failWith(peerFailed ? LOOM_ERROR_PEER_FAILED
                               : LOOM_ERROR_OUT_OF_MEMORY,
                    "loom_program_bind: " + error, err, errLen);
  ok = splitGroups(comm, binding.groups, colors, error);
  ok = agree(comm, ok, error, peerFailed) &&
       agree(comm, createBackendGroups(comm, binding.groups, error), error,
             peerFailed);
  if (!ok) {
    destroyGroups(comm, binding.groups);
    return failWith(peerFailed ? LOOM_ERROR_PEER_FAILED : LOOM_ERROR_IO,
                    "loom_program_bind: " + error, err, errLen);
  }

  program->binding = std::move(binding);
  for (size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i].isAllocated())
      setParameterBlock(*program, i, std::move(blocks[i]));
  addClient(comm, program, releaseProgram);
  if (!manifest.mesh.empty())
    openCommLog(comm->rank);
  return LOOM_OK;
}

//===----------------------------------------------------------------------===//
// Sharded inputs and outputs
//===----------------------------------------------------------------------===//

extern "C" int loom_program_shard_input(const loom_program *program,
                                        size_t index, const void *global,
                                        void *local, char *err, size_t errLen) {
  if (!program || index >= program->manifest.inputs.size())
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_shard_input: no such program or input", err,
                    errLen);
  const TensorSpec &input = program->manifest.inputs[index];
  if (input.nbytes == 0)
    return LOOM_OK;
  if (!global || !local)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_shard_input: a buffer for input '" +
                        input.name + "' is NULL",
                    err, errLen);
  if (!input.isSharded()) {
    std::memcpy(local, global, input.nbytes);
    return LOOM_OK;
  }
  const Binding &binding = program->binding;
  if (!binding.comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_shard_input: input '" + input.name +
                        "' is sharded: bind the program first",
                    err, errLen);
  std::vector<int64_t> sizes = program->manifest.meshSizes();
  layout::extractBlock(
      global, local, input.globalShape, input.shape,
      layout::blockOffsets(sizes, input.sharding, input.shape, binding.rank),
      loom_dtype_size(input.dtype));
  return LOOM_OK;
}

extern "C" int loom_program_gather_output(loom_program *program, size_t index,
                                          const void *local, void *global,
                                          int root, char *err, size_t errLen) {
  if (!program || index >= program->manifest.outputs.size())
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: no such program or output",
                    err, errLen);
  const TensorSpec &output = program->manifest.outputs[index];
  const Binding &binding = program->binding;
  loom_comm *comm = binding.comm;
  int size = comm ? comm->size : 1;
  if (root < 0 || root >= size)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: root " + std::to_string(root) +
                        " is not a rank of the communicator",
                    err, errLen);
  bool isRoot = binding.rank == root;
  if (output.nbytes != 0 && (!local || (isRoot && !global)))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: a buffer for output '" +
                        output.name + "' is NULL",
                    err, errLen);
  if (!output.isSharded() || output.nbytes == 0) {
    if (isRoot && output.nbytes != 0)
      std::memcpy(global, local, output.nbytes);
    return LOOM_OK;
  }
  if (!comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: output '" + output.name +
                        "' is sharded: bind the program first",
                    err, errLen);

  // Each block comes from one holder: ranks at coordinate 0 along the axes
  // that do not shard the output.
  std::vector<int64_t> sizes = program->manifest.meshSizes();
  size_t elementSize = loom_dtype_size(output.dtype);
  BlockingCall call(comm, "gathering an output");
  if (!isRoot) {
    if (!layout::isCanonicalHolder(sizes, output.sharding, binding.rank))
      return LOOM_OK;
    std::string error;
    return sendBytes(comm, local, output.nbytes, root, error)
               ? LOOM_OK
               : failWith(LOOM_ERROR_IO,
                          "loom_program_gather_output: sending output '" +
                              output.name + "' failed: " + error,
                          err, errLen);
  }
  AlignedBuffer scratch;
  if (!scratch.allocate(output.nbytes))
    return failWith(LOOM_ERROR_OUT_OF_MEMORY,
                    "loom_program_gather_output: cannot allocate " +
                        std::to_string(output.nbytes) + " bytes",
                    err, errLen);
  for (int rank = 0; rank < size; ++rank) {
    if (!layout::isCanonicalHolder(sizes, output.sharding, rank))
      continue;
    const void *block = local;
    if (rank != root) {
      std::string error;
      if (!receiveBytes(comm, scratch.data(), output.nbytes, rank, error))
        return failWith(LOOM_ERROR_IO,
                        "loom_program_gather_output: receiving output '" +
                            output.name + "' from rank " +
                            std::to_string(rank) + " failed: " + error,
                        err, errLen);
      block = scratch.data();
    }
    layout::insertBlock(
        block, global, output.globalShape, output.shape,
        layout::blockOffsets(sizes, output.sharding, output.shape, rank),
        elementSize);
  }
  return LOOM_OK;
}
