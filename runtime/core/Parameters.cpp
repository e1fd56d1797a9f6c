//===- Parameters.cpp - Mutable parameters: blocks, updates and loading ---===//
//
// A parameter is the mapped parameter file, or an owned block (this rank's
// part of a sharded parameter, training state, values set or loaded later).
// Training programs replace their parameters after each step, and any
// program can take its parameters from a safetensors file instead of its
// parameter file. Every change of a parameter's contents or address goes
// through the device's parameter-update hook (parameterUpdated).
//
//===----------------------------------------------------------------------===//

#include "comm/Layout.h"
#include "core/Program.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Support.h"
#include <cstring>

using namespace loom::rt;

//===----------------------------------------------------------------------===//
// Parameter blocks
//===----------------------------------------------------------------------===//

bool loom::rt::makeParameterBlocks(const loom_program &program, int64_t rank,
                                   bool all, std::vector<AlignedBuffer> &blocks,
                                   std::string &error) {
  const Manifest &manifest = program.manifest;
  blocks.clear();
  blocks.resize(manifest.parameters.size());
  std::vector<int64_t> sizes = manifest.meshSizes();
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    const TensorSpec &parameter = manifest.parameters[i];
    if (!all && !parameter.isSharded())
      continue;
    if (!blocks[i].allocate(parameter.nbytes)) {
      error = "cannot allocate " + std::to_string(parameter.nbytes) +
              " bytes for this rank's block of parameter '" + parameter.name +
              "'";
      return false;
    }
    if (parameter.initZeros || parameter.nbytes == 0)
      continue; // allocate() zero-fills
    if (!parameter.isSharded()) {
      std::memcpy(blocks[i].data(), mappedParameter(program, i),
                  parameter.nbytes);
      continue;
    }
    layout::extractBlock(
        mappedParameter(program, i), blocks[i].data(), parameter.globalShape,
        parameter.shape,
        layout::blockOffsets(sizes, parameter.sharding, parameter.shape, rank),
        loom_dtype_size(parameter.dtype));
  }
  return true;
}

void loom::rt::setParameterBlock(loom_program &program, size_t index,
                                 AlignedBuffer &&block) {
  AlignedBuffer &current = program.parameterBlocks[index];
  if (current.isAllocated())
    parameterUpdated(program, current.data(), current.size());
  current = std::move(block);
  parameterUpdated(program, current.data(), current.size());
  program.parameterData[index] =
      current.isAllocated() ? current.data() : mappedParameter(program, index);
}

bool loom::rt::ownParameters(loom_program &program, std::string &error) {
  if (program.ownsParameters)
    return true;
  const Manifest &manifest = program.manifest;
  std::vector<AlignedBuffer> blocks(manifest.parameters.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    const TensorSpec &parameter = manifest.parameters[i];
    if (program.parameterBlocks[i].isAllocated())
      continue;
    if (!blocks[i].allocate(parameter.nbytes)) {
      error = "cannot allocate " + std::to_string(parameter.nbytes) +
              " bytes for parameter '" + parameter.name + "'";
      return false;
    }
    if (parameter.initZeros || parameter.nbytes == 0)
      continue;
    if (!parameter.isSharded()) {
      std::memcpy(blocks[i].data(), mappedParameter(program, i),
                  parameter.nbytes);
      continue;
    }
    // Unbound: the block of rank 0 (binding replaces it).
    std::vector<int64_t> sizes = manifest.meshSizes();
    layout::extractBlock(mappedParameter(program, i), blocks[i].data(),
                         parameter.globalShape, parameter.shape,
                         layout::blockOffsets(sizes, parameter.sharding,
                                              parameter.shape,
                                              program.binding.rank),
                         loom_dtype_size(parameter.dtype));
  }
  for (size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i].isAllocated())
      setParameterBlock(program, i, std::move(blocks[i]));
  program.ownsParameters = true;
  return true;
}

void loom::rt::swapParameter(loom_program &program, size_t index,
                             AlignedBuffer &buffer) {
  AlignedBuffer &block = program.parameterBlocks[index];
  parameterUpdated(program, block.data(), block.size());
  parameterUpdated(program, buffer.data(), buffer.size());
  std::swap(block, buffer);
  program.parameterData[index] = block.data();
}

void *loom::rt::mutableParameter(loom_program &program, size_t index) {
  AlignedBuffer &block = program.parameterBlocks[index];
  parameterUpdated(program, block.data(), block.size());
  return block.data();
}

//===----------------------------------------------------------------------===//
// The C API
//===----------------------------------------------------------------------===//

namespace {
bool runnable(const loom_program *program, const char *function, char *err,
              size_t errLen, int &status) {
  if (!program) {
    status =
        failWith(LOOM_ERROR_INVALID_ARGUMENT,
                 std::string(function) + ": the program is NULL", err, errLen);
    return false;
  }
  if (!program->executable) {
    status =
        failWith(LOOM_ERROR_UNSUPPORTED,
                 std::string(function) + ": artifact '" + program->artifactDir +
                     "' was loaded with LOOM_LOAD_MANIFEST_ONLY",
                 err, errLen);
    return false;
  }
  return true;
}

/// Copies this rank's block of parameter `index` out of its whole tensor.
void takeBlock(loom_program &program, size_t index, const void *global) {
  const TensorSpec &parameter = program.manifest.parameters[index];
  void *block = mutableParameter(program, index);
  if (parameter.nbytes == 0)
    return;
  if (!parameter.isSharded()) {
    std::memcpy(block, global, parameter.nbytes);
    return;
  }
  std::vector<int64_t> sizes = program.manifest.meshSizes();
  layout::extractBlock(global, block, parameter.globalShape, parameter.shape,
                       layout::blockOffsets(sizes, parameter.sharding,
                                            parameter.shape,
                                            program.binding.rank),
                       loom_dtype_size(parameter.dtype));
}
} // namespace

extern "C" int loom_program_is_training(const loom_program *program) {
  return program && program->manifest.hasTraining ? 1 : 0;
}

extern "C" int64_t loom_program_find_parameter(const loom_program *program,
                                               const char *name) {
  if (!program || !name)
    return -1;
  const std::vector<TensorSpec> &parameters = program->manifest.parameters;
  for (size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i].name == name)
      return static_cast<int64_t>(i);
  return -1;
}

extern "C" int64_t loom_program_parameter_update(const loom_program *program,
                                                 size_t index) {
  if (!program || index >= program->manifest.parameters.size())
    return -1;
  return program->manifest.parameters[index].updateOutput;
}

extern "C" int loom_program_apply_updates(loom_program *program,
                                          const void *const *outputs, char *err,
                                          size_t errLen) {
  int status = LOOM_OK;
  if (!runnable(program, "loom_program_apply_updates", err, errLen, status))
    return status;
  std::string error;
  if (!ownParameters(*program, error))
    return failWith(LOOM_ERROR_OUT_OF_MEMORY,
                    "loom_program_apply_updates: " + error, err, errLen);
  const Manifest &manifest = program->manifest;
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    const TensorSpec &parameter = manifest.parameters[i];
    if (parameter.updateOutput < 0 || parameter.nbytes == 0)
      continue;
    if (!outputs || !outputs[parameter.updateOutput])
      return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                      "loom_program_apply_updates: output '" +
                          parameter.update + "' (the update of parameter '" +
                          parameter.name + "') is NULL",
                      err, errLen);
  }
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    const TensorSpec &parameter = manifest.parameters[i];
    if (parameter.updateOutput >= 0 && parameter.nbytes != 0)
      std::memcpy(mutableParameter(*program, i),
                  outputs[parameter.updateOutput], parameter.nbytes);
  }
  return LOOM_OK;
}

extern "C" int loom_program_set_parameter(loom_program *program, size_t index,
                                          const void *global, char *err,
                                          size_t errLen) {
  int status = LOOM_OK;
  if (!runnable(program, "loom_program_set_parameter", err, errLen, status))
    return status;
  if (index >= program->manifest.parameters.size())
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_set_parameter: parameter index " +
                        std::to_string(index) + " is out of range",
                    err, errLen);
  const TensorSpec &parameter = program->manifest.parameters[index];
  if (!global && parameter.globalNbytes != 0)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_set_parameter: the data of parameter '" +
                        parameter.name + "' is NULL",
                    err, errLen);
  std::string error;
  if (!ownParameters(*program, error))
    return failWith(LOOM_ERROR_OUT_OF_MEMORY,
                    "loom_program_set_parameter: " + error, err, errLen);
  takeBlock(*program, index, global);
  return LOOM_OK;
}

extern "C" int loom_program_load_parameters(loom_program *program,
                                            const char *path, char *err,
                                            size_t errLen) {
  int status = LOOM_OK;
  if (!runnable(program, "loom_program_load_parameters", err, errLen, status))
    return status;
  if (!path || !*path)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_load_parameters: no file given", err, errLen);
  std::string bytes, error;
  if (!readFileToString(path, SIZE_MAX / 2, bytes, error))
    return failWith(LOOM_ERROR_IO, error, err, errLen);
  safetensors::Header header;
  if (!safetensors::parseHeader(bytes.data(), bytes.size(), path, header,
                                error))
    return failWith(LOOM_ERROR_FORMAT, error, err, errLen);
  // Check everything before changing anything.
  const Manifest &manifest = program->manifest;
  std::vector<const safetensors::Entry *> entries(manifest.parameters.size());
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    const TensorSpec &parameter = manifest.parameters[i];
    entries[i] = header.find(parameter.name);
    if (!entries[i]) {
      if (parameter.initZeros)
        continue;
      return failWith(
          LOOM_ERROR_FORMAT,
          std::string(path) + " has no tensor '" + parameter.name +
              "', a parameter of artifact '" + program->artifactDir + "' (" +
              formatTensorType(parameter.dtype, parameter.globalShape) + ")",
          err, errLen);
    }
    if (entries[i]->dtype != parameter.dtype ||
        entries[i]->shape != parameter.globalShape)
      return failWith(
          LOOM_ERROR_FORMAT,
          std::string(path) + ": tensor '" + parameter.name + "' is " +
              formatTensorType(entries[i]->dtype, entries[i]->shape) +
              ", but the artifact's parameter is " +
              formatTensorType(parameter.dtype, parameter.globalShape),
          err, errLen);
  }
  if (!ownParameters(*program, error))
    return failWith(LOOM_ERROR_OUT_OF_MEMORY,
                    "loom_program_load_parameters: " + error, err, errLen);
  for (size_t i = 0; i < manifest.parameters.size(); ++i)
    if (entries[i])
      takeBlock(*program, i,
                bytes.data() + header.dataOffset + entries[i]->begin);
  return LOOM_OK;
}
