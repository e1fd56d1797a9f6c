//===- Program.cpp - Loading and running artifacts ------------------------===//
//
// Loading reads and checks manifest.json, opens the device the artifact's
// target names (the CPU unless "target.device" says otherwise), lets it
// check the target, maps parameters.bin read-only and loads the program onto
// the device (for the CPU, a dlopen of program.so). Running hands the device
// one buffer per parameter, input and output, on the program's stream.
//
//===----------------------------------------------------------------------===//

#include "core/Program.h"
#include "core/ArtifactChecks.h"
#include "core/Manifest.h"
#include "loom/runtime/Device.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include <cerrno>
#include <cstdlib>
#include <cstring>
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
  // Owned blocks outlive unbinding; what the device derived from them must
  // not outlive them.
  for (AlignedBuffer &block : parameterBlocks)
    if (block.isAllocated())
      parameterUpdated(*this, block.data(), block.size());
  mirror.release();
  loom_executable_free(executable);
  if (mappedParameters) {
    parameterUpdated(*this, mappedParameters, mappedSize);
    ::munmap(mappedParameters, mappedSize);
  }
  loom_stream_free(stream);
  loom_device_free(device);
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

bool mapParameters(loom_program &program, std::string &error,
                   loom_status &status) {
  const Manifest &manifest = program.manifest;
  program.parameterData.assign(manifest.parameters.size(), emptyTensor);
  if (manifest.parameterFile.empty())
    return true;
  std::string path = joinPath(program.artifactDir, manifest.parameterFile);
  status = LOOM_ERROR_IO;
  uint64_t fileSize = 0;
  int fd = openRegularFile(path, fileSize, error, "open parameter file");
  if (fd < 0)
    return false;
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

/// The manifest's target as the device API takes it.
struct ExecutableParams {
  explicit ExecutableParams(const loom_program &program)
      : path(joinPath(program.artifactDir, program.manifest.library)) {
    const Manifest &manifest = program.manifest;
    for (const std::string &feature : manifest.targetFeatures)
      features.push_back(feature.c_str());
    params.path = path.c_str();
    params.entry = manifest.entry.c_str();
    params.artifact = program.artifactDir.c_str();
    params.target_triple = manifest.targetTriple.c_str();
    params.target_cpu = manifest.targetCpu.c_str();
    params.target_features = features.data();
    params.num_target_features = features.size();
  }
  std::string path;
  std::vector<const char *> features;
  loom_executable_params params{};
};

/// The device of `kind` this process uses: $LOOM_DEVICE_ORDINAL, else
/// its local rank (from mpirun, srun or torchrun) modulo the devices there
/// are, else the first.
bool chooseOrdinal(const std::string &kind, int32_t &ordinal,
                   std::string &error) {
  int32_t count = 0;
  char message[1024] = "";
  if (const char *chosen = getenv("LOOM_DEVICE_ORDINAL"); chosen && *chosen) {
    char *end = nullptr;
    long value = strtol(chosen, &end, 10);
    if (*end || value < 0 || value > INT32_MAX) {
      error = "LOOM_DEVICE_ORDINAL must be a device number, not '" +
              std::string(chosen) + "'";
      return false;
    }
    ordinal = int32_t(value);
    return true;
  }
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "SLURM_LOCALID", "LOCAL_RANK"}) {
    const char *value = getenv(name);
    if (!value || !*value)
      continue;
    char *end = nullptr;
    long rank = strtol(value, &end, 10);
    if (*end || rank < 0 || rank > INT32_MAX)
      continue;
    // The count fails for a kind without a plugin: device_create says so.
    if (loom_device_count(kind.c_str(), &count, message, sizeof(message)) ==
            LOOM_OK &&
        count > 0)
      ordinal = int32_t(rank % count);
    return true;
  }
  return true;
}

/// Opens the device and stream the program runs on, and has the device
/// check the target.
bool openDevice(loom_program &program, const loom_executable_params &params,
                std::string &error) {
  char message[2048] = "";
  const std::string &kind = program.manifest.targetDevice;
  int32_t ordinal = 0;
  if (kind != "cpu" && !chooseOrdinal(kind, ordinal, error))
    return false;
  if (loom_device_create(kind.c_str(), ordinal, &program.device, message,
                         sizeof(message)) != LOOM_OK) {
    // "loom_device_create: no device 'cuda' in this runtime (...)".
    std::string reason = message;
    const std::string prefix = "loom_device_create: ";
    if (reason.compare(0, prefix.size(), prefix) == 0)
      reason.erase(0, prefix.size());
    error = "artifact '" + program.artifactDir + "' runs on device '" + kind +
            "': " + reason;
    return false;
  }
  if (loom_stream_create(program.device, &program.stream, message,
                         sizeof(message)) != LOOM_OK ||
      loom_executable_check(program.device, &params, message,
                            sizeof(message)) != LOOM_OK) {
    error = message;
    return false;
  }
  return true;
}

bool loadExecutable(loom_program &program, const loom_executable_params &params,
                    std::string &error) {
  char message[4096] = "";
  if (loom_executable_load(program.device, &params, &program.executable,
                           message, sizeof(message)) != LOOM_OK) {
    error = message;
    return false;
  }
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

namespace {
/// The stage directory of `rank` when `text` (the manifest at `dir`) is a
/// pipelined artifact's; empty when it is not. False with `error` when the
/// pipeline object is malformed or lacks the rank.
bool pipelineStage(const std::string &text, const std::string &dir, int rank,
                   std::string &stageDir, std::string &error) {
  stageDir.clear();
  json::Value root;
  json::ParseError parseError;
  // A manifest that does not parse is left to parseManifest's messages.
  if (!json::parse(text, root, parseError) || !root.isObject())
    return true;
  const json::Value *pipeline = root.find("pipeline");
  if (!pipeline || pipeline->isNull())
    return true;
  std::string where = "artifact '" + dir + "': pipeline";
  const json::Value *stages =
      pipeline->isObject() ? pipeline->find("stages") : nullptr;
  const json::Value *ranks =
      pipeline->isObject() ? pipeline->find("rank_stage") : nullptr;
  if (!stages || !stages->isArray() || stages->getArray().empty() || !ranks ||
      !ranks->isArray()) {
    error = where + ": needs a non-empty \"stages\" list and \"rank_stage\"";
    return false;
  }
  const std::vector<json::Value> &map = ranks->getArray();
  for (size_t r = 0; r < map.size(); ++r)
    if (!map[r].isInteger() || map[r].getInteger() < 0 ||
        static_cast<size_t>(map[r].getInteger()) >= stages->getArray().size()) {
      error = where + ": rank_stage[" + std::to_string(r) +
              "] is not a stage index";
      return false;
    }
  for (const json::Value &d : stages->getArray()) {
    const std::string name = d.isString() ? d.getString() : "";
    if (name.empty() || name.find('/') != std::string::npos || name == "." ||
        name == "..") {
      error = where + ": stage directory '" + name +
              "' is not a plain name inside the artifact";
      return false;
    }
  }
  if (rank < 0 || static_cast<size_t>(rank) >= map.size()) {
    error = where + " was compiled for " + std::to_string(map.size()) +
            " ranks; rank " + std::to_string(rank) + " has no stage";
    return false;
  }
  const std::string &name =
      stages->getArray()[static_cast<size_t>(map[rank].getInteger())]
          .getString();
  stageDir = joinPath(dir, name);
  return true;
}
} // namespace

extern "C" loom_program *loom_program_load_rank(const char *artifactDir,
                                                int rank, unsigned flags,
                                                char *err, size_t errLen) {
  if (!artifactDir || !*artifactDir)
    return fail(nullptr, "loom_program_load: no artifact directory given", err,
                errLen);
  std::string dir = artifactDir, text, error, stageDir;
  struct stat st;
  constexpr size_t maxManifestSize = 64u << 20;
  if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
      readFileToString(joinPath(dir, LOOM_MANIFEST_FILE), maxManifestSize, text,
                       error)) {
    if (!pipelineStage(text, dir, rank, stageDir, error))
      return fail(nullptr, error, err, errLen);
  }
  loom_program *program = loom_program_load_with_flags(
      stageDir.empty() ? artifactDir : stageDir.c_str(), flags, err, errLen);
  if (program && !stageDir.empty()) {
    // pipelineStage checked these.
    json::Value root;
    json::ParseError parseError;
    if (json::parse(text, root, parseError)) {
      const json::Value *pipeline = root.find("pipeline");
      for (const json::Value &d : pipeline->find("stages")->getArray())
        program->stageDirs.push_back(joinPath(dir, d.getString()));
      for (const json::Value &s : pipeline->find("rank_stage")->getArray())
        program->rankStages.push_back(s.getInteger());
      program->pipelineStages = static_cast<int64_t>(program->stageDirs.size());
      program->pipelineStage = program->rankStages[rank];
      program->pipelineDir = dir;
      const json::Value *axis = pipeline->find("axis");
      program->pipelineAxis =
          axis && axis->isString() ? axis->getString() : "pp";
    }
  }
  return program;
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
                    "(MODEL.loom/) holding " LOOM_MANIFEST_FILE,
                err, errLen);

  // Manifests are small; the cap keeps a wrong path from reading gigabytes.
  constexpr size_t maxManifestSize = 64u << 20;
  std::string manifestPath = joinPath(dir, LOOM_MANIFEST_FILE);
  std::string text, error;
  if (!readFileToString(manifestPath, maxManifestSize, text, error))
    return fail(program, error, err, errLen);
  std::string stageDir;
  if (!pipelineStage(text, dir, 0, stageDir, error))
    return fail(program, error, err, errLen);
  if (!stageDir.empty())
    return fail(program,
                "artifact '" + dir +
                    "' is pipelined: each rank runs its stage "
                    "(loom_program_load_rank; loomrun does this)",
                err, errLen);
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
  if (flags & LOOM_LOAD_MANIFEST_ONLY) {
    if ((flags & LOOM_LOAD_PARAMETERS) &&
        (!checkArtifactFiles(manifest, dir, &manifest.parameterFile, error,
                             status) ||
         !mapParameters(*program, error, status)))
      return fail(program, error, err, errLen);
    return program;
  }

  // Every file is checked before any is mapped or loaded, the device checks
  // the target before anything is, and the program's signature is checked
  // before anything runs.
  ExecutableParams params(*program);
  if (!checkArtifactFiles(manifest, dir, nullptr, error, status) ||
      !openDevice(*program, params.params, error) ||
      !mapParameters(*program, error, status) ||
      !loadExecutable(*program, params.params, error) ||
      !checkProgramSignature(*program, error, status))
    return fail(program, error, err, errLen);
  // Training state, and zeros the file does not hold, live in owned blocks.
  bool anyZeros = false;
  for (const TensorSpec &parameter : manifest.parameters)
    anyZeros = anyZeros || parameter.initZeros;
  if ((manifest.hasTraining || anyZeros) && !ownParameters(*program, error))
    return fail(program, error, err, errLen);
  const loom_device_properties *device =
      loom_device_get_properties(program->device);
  if (!device->host_memory && program->mirror.init(*program, error))
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

void loom::rt::parameterUpdated(const loom_program &program, const void *data,
                                size_t bytes) {
  loom_device_buffer_updated(program.device, data, bytes);
  program.mirror.invalidate(data, bytes);
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

namespace {
/// A run on a device that is not host memory: through the mirror's
/// buffers, synchronously.
int runThroughMirror(loom_program *program, const void *const *inputs,
                     void *const *outputs, char *err, size_t errLen) {
  std::string message;
  auto check = [&](const std::vector<loom_tensor_info> &infos,
                   const void *const *pointers, const char *kind) {
    for (size_t i = 0; i < infos.size(); ++i)
      if (infos[i].nbytes && !pointers[i]) {
        message = std::string("loom_program_run: ") + kind + " " +
                  std::to_string(i) + " ('" + infos[i].name + "') is NULL";
        return false;
      }
    return true;
  };
  if (!check(program->inputInfos, inputs, "input") ||
      !check(program->outputInfos, outputs, "output"))
    return runError(LOOM_ERROR_INVALID_ARGUMENT, message, err, errLen);
  for (size_t i = 0; i < program->inputInfos.size(); ++i)
    if (!checkInt4(program->inputInfos[i], inputs[i], message))
      return runError(LOOM_ERROR_INVALID_ARGUMENT, message, err, errLen);
  std::vector<void *> buffers(program->parameterInfos.size() +
                              program->inputInfos.size() +
                              program->outputInfos.size());
  if (int status = program->mirror.stage(*program, inputs, buffers, message))
    return runError(loom_status(status), "loom_program_run: " + message, err,
                    errLen);
  char launchError[1024] = "";
  {
    CurrentBindingScope scope(&program->binding);
    if (int status = loom_executable_launch(
            program->executable, program->stream, buffers.data(),
            buffers.size(), launchError, sizeof(launchError)))
      return runError(static_cast<loom_status>(status),
                      std::string("loom_program_run: ") + launchError, err,
                      errLen);
  }
  if (int status = program->mirror.collect(*program, outputs, message))
    return runError(loom_status(status), "loom_program_run: " + message, err,
                    errLen);
  if (int status = loom_stream_synchronize(program->stream, launchError,
                                           sizeof(launchError)))
    return runError(static_cast<loom_status>(status),
                    std::string("loom_program_run: ") + launchError, err,
                    errLen);
  return LOOM_OK;
}
} // namespace

extern "C" int loom_program_run(loom_program *program,
                                const void *const *inputs, void *const *outputs,
                                char *err, size_t errLen) {
  if (!program)
    return runError(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_run: the program is NULL", err, errLen);
  if (!program->executable)
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
  if (program->mirror.active())
    return runThroughMirror(program, inputs, outputs, err, errLen);

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
    char launchError[1024] = "";
    if (int status = loom_executable_launch(
            program->executable, program->stream, buffers.data(),
            buffers.size(), launchError, sizeof(launchError)))
      return runError(static_cast<loom_status>(status),
                      std::string("loom_program_run: ") + launchError, err,
                      errLen);
    if (int status = loom_stream_synchronize(program->stream, launchError,
                                             sizeof(launchError)))
      return runError(static_cast<loom_status>(status),
                      std::string("loom_program_run: ") + launchError, err,
                      errLen);
  }

  for (auto &[index, copy] : copyBack)
    std::memcpy(outputs[index], copy->data(),
                program->outputInfos[index].nbytes);
  return LOOM_OK;
}
