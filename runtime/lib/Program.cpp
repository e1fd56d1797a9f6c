//===- Program.cpp - Loading and running artifacts ------------------------===//
//
// Loading reads and checks manifest.json, checks the target against the
// host, maps parameters.bin read-only and dlopens program.so. The program's
// undefined symbols (kernels, memrefCopy) resolve against this library, so
// it must be in the global symbol scope before the dlopen; the program itself
// is loaded RTLD_LOCAL so that two artifacts never see each other's symbols.
//
//===----------------------------------------------------------------------===//

#include "Program.h"
#include "../kernels/PackedGemm.h"
#include "Layout.h"
#include "Manifest.h"
#include "Target.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;

namespace {
/// A valid, aligned pointer for tensors of zero bytes, which are never
/// dereferenced but must not be null.
alignas(LOOM_ALIGNMENT) unsigned char emptyTensor[LOOM_ALIGNMENT];

bool isAligned(const void *ptr) {
  return reinterpret_cast<uintptr_t>(ptr) % LOOM_ALIGNMENT == 0;
}
} // namespace

loom_program::~loom_program() {
  if (binding.comm)
    unbindProgram(this);
  // Owned blocks outlive unbinding; their packings must not outlive them.
  for (AlignedBuffer &block : parameterBlocks)
    if (block.isAllocated())
      loom::rt::packed::forgetRange(block.data(), block.size());
  if (library)
    ::dlclose(library);
  if (mappedParameters) {
    // Kernels may keep packed copies of weights by address.
    loom::rt::packed::forgetRange(mappedParameters, mappedSize);
    ::munmap(mappedParameters, mappedSize);
  }
}

namespace {
std::vector<loom_tensor_info> makeInfos(const Manifest &manifest,
                                        const std::vector<TensorSpec> &tensors,
                                        std::vector<TensorText> &texts) {
  std::vector<loom_tensor_info> infos;
  infos.reserve(tensors.size());
  texts.resize(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorSpec &tensor = tensors[i];
    loom_tensor_info info;
    info.name = tensor.name.c_str();
    info.dtype = tensor.dtype;
    info.rank = static_cast<int32_t>(tensor.shape.size());
    info.shape = tensor.shape.empty() ? nullptr : tensor.shape.data();
    info.num_elements = tensor.numElements;
    info.nbytes = tensor.nbytes;
    info.global_shape =
        tensor.globalShape.empty() ? nullptr : tensor.globalShape.data();
    info.global_nbytes = tensor.globalNbytes;
    infos.push_back(info);
    texts[i].sharding.resize(tensor.shape.size());
    for (size_t d = 0; d < tensor.sharding.size(); ++d)
      texts[i].sharding[d] = manifest.axisNames(tensor.sharding[d]);
  }
  return infos;
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names) {
    if (!text.empty())
      text += ", ";
    text += name;
  }
  return text;
}

bool checkTarget(const loom_program &program, std::string &error) {
  const Manifest &manifest = program.manifest;
  if (!manifest.targetTriple.empty()) {
    std::string arch = canonicalArchitecture(manifest.targetTriple);
    std::string_view host = hostArchitecture();
    if (!host.empty() && arch != host) {
      error = "artifact '" + program.artifactDir + "' was compiled for " +
              manifest.targetTriple + ", but this machine is " +
              std::string(host) + ": recompile it for this machine";
      return false;
    }
  }
  std::vector<std::string> missing =
      missingCpuFeatures(manifest.targetFeatures);
  if (!missing.empty()) {
    std::string cpu = manifest.targetCpu.empty()
                          ? std::string()
                          : " (target cpu '" + manifest.targetCpu + "')";
    error = "artifact '" + program.artifactDir +
            "' was compiled for CPU features this machine lacks: " +
            joinNames(missing) + cpu + ": recompile it for this machine";
    return false;
  }
  return true;
}

bool mapParameters(loom_program &program, std::string &error,
                   loom_status &status) {
  const Manifest &manifest = program.manifest;
  program.parameterData.assign(manifest.parameters.size(), emptyTensor);
  if (manifest.parameterFile.empty())
    return true;
  std::string path = joinPath(program.artifactDir, manifest.parameterFile);
  status = LOOM_ERROR_IO;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open parameter file '" + path + "': " + errnoMessage(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = "cannot read parameter file '" + path + "': " + errnoMessage(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot read parameter file '" + path + "': not a regular file";
    ::close(fd);
    return false;
  }
  uint64_t fileSize = static_cast<uint64_t>(st.st_size);
  for (const TensorSpec &parameter : manifest.parameters) {
    // offset + nbytes cannot overflow: both are below 2^63.
    uint64_t end = parameter.offset + parameter.globalNbytes;
    if (parameter.globalNbytes != 0 && end > fileSize) {
      error = "parameter file '" + path + "' is too short: it has " +
              std::to_string(fileSize) + " bytes, but parameter '" +
              parameter.name + "' needs bytes " +
              std::to_string(parameter.offset) + " to " + std::to_string(end);
      status = LOOM_ERROR_FORMAT;
      ::close(fd);
      return false;
    }
  }
  if (fileSize == 0) {
    ::close(fd);
    return true;
  }
  // Read-only and private: programs never write parameters, and a page
  // fault on a stray write beats corrupting the file.
  void *base = ::mmap(nullptr, fileSize, PROT_READ, MAP_PRIVATE, fd, 0);
  int mmapErrno = errno;
  ::close(fd);
  if (base == MAP_FAILED) {
    error =
        "cannot map parameter file '" + path + "': " + errnoMessage(mmapErrno);
    return false;
  }
  program.mappedParameters = base;
  program.mappedSize = fileSize;
  for (size_t i = 0; i < manifest.parameters.size(); ++i)
    program.parameterData[i] = mappedParameter(program, i);
  return true;
}

/// Makes this library's symbols visible to libraries loaded later, even when
/// it was itself loaded RTLD_LOCAL (e.g. by Python's ctypes).
} // namespace

void loom::rt::promoteRuntimeToGlobalScope() {
  Dl_info info;
  if (!::dladdr(reinterpret_cast<void *>(&loom_program_load), &info) ||
      !info.dli_fname)
    return;
  if (void *self =
          ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
    ::dlclose(self); // The promotion outlives this extra reference.
}

namespace {

bool loadLibrary(loom_program &program, std::string &error,
                 loom_status &status) {
  const Manifest &manifest = program.manifest;
  std::string path = joinPath(program.artifactDir, manifest.library);
  status = LOOM_ERROR_IO;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error =
        "cannot open program library '" + path + "': " + errnoMessage(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot load program library '" + path + "': not a regular file";
    return false;
  }
  promoteRuntimeToGlobalScope();
  ::dlerror();
  program.library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!program.library) {
    const char *message = ::dlerror();
    error = "cannot load program library '" + path +
            "': " + (message ? message : "unknown dlopen error");
    // Unresolved symbols mean the program needs a kernel this runtime does
    // not provide.
    if (message && std::strstr(message, "undefined symbol"))
      error += " (the program calls a function this runtime does not "
               "provide: it needs a runtime built with the loomc that "
               "compiled it)";
    return false;
  }
  ::dlerror();
  void *symbol = ::dlsym(program.library, manifest.entry.c_str());
  if (!symbol) {
    error = "program library '" + path +
            "' does not export the entry symbol '" + manifest.entry + "'";
    status = LOOM_ERROR_FORMAT;
    return false;
  }
  // POSIX guarantees that dlsym results convert to function pointers.
  program.entry = reinterpret_cast<EntryFunction>(symbol);
  return true;
}

loom_program *fail(loom_program *program, const std::string &error, char *err,
                   size_t errLen) {
  delete program;
  copyError(error, err, errLen);
  return nullptr;
}
} // namespace

extern "C" loom_program *loom_program_load(const char *artifactDir, char *err,
                                           size_t errLen) {
  return loom_program_load_with_flags(artifactDir, 0, err, errLen);
}

extern "C" loom_program *loom_program_load_with_flags(const char *artifactDir,
                                                      unsigned flags, char *err,
                                                      size_t errLen) {
  if (!artifactDir || !*artifactDir)
    return fail(nullptr, "loom_program_load: no artifact directory given", err,
                errLen);
  auto *program = new (std::nothrow) loom_program();
  if (!program)
    return fail(nullptr, "loom_program_load: out of memory", err, errLen);
  program->artifactDir = artifactDir;
  program->flags = flags;
  const std::string &dir = program->artifactDir;

  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return fail(program,
                "cannot open artifact '" + dir + "': " + errnoMessage(errno),
                err, errLen);
  if (!S_ISDIR(st.st_mode))
    return fail(program,
                "'" + dir +
                    "' is not an artifact: artifacts are directories "
                    "(MODEL.loom/) holding manifest.json",
                err, errLen);

  // Manifests are small; the cap keeps a wrong path from reading gigabytes.
  constexpr size_t maxManifestSize = 64u << 20;
  std::string manifestPath = joinPath(dir, "manifest.json");
  std::string text, error;
  if (!readFileToString(manifestPath, maxManifestSize, text, error))
    return fail(program, error, err, errLen);
  loom_status status = LOOM_OK;
  if (!parseManifest(text, manifestPath, dir, program->manifest, error, status))
    return fail(program, error, err, errLen);
  const Manifest &manifest = program->manifest;
  program->parameterInfos =
      makeInfos(manifest, manifest.parameters, program->tensorText[0]);
  program->inputInfos =
      makeInfos(manifest, manifest.inputs, program->tensorText[1]);
  program->outputInfos =
      makeInfos(manifest, manifest.outputs, program->tensorText[2]);
  for (const std::vector<int> &group : manifest.groups)
    program->groupAxes.push_back(manifest.axisNames(group));
  program->binding = unboundBinding(manifest);
  program->parameterBlocks.resize(manifest.parameters.size());
  if (flags & LOOM_LOAD_MANIFEST_ONLY)
    return program;

  if (!checkTarget(*program, error) ||
      !mapParameters(*program, error, status) ||
      !loadLibrary(*program, error, status))
    return fail(program, error, err, errLen);
  // Training state, and zeros the file does not hold, live in owned blocks.
  bool anyZeros = false;
  for (const TensorSpec &parameter : manifest.parameters)
    anyZeros = anyZeros || parameter.initZeros;
  if ((manifest.hasTraining || anyZeros) && !ownParameters(*program, error))
    return fail(program, error, err, errLen);
  return program;
}

extern "C" void loom_program_free(loom_program *program) { delete program; }

const void *loom::rt::mappedParameter(const loom_program &program,
                                      size_t index) {
  const TensorSpec &parameter = program.manifest.parameters[index];
  if (parameter.globalNbytes == 0 || !program.mappedParameters ||
      parameter.initZeros)
    return emptyTensor;
  return static_cast<const char *>(program.mappedParameters) + parameter.offset;
}

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
    packed::forgetRange(current.data(), current.size());
  current = std::move(block);
  packed::forgetRange(current.data(), current.size());
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
  packed::forgetRange(block.data(), block.size());
  packed::forgetRange(buffer.data(), buffer.size());
  std::swap(block, buffer);
  program.parameterData[index] = block.data();
}

void *loom::rt::mutableParameter(loom_program &program, size_t index) {
  AlignedBuffer &block = program.parameterBlocks[index];
  packed::forgetRange(block.data(), block.size());
  return block.data();
}

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

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

extern "C" size_t loom_program_num_parameters(const loom_program *program) {
  return program ? program->parameterInfos.size() : 0;
}

extern "C" size_t loom_program_num_inputs(const loom_program *program) {
  return program ? program->inputInfos.size() : 0;
}

extern "C" size_t loom_program_num_outputs(const loom_program *program) {
  return program ? program->outputInfos.size() : 0;
}

namespace {
const loom_tensor_info *infoAt(const std::vector<loom_tensor_info> &infos,
                               size_t index) {
  return index < infos.size() ? &infos[index] : nullptr;
}

int64_t findByName(const std::vector<loom_tensor_info> &infos,
                   const char *name) {
  if (!name)
    return -1;
  for (size_t i = 0; i < infos.size(); ++i)
    if (std::strcmp(infos[i].name, name) == 0)
      return static_cast<int64_t>(i);
  return -1;
}
} // namespace

extern "C" const loom_tensor_info *
loom_program_parameter(const loom_program *program, size_t index) {
  return program ? infoAt(program->parameterInfos, index) : nullptr;
}

extern "C" const loom_tensor_info *
loom_program_input(const loom_program *program, size_t index) {
  return program ? infoAt(program->inputInfos, index) : nullptr;
}

extern "C" const loom_tensor_info *
loom_program_output(const loom_program *program, size_t index) {
  return program ? infoAt(program->outputInfos, index) : nullptr;
}

extern "C" int64_t loom_program_find_input(const loom_program *program,
                                           const char *name) {
  return program ? findByName(program->inputInfos, name) : -1;
}

extern "C" int64_t loom_program_find_output(const loom_program *program,
                                            const char *name) {
  return program ? findByName(program->outputInfos, name) : -1;
}

extern "C" const void *loom_program_parameter_data(const loom_program *program,
                                                   size_t index) {
  if (!program || index >= program->parameterData.size())
    return nullptr;
  return program->parameterData[index];
}

extern "C" int loom_program_tensor_is_sharded(const loom_tensor_info *info) {
  if (!info || !info->global_shape)
    return 0;
  for (int32_t d = 0; d < info->rank; ++d)
    if (info->shape[d] != info->global_shape[d])
      return 1;
  return 0;
}

extern "C" size_t loom_program_mesh_num_axes(const loom_program *program) {
  return program ? program->manifest.mesh.size() : 0;
}

extern "C" const char *loom_program_mesh_axis_name(const loom_program *program,
                                                   size_t axis) {
  if (!program || axis >= program->manifest.mesh.size())
    return nullptr;
  return program->manifest.mesh[axis].name.c_str();
}

extern "C" int64_t loom_program_mesh_axis_size(const loom_program *program,
                                               size_t axis) {
  if (!program || axis >= program->manifest.mesh.size())
    return 0;
  return program->manifest.mesh[axis].size;
}

extern "C" int64_t loom_program_mesh_size(const loom_program *program) {
  return program ? program->manifest.meshSize() : 0;
}

extern "C" size_t loom_program_num_groups(const loom_program *program) {
  return program ? program->groupAxes.size() : 0;
}

extern "C" const char *loom_program_group_axes(const loom_program *program,
                                               size_t group) {
  if (!program || group >= program->groupAxes.size())
    return nullptr;
  return program->groupAxes[group].c_str();
}

extern "C" size_t loom_program_num_collectives(const loom_program *program) {
  return program ? program->manifest.collectives.size() : 0;
}

extern "C" int loom_program_collective(const loom_program *program,
                                       size_t index, int32_t *kind,
                                       int32_t *group, int64_t *bytes) {
  if (!program || index >= program->manifest.collectives.size())
    return LOOM_ERROR_INVALID_ARGUMENT;
  const CollectiveSpec &call = program->manifest.collectives[index];
  if (kind)
    *kind = call.kind;
  if (group)
    *group = call.group;
  if (bytes)
    *bytes = call.bytes;
  return LOOM_OK;
}

extern "C" const char *loom_program_tensor_sharding(const loom_program *program,
                                                    int32_t list, size_t index,
                                                    int32_t dim) {
  if (!program || list < 0 || list > 2 ||
      index >= program->tensorText[list].size())
    return nullptr;
  const std::vector<std::string> &dims =
      program->tensorText[list][index].sharding;
  if (dim < 0 || static_cast<size_t>(dim) >= dims.size())
    return nullptr;
  return dims[dim].c_str();
}

extern "C" const char *loom_program_artifact_dir(const loom_program *program) {
  return program ? program->artifactDir.c_str() : nullptr;
}

extern "C" const char *loom_program_producer(const loom_program *program) {
  return program ? program->manifest.producer.c_str() : nullptr;
}

extern "C" const char *loom_program_model(const loom_program *program) {
  return program ? program->manifest.model.c_str() : nullptr;
}

extern "C" const char *loom_program_target_triple(const loom_program *program) {
  return program ? program->manifest.targetTriple.c_str() : nullptr;
}

extern "C" const char *loom_program_target_cpu(const loom_program *program) {
  return program ? program->manifest.targetCpu.c_str() : nullptr;
}

extern "C" size_t
loom_program_num_target_features(const loom_program *program) {
  return program ? program->manifest.targetFeatures.size() : 0;
}

extern "C" const char *loom_program_target_feature(const loom_program *program,
                                                   size_t index) {
  if (!program || index >= program->manifest.targetFeatures.size())
    return nullptr;
  return program->manifest.targetFeatures[index].c_str();
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

namespace {
int runError(loom_status status, const std::string &message, char *err,
             size_t errLen) {
  copyError(message, err, errLen);
  return status;
}
} // namespace

namespace {
/// 4-bit inputs come one value per byte; the program assumes each is in
/// range (-8..7 or 0..15).
bool checkInt4(const loom_tensor_info &info, const void *data,
               std::string &message) {
  if (info.dtype != LOOM_DTYPE_INT4 && info.dtype != LOOM_DTYPE_UINT4)
    return true;
  bool isSigned = info.dtype == LOOM_DTYPE_INT4;
  int lo = isSigned ? -8 : 0, hi = isSigned ? 7 : 15;
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < info.nbytes; ++i) {
    int v = isSigned ? int(static_cast<signed char>(bytes[i])) : int(bytes[i]);
    if (v < lo || v > hi) {
      message = "loom_program_run: input '" + std::string(info.name) + "' (" +
                loom_dtype_name(info.dtype) + ") holds " + std::to_string(v) +
                " at element " + std::to_string(i) + ", outside [" +
                std::to_string(lo) + ", " + std::to_string(hi) + "]";
      return false;
    }
  }
  return true;
}
} // namespace

extern "C" int loom_program_run(loom_program *program,
                                const void *const *inputs, void *const *outputs,
                                char *err, size_t errLen) {
  if (!program)
    return runError(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_run: the program is NULL", err, errLen);
  if (!program->entry)
    return runError(LOOM_ERROR_UNSUPPORTED,
                    "loom_program_run: artifact '" + program->artifactDir +
                        "' was loaded with LOOM_LOAD_MANIFEST_ONLY and cannot "
                        "run",
                    err, errLen);
  if (!program->binding.comm && program->manifest.meshSize() > 1)
    return runError(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_run: artifact '" + program->artifactDir +
                        "' was compiled for a mesh of " +
                        std::to_string(program->manifest.meshSize()) +
                        " devices (" + program->manifest.describeMesh() +
                        "): bind it to a communicator of as many ranks "
                        "(loom_program_bind) and run it on all of them",
                    err, errLen);
  size_t numParameters = program->parameterInfos.size();
  size_t numInputs = program->inputInfos.size();
  size_t numOutputs = program->outputInfos.size();
  if ((numInputs && !inputs) || (numOutputs && !outputs))
    return runError(LOOM_ERROR_INVALID_ARGUMENT,
                    std::string("loom_program_run: the ") +
                        (numInputs && !inputs ? "inputs" : "outputs") +
                        " array is NULL",
                    err, errLen);

  std::vector<void *> buffers(numParameters + numInputs + numOutputs);
  for (size_t i = 0; i < numParameters; ++i)
    buffers[i] = const_cast<void *>(program->parameterData[i]);

  // Misaligned caller buffers go through aligned scratch copies.
  std::vector<AlignedBuffer> scratch;
  std::vector<std::pair<size_t, AlignedBuffer *>> copyBack;
  scratch.reserve(numInputs + numOutputs);
  auto bind = [&](const loom_tensor_info &info, void *ptr, const char *kind,
                  size_t index, bool isOutput, void *&slot,
                  std::string &message) -> loom_status {
    if (info.nbytes == 0) {
      slot = ptr && isAligned(ptr) ? ptr : emptyTensor;
      return LOOM_OK;
    }
    if (!ptr) {
      message = std::string("loom_program_run: ") + kind + " " +
                std::to_string(index) + " ('" + info.name + "') is NULL";
      return LOOM_ERROR_INVALID_ARGUMENT;
    }
    if (isAligned(ptr)) {
      slot = ptr;
      return LOOM_OK;
    }
    scratch.emplace_back();
    AlignedBuffer &copy = scratch.back();
    if (!copy.allocate(info.nbytes)) {
      message = "loom_program_run: cannot allocate " +
                std::to_string(info.nbytes) + " bytes to align " + kind + " '" +
                info.name + "'";
      return LOOM_ERROR_OUT_OF_MEMORY;
    }
    if (!isOutput)
      std::memcpy(copy.data(), ptr, info.nbytes);
    slot = copy.data();
    return LOOM_OK;
  };

  std::string message;
  for (size_t i = 0; i < numInputs; ++i) {
    loom_status status =
        bind(program->inputInfos[i], const_cast<void *>(inputs[i]), "input", i,
             false, buffers[numParameters + i], message);
    if (status != LOOM_OK)
      return runError(status, message, err, errLen);
    if (!checkInt4(program->inputInfos[i], buffers[numParameters + i], message))
      return runError(LOOM_ERROR_INVALID_ARGUMENT, message, err, errLen);
  }
  for (size_t i = 0; i < numOutputs; ++i) {
    size_t slot = numParameters + numInputs + i;
    size_t before = scratch.size();
    loom_status status = bind(program->outputInfos[i], outputs[i], "output", i,
                              true, buffers[slot], message);
    if (status != LOOM_OK)
      return runError(status, message, err, errLen);
    if (scratch.size() != before)
      copyBack.emplace_back(i, &scratch.back());
  }

  {
    // The program's collectives find their groups through this.
    CurrentBindingScope scope(&program->binding);
    program->entry(buffers.data());
  }

  for (auto &[index, copy] : copyBack)
    std::memcpy(outputs[index], copy->data(),
                program->outputInfos[index].nbytes);
  return LOOM_OK;
}
