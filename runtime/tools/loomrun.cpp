//===- loomrun.cpp - Run a compiled Loom artifact on .npy files -----------===//
//
// loomrun MODEL.loom --input NAME=FILE.npy ... [--output-dir DIR] ...
//
// Loads the artifact, checks every input file against the model's signature
// before running anything, runs the program (optionally timing repeated
// runs) and writes each output to DIR/<output>.npy. Outputs are written to
// temporary files and renamed into place only once all of them are complete,
// so a failure never leaves a half-written or partial set of outputs.
//
// Distributed artifacts run on several ranks: `loomrun -np N ...` starts N
// copies of itself through mpirun (or runs as one rank of an mpirun/srun
// job). Every rank reads the whole inputs and keeps its block, runs, and
// rank 0 gathers and writes the outputs. The ranks agree on the outcome of
// each step before the next, so that an error on one rank ends all of them
// with the message printed once; a rank that dies takes the job down with
// it (mpirun), and the launcher then names the ranks that failed.
//
// Exit codes: 0 success, 1 error (message on stderr starting with
// "loomrun: error: "), 2 bad command line (with the usage text).
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Collectives.h"
#include "loom/runtime/CommBackend.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Launch.h"
#include "loom/runtime/Npy.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include "loom/runtime/Train.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace loom::rt;

namespace {

const char usageText[] =
    "usage: loomrun MODEL.loom [--input NAME=FILE.npy]... [options]\n"
    "\n"
    "Runs a compiled Loom artifact on .npy inputs and writes one .npy file "
    "per\n"
    "output, named after the output (characters other than letters, digits,\n"
    "'.', '_' and '-' become '_').\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE.npy  bind model input NAME to FILE.npy (once per "
    "input)\n"
    "  --output-dir DIR       write outputs into DIR, created if missing "
    "(default: .)\n"
    "  --threads N            use N kernel threads (default: the library's "
    "choice)\n"
    "  --bench N              time N runs after the warm-up runs and print "
    "latency\n"
    "                         statistics; outputs are still written once\n"
    "  --warmup W             warm-up runs before --bench timing (default: 3)\n"
    "  --info                 print the artifact's inputs, outputs, "
    "parameters and\n"
    "                         target (and mesh and sharding), then exit\n"
    "  --version              print the runtime version and ABI, then exit\n"
    "  -h, --help             print this help, then exit\n"
    "\n"
    "distributed artifacts:\n"
    "  -np N                  run N ranks: start them through mpirun unless "
    "this\n"
    "                         already is a rank of an mpirun/srun job\n"
    "  --timeout S            end the job when a collective takes more than "
    "S\n"
    "                         seconds (default: $LOOM_COLLECTIVE_TIMEOUT, "
    "else 600)\n"
    "  --comm NAME            communicator backend: mpi or nccl (default: "
    "mpi with\n"
    "                         several ranks)\n"
    "  --comm-log PREFIX      log every collective to "
    "PREFIX.rank<R>.jsonl\n"
    "  --comm-stats           print a summary of the collectives after the "
    "run\n"
    "\n"
    "parameters and training (docs/Training.md):\n"
    "  --params FILE.safetensors  take the parameters from FILE, by name (e.g. "
    "from\n"
    "                         loom-ckpt export)\n"
    "  --train                train a loomc --train artifact instead of "
    "running "
    "once\n"
    "  --data NAME=FILE       training data for input NAME: .npy (dimension 0 "
    "indexes\n"
    "                         examples) or a flat uint16 token file\n"
    "  --steps S              train until S steps are done\n"
    "  --batch B              the global batch (must be the compiled one)\n"
    "  --seed X               the data order's seed (default: 0)\n"
    "  --metrics FILE.jsonl   write per-step metrics (JSON lines)\n"
    "  --ckpt DIR             write checkpoints into DIR\n"
    "  --ckpt-every K         ... every K steps (default: after the last one)\n"
    "  --resume               continue from the latest checkpoint in DIR\n"
    "  --on-nan=skip|halt     a non-finite loss or gradient norm skips the "
    "update\n"
    "                         (default) or stops the run\n"
    "  --log-every K          print progress every K steps (default: 10) when "
    "not\n"
    "                         on a terminal\n"
    "\n"
    "exit status: 0 success, 1 error, 2 bad command line\n";

struct Options {
  std::string artifact;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string outputDir = ".";
  int threads = 0;
  bool benchGiven = false;
  int64_t benchRuns = 0;
  bool warmupGiven = false;
  int64_t warmupRuns = 3;
  bool info = false;
  bool help = false;
  bool version = false;
  /// -np N (0: not given).
  int64_t ranks = 0;
  bool timeoutGiven = false;
  double timeout = 0;
  std::string comm;
  std::string commLog;
  bool commStats = false;
  std::string params;
  bool train = false;
  loom::rt::train::Options training;
  /// Training options given (for the "only with --train" check).
  std::string trainingOption;
  bool stepsGiven = false;
};

int error(const std::string &message) {
  std::fprintf(stderr, "loomrun: error: %s\n", message.c_str());
  return 1;
}

int usageError(const std::string &message) {
  std::fprintf(stderr, "loomrun: error: %s\n\n%s", message.c_str(), usageText);
  return 2;
}

/// Parses a decimal integer in [min, max]; rejects signs, spaces and junk.
bool parseCount(const std::string &text, int64_t min, int64_t max,
                int64_t &value) {
  if (text.empty() || text.size() > 18)
    return false;
  int64_t result = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    result = result * 10 + (c - '0');
  }
  if (result < min || result > max)
    return false;
  value = result;
  return true;
}

/// Parses the command line; returns -1 to go on, or an exit code.
int parseOptions(int argc, char **argv, Options &options) {
  bool endOfOptions = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (endOfOptions || arg.size() < 2 || arg[0] != '-') {
      if (!options.artifact.empty())
        return usageError("unexpected argument '" + arg +
                          "': give exactly one MODEL.loom");
      options.artifact = arg;
      continue;
    }
    if (arg == "--") {
      endOfOptions = true;
      continue;
    }
    std::string name = arg, value;
    bool hasValue = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    if (name == "--info" || name == "--help" || name == "-h" ||
        name == "--version" || name == "--comm-stats" || name == "--train" ||
        name == "--resume") {
      if (hasValue)
        return usageError("option '" + name + "' takes no value");
      if (name == "--train")
        options.train = true;
      else if (name == "--resume") {
        options.training.resume = true;
        options.trainingOption = name;
      } else if (name == "--info")
        options.info = true;
      else if (name == "--version")
        options.version = true;
      else if (name == "--comm-stats")
        options.commStats = true;
      else
        options.help = true;
      continue;
    }
    if (name == "--np")
      name = "-np";
    if (name != "--input" && name != "--output-dir" && name != "--threads" &&
        name != "--bench" && name != "--warmup" && name != "-np" &&
        name != "--timeout" && name != "--comm" && name != "--comm-log" &&
        name != "--params" && name != "--data" && name != "--steps" &&
        name != "--batch" && name != "--seed" && name != "--metrics" &&
        name != "--ckpt" && name != "--ckpt-every" && name != "--on-nan" &&
        name != "--log-every")
      return usageError("unknown option '" + name + "'");
    if (!hasValue) {
      if (i + 1 >= argc)
        return usageError("option '" + name + "' needs a value");
      value = argv[++i];
    }
    loom::rt::train::Options &training = options.training;
    if (name == "--data" || name == "--steps" || name == "--batch" ||
        name == "--seed" || name == "--metrics" || name == "--ckpt" ||
        name == "--ckpt-every" || name == "--on-nan" || name == "--log-every")
      options.trainingOption = name;
    if (name == "--params") {
      if (value.empty())
        return usageError("--params needs a .safetensors file");
      options.params = value;
    } else if (name == "--data") {
      size_t split = value.find('=');
      if (split == std::string::npos || split == 0 || split + 1 == value.size())
        return usageError("--data expects NAME=FILE, got '" + value + "'");
      training.data.emplace_back(value.substr(0, split),
                                 value.substr(split + 1));
    } else if (name == "--steps") {
      if (!parseCount(value, 1, INT64_MAX / 4, training.steps))
        return usageError("--steps expects a number of steps of at least 1, "
                          "got '" +
                          value + "'");
      options.stepsGiven = true;
    } else if (name == "--batch") {
      if (!parseCount(value, 1, INT64_MAX / 4, training.batch))
        return usageError("--batch expects a batch size of at least 1, got '" +
                          value + "'");
    } else if (name == "--seed") {
      int64_t seed = 0;
      if (!parseCount(value, 0, INT64_MAX, seed))
        return usageError("--seed expects a non-negative integer, got '" +
                          value + "'");
      training.seed = static_cast<uint64_t>(seed);
      training.seedGiven = true;
    } else if (name == "--metrics") {
      if (value.empty())
        return usageError("--metrics needs a file");
      training.metrics = value;
    } else if (name == "--ckpt") {
      if (value.empty())
        return usageError("--ckpt needs a directory");
      training.ckptDir = value;
    } else if (name == "--ckpt-every") {
      if (!parseCount(value, 1, INT64_MAX / 4, training.ckptEvery))
        return usageError("--ckpt-every expects a number of steps of at "
                          "least 1, got '" +
                          value + "'");
    } else if (name == "--log-every") {
      if (!parseCount(value, 1, INT64_MAX / 4, training.logEvery))
        return usageError("--log-every expects a number of steps of at least "
                          "1, got '" +
                          value + "'");
    } else if (name == "--on-nan") {
      if (value != "skip" && value != "halt")
        return usageError("--on-nan expects skip or halt, got '" + value + "'");
      training.haltOnNan = value == "halt";
    } else if (name == "--input") {
      size_t split = value.find('=');
      if (split == std::string::npos || split == 0 || split + 1 == value.size())
        return usageError("--input expects NAME=FILE.npy, got '" + value + "'");
      options.inputs.emplace_back(value.substr(0, split),
                                  value.substr(split + 1));
    } else if (name == "--output-dir") {
      if (value.empty())
        return usageError("--output-dir needs a directory");
      options.outputDir = value;
    } else if (name == "--threads") {
      int64_t threads;
      if (!parseCount(value, 1, 4096, threads))
        return usageError("--threads expects a number of threads from 1 to "
                          "4096, got '" +
                          value + "'");
      options.threads = static_cast<int>(threads);
    } else if (name == "-np") {
      if (!parseCount(value, 1, 1 << 20, options.ranks))
        return usageError("-np expects a number of ranks from 1 to 1048576, "
                          "got '" +
                          value + "'");
    } else if (name == "--timeout") {
      char *end = nullptr;
      options.timeout = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(options.timeout >= 0) ||
          options.timeout > 1e9)
        return usageError("--timeout expects a number of seconds (0 turns "
                          "the timeout off), got '" +
                          value + "'");
      options.timeoutGiven = true;
    } else if (name == "--comm") {
      if (value.empty())
        return usageError("--comm needs a backend name (mpi or nccl)");
      options.comm = value;
    } else if (name == "--comm-log") {
      if (value.empty())
        return usageError("--comm-log needs a file prefix");
      options.commLog = value;
    } else if (name == "--bench") {
      // The cap bounds the memory kept for per-run times.
      if (!parseCount(value, 1, 10000000, options.benchRuns))
        return usageError("--bench expects a number of runs from 1 to "
                          "10000000, got '" +
                          value + "'");
      options.benchGiven = true;
    } else {
      if (!parseCount(value, 0, 1000000000, options.warmupRuns))
        return usageError("--warmup expects a number of runs, got '" + value +
                          "'");
      options.warmupGiven = true;
    }
  }
  if (options.help || options.version)
    return -1;
  if (options.artifact.empty())
    return usageError("no artifact given");
  if (options.warmupGiven && !options.benchGiven)
    return usageError("--warmup only applies with --bench");
  if (!options.train && !options.trainingOption.empty())
    return usageError(options.trainingOption + " only applies with --train");
  if (options.train) {
    if (!options.inputs.empty())
      return usageError("--train fills the inputs itself: give training data "
                        "with --data NAME=FILE, not --input");
    if (options.benchGiven)
      return usageError("--bench does not apply with --train");
    if (!options.stepsGiven)
      return usageError("--train needs --steps S");
    const loom::rt::train::Options &training = options.training;
    if (training.resume && training.ckptDir.empty())
      return usageError("--resume needs --ckpt DIR");
    if (training.ckptEvery && training.ckptDir.empty())
      return usageError("--ckpt-every needs --ckpt DIR");
  }
  return -1;
}

/// "float32[16,16]": the whole tensor, as files hold it.
std::string globalType(const loom_tensor_info &info) {
  return formatTensorType(info.dtype, info.global_shape,
                          static_cast<size_t>(info.rank));
}

std::string tensorList(const loom_program *program, bool outputs) {
  size_t count = outputs ? loom_program_num_outputs(program)
                         : loom_program_num_inputs(program);
  if (count == 0)
    return "(none)";
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    const loom_tensor_info *info = outputs ? loom_program_output(program, i)
                                           : loom_program_input(program, i);
    if (i)
      text += ", ";
    text += std::string(info->name) + " " + globalType(*info);
  }
  return text;
}

/// "[[dp], []]", or "" when the tensor names no mesh axis.
std::string shardingText(const loom_program *program, loom_tensor_list list,
                         size_t index, int32_t rank) {
  std::string text;
  bool any = false;
  for (int32_t d = 0; d < rank; ++d) {
    std::string axes = loom_program_tensor_sharding(program, list, index, d);
    any = any || !axes.empty();
    std::string spaced;
    for (char c : axes)
      spaced += c == ',' ? std::string(", ") : std::string(1, c);
    text += (d ? ", [" : "[") + spaced + "]";
  }
  return any ? "[" + text + "]" : std::string();
}

void printTensors(const char *title, loom_tensor_list list, size_t count,
                  const loom_tensor_info *(*get)(const loom_program *, size_t),
                  const loom_program *program) {
  size_t total = 0;
  for (size_t i = 0; i < count; ++i)
    total += get(program, i)->nbytes;
  bool distributed = loom_program_mesh_num_axes(program) > 0;
  std::printf("%s (%zu, %zu bytes%s):\n", title, count, total,
              distributed ? " per rank" : "");
  for (size_t i = 0; i < count; ++i) {
    const loom_tensor_info *info = get(program, i);
    std::string sharding = shardingText(program, list, i, info->rank);
    std::string extra;
    if (!sharding.empty())
      extra = " (global " + globalType(*info) + ", sharding " + sharding + ")";
    std::printf("  %s: %s%s\n", info->name, formatTensorType(*info).c_str(),
                extra.c_str());
  }
}

std::string describeMesh(const loom_program *program) {
  std::string text;
  for (size_t i = 0; i < loom_program_mesh_num_axes(program); ++i)
    text += (i ? " x " : "") +
            std::string(loom_program_mesh_axis_name(program, i)) + "=" +
            std::to_string(loom_program_mesh_axis_size(program, i));
  return text;
}

std::string groupText(const loom_program *program, size_t group) {
  std::string text;
  for (const char *c = loom_program_group_axes(program, group); *c; ++c)
    text += *c == ',' ? std::string(", ") : std::string(1, *c);
  return "[" + text + "]";
}

void printInfo(const loom_program *program) {
  std::printf("artifact: %s\n", loom_program_artifact_dir(program));
  if (*loom_program_producer(program))
    std::printf("producer: %s\n", loom_program_producer(program));
  if (*loom_program_model(program))
    std::printf("model: %s\n", loom_program_model(program));
  std::string target = *loom_program_target_triple(program)
                           ? loom_program_target_triple(program)
                           : "(unspecified)";
  if (*loom_program_target_cpu(program))
    target += std::string(", cpu ") + loom_program_target_cpu(program);
  size_t numFeatures = loom_program_num_target_features(program);
  for (size_t i = 0; i < numFeatures; ++i)
    target += (i ? "," : ", features ") +
              std::string(loom_program_target_feature(program, i));
  std::printf("target: %s\n", target.c_str());
  if (loom_program_mesh_num_axes(program) > 0)
    std::printf("mesh: %s (%lld devices)\n", describeMesh(program).c_str(),
                static_cast<long long>(loom_program_mesh_size(program)));
  size_t numGroups = loom_program_num_groups(program);
  if (numGroups) {
    std::printf("groups (%zu):\n", numGroups);
    for (size_t g = 0; g < numGroups; ++g)
      std::printf("  %zu: %s\n", g, groupText(program, g).c_str());
  }
  printTensors("inputs", LOOM_TENSOR_INPUT, loom_program_num_inputs(program),
               loom_program_input, program);
  printTensors("outputs", LOOM_TENSOR_OUTPUT, loom_program_num_outputs(program),
               loom_program_output, program);
  printTensors("parameters", LOOM_TENSOR_PARAMETER,
               loom_program_num_parameters(program), loom_program_parameter,
               program);
  size_t numCollectives = loom_program_num_collectives(program);
  if (numCollectives) {
    std::printf("collectives (%zu):\n", numCollectives);
    for (size_t i = 0; i < numCollectives; ++i) {
      int32_t kind = 0, group = 0;
      int64_t bytes = 0;
      loom_program_collective(program, i, &kind, &group, &bytes);
      std::printf("  %zu: %s over group %d %s, %lld bytes\n", i,
                  loom_collective_kind_name(kind), group,
                  groupText(program, static_cast<size_t>(group)).c_str(),
                  static_cast<long long>(bytes));
    }
  }
}

/// Reads and checks every input file (whole tensors); fills `arrays` in
/// model order. Returns "" or the message.
std::string readInputs(const loom_program *program, const Options &options,
                       std::vector<NpyArray> &arrays) {
  size_t numInputs = loom_program_num_inputs(program);
  std::vector<const std::string *> paths(numInputs, nullptr);
  for (const auto &[name, path] : options.inputs) {
    int64_t index = loom_program_find_input(program, name.c_str());
    if (index < 0)
      return "unknown input '" + name + "': the model's inputs are " +
             tensorList(program, false);
    if (paths[index])
      return "input '" + name + "' is given twice (" + *paths[index] + " and " +
             path + ")";
    paths[index] = &path;
  }
  for (size_t i = 0; i < numInputs; ++i) {
    if (paths[i])
      continue;
    const loom_tensor_info *info = loom_program_input(program, i);
    return "missing input '" + std::string(info->name) + "' (" +
           globalType(*info) + "): pass --input " + info->name +
           "=FILE.npy; the model's inputs are " + tensorList(program, false);
  }

  arrays.resize(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    const loom_tensor_info *info = loom_program_input(program, i);
    std::string message;
    if (!readNpy(*paths[i], arrays[i], message))
      return "input '" + std::string(info->name) + "': " + message;
    const NpyArray &array = arrays[i];
    bool sameShape =
        array.shape.size() == static_cast<size_t>(info->rank) &&
        std::equal(array.shape.begin(), array.shape.end(), info->global_shape);
    if (!npyHolds(array.dtype, info->dtype) || !sameShape)
      return "input '" + std::string(info->name) + "' expects " +
             globalType(*info) + ", but " + *paths[i] + " holds " +
             formatTensorType(array.dtype, array.shape);
  }
  return "";
}

/// `name` as a file name: characters outside [A-Za-z0-9._-] become '_', and
/// very long names are shortened to stay within file-system limits.
std::string sanitizeFileName(const std::string &name) {
  std::string result;
  for (char c : name) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    result += safe ? c : '_';
  }
  if (result.size() > 200)
    result.resize(200);
  return result;
}

/// The file name of every output: the sanitized name plus ".npy", with
/// "_<index>" appended to the names that collide with an earlier one.
std::vector<std::string> outputFileNames(const loom_program *program) {
  std::vector<std::string> names;
  size_t count = loom_program_num_outputs(program);
  for (size_t i = 0; i < count; ++i) {
    std::string base = sanitizeFileName(loom_program_output(program, i)->name);
    std::string candidate = base + ".npy";
    for (int attempt = 0;
         std::find(names.begin(), names.end(), candidate) != names.end();
         ++attempt)
      candidate = base + "_" + std::to_string(i) +
                  (attempt ? "_" + std::to_string(attempt) : "") + ".npy";
    names.push_back(candidate);
  }
  return names;
}

/// Creates the output directory and checks that files can be created in it,
/// before any time is spent running. Returns "" or the message.
std::string prepareOutputDir(const std::string &dir) {
  std::string message;
  if (!makeDirectories(dir, message)) {
    // makeDirectories names the component that failed; the user named dir.
    size_t reason = message.rfind(": ");
    return "cannot create output directory '" + dir + "': " +
           (reason == std::string::npos ? message : message.substr(reason + 2));
  }
  std::string probe = joinPath(dir, ".loomrun-probe-XXXXXX");
  int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0)
    return "cannot write to output directory '" + dir +
           "': " + errnoMessage(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

struct PendingFile {
  std::string tempPath;
  std::string finalPath;
};

void removeTemporaries(const std::vector<PendingFile> &files, size_t from) {
  for (size_t i = from; i < files.size(); ++i)
    ::unlink(files[i].tempPath.c_str());
}

/// Writes every output (whole tensors) to a temporary file in `dir`, syncs
/// them, then renames them all into place. Returns "" or the message.
std::string writeOutputs(const loom_program *program, const std::string &dir,
                         const std::vector<std::string> &fileNames,
                         const std::vector<const void *> &outputs) {
  mode_t mask = ::umask(0);
  ::umask(mask);
  std::vector<PendingFile> files;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const loom_tensor_info *info = loom_program_output(program, i);
    PendingFile file;
    file.finalPath = joinPath(dir, fileNames[i]);
    // Hidden, so that an interrupted run leaves nothing that looks like an
    // output.
    file.tempPath = joinPath(dir, "." + fileNames[i] + ".tmp-XXXXXX");
    int fd = ::mkostemp(file.tempPath.data(), O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      removeTemporaries(files, 0);
      return "cannot write '" + file.finalPath + "': " + errnoMessage(err);
    }
    files.push_back(file);
    std::string message;
    bool ok = true;
    if (::fchmod(fd, 0666 & ~mask) != 0) {
      message = "cannot write '" + file.finalPath + "': " + errnoMessage(errno);
      ok = false;
    }
    ok = ok && writeNpy(fd, file.finalPath, info->dtype, info->global_shape,
                        static_cast<size_t>(info->rank), outputs[i], message);
    if (ok && ::fsync(fd) != 0) {
      message = "cannot write '" + file.finalPath + "': " + errnoMessage(errno);
      ok = false;
    }
    if (::close(fd) != 0 && ok) {
      message = "cannot write '" + file.finalPath + "': " + errnoMessage(errno);
      ok = false;
    }
    if (!ok) {
      removeTemporaries(files, 0);
      return message;
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (::rename(files[i].tempPath.c_str(), files[i].finalPath.c_str()) != 0) {
      int err = errno;
      removeTemporaries(files, i);
      return "cannot move the new '" + files[i].finalPath +
             "' into place: " + errnoMessage(err) +
             (i ? " (" + std::to_string(i) +
                      " earlier outputs were already replaced)"
                : "");
    }
  }
  // Make the renames themselves durable.
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  for (size_t i = 0; i < files.size(); ++i)
    std::printf("%s: %s -> %s\n", loom_program_output(program, i)->name,
                globalType(*loom_program_output(program, i)).c_str(),
                files[i].finalPath.c_str());
  return "";
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

//===----------------------------------------------------------------------===//
// One rank
//===----------------------------------------------------------------------===//

extern "C" void onTerminate(int signal) {
  writeTerminatedStatus();
  // mpirun sends SIGKILL as soon as a rank it signalled dies: linger a
  // moment, so that every rank has time to write its status first.
  struct timespec linger = {0, 250000000};
  ::nanosleep(&linger, nullptr);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

/// This process's part of the job, and the step-by-step agreement that
/// keeps all ranks' outcomes equal.
class Rank {
public:
  explicit Rank(loom_comm *comm)
      : comm(comm), rank(loom_comm_rank(comm)), size(loom_comm_size(comm)) {}
  ~Rank() {
    // Programs go before the communicator they are bound to.
    loom_program_free(program);
    loom_comm_free(comm);
  }
  Rank(const Rank &) = delete;
  Rank &operator=(const Rank &) = delete;

  bool multi() const { return size > 1; }

  /// Ends a step: every rank says whether it succeeded (ownError empty),
  /// failed itself, or failed because another rank did (peerFailed).
  /// Returns true when all succeeded; otherwise the lowest rank that failed
  /// itself prints its message and every rank records its status, and the
  /// caller exits 1.
  bool agree(const std::string &ownError, bool peerFailed = false) {
    int32_t mine = ownError.empty() && !peerFailed ? INT32_MAX
                   : peerFailed                    ? size
                                                   : rank;
    int32_t first = mine;
    char message[1024];
    if (multi() && loom_comm_all_reduce(comm, &mine, &first, 1,
                                        LOOM_DTYPE_INT32, LOOM_REDUCE_MIN,
                                        message, sizeof(message)) != LOOM_OK) {
      failHere(std::string("cannot agree with the other ranks: ") + message);
      return false;
    }
    if (first == INT32_MAX)
      return true;
    if (first >= size)
      first = 0; // nobody failed on its own: rank 0 speaks
    if (first == rank) {
      std::string text = ownError.empty() ? "failed" : ownError;
      print(text);
      writeRankStatus(rank, "error", 1, text, /*orderly=*/true);
    } else {
      writeRankStatus(rank, "error", 1,
                      "stopped because rank " + std::to_string(first) +
                          " failed",
                      /*orderly=*/true);
    }
    return false;
  }

  /// A failure that cannot wait for an agreement (the other ranks may be
  /// inside a collective): printed here; with several ranks the job ends.
  int failHere(const std::string &message) {
    print(message);
    writeRankStatus(rank, "error", 1, message);
    if (multi()) {
      std::fflush(stdout);
      ::_exit(1); // mpirun/srun end the other ranks
    }
    return 1;
  }

  void print(const std::string &message) const {
    std::fprintf(stderr, "loomrun: error: %s%s\n",
                 multi() ? ("rank " + std::to_string(rank) + ": ").c_str() : "",
                 message.c_str());
  }

  loom_comm *comm;
  int rank;
  int size;
  loom_program *program = nullptr;
};

/// Sums the collective statistics over the ranks; rank 0 prints them.
bool printCommStats(Rank &self) {
  int64_t counts[2 * LOOM_COLLECTIVE_NUM_KINDS] = {};
  double seconds[LOOM_COLLECTIVE_NUM_KINDS] = {};
  for (int k = 0; k < LOOM_COLLECTIVE_NUM_KINDS; ++k)
    loom_collective_stats(k, &counts[k], &counts[LOOM_COLLECTIVE_NUM_KINDS + k],
                          &seconds[k]);
  char message[1024];
  if (loom_comm_all_reduce(self.comm, counts, counts,
                           2 * LOOM_COLLECTIVE_NUM_KINDS, LOOM_DTYPE_INT64,
                           LOOM_REDUCE_SUM, message,
                           sizeof(message)) != LOOM_OK ||
      loom_comm_all_reduce(self.comm, seconds, seconds,
                           LOOM_COLLECTIVE_NUM_KINDS, LOOM_DTYPE_FLOAT64,
                           LOOM_REDUCE_MAX, message,
                           sizeof(message)) != LOOM_OK) {
    self.failHere(std::string("cannot gather the comm statistics: ") + message);
    return false;
  }
  if (self.rank != 0)
    return true;
  std::printf("comm stats (%d rank%s; calls and bytes summed over the ranks, "
              "seconds of the slowest rank):\n",
              self.size, self.size == 1 ? "" : "s");
  std::printf("  %-15s %10s %16s %12s\n", "kind", "calls", "bytes", "seconds");
  int64_t totalCalls = 0, totalBytes = 0;
  double totalSeconds = 0;
  for (int k = 0; k < LOOM_COLLECTIVE_NUM_KINDS; ++k) {
    int64_t calls = counts[k], bytes = counts[LOOM_COLLECTIVE_NUM_KINDS + k];
    if (calls == 0)
      continue;
    std::printf("  %-15s %10lld %16lld %12.6f\n", loom_collective_kind_name(k),
                static_cast<long long>(calls), static_cast<long long>(bytes),
                seconds[k]);
    totalCalls += calls;
    totalBytes += bytes;
    totalSeconds += seconds[k];
  }
  std::printf("  %-15s %10lld %16lld %12.6f\n", "total",
              static_cast<long long>(totalCalls),
              static_cast<long long>(totalBytes), totalSeconds);
  return true;
}

/// This process's rank as its launcher says, or -1.
int launcherRank() {
  for (const char *name :
       {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char *text = std::getenv(name);
    int64_t rank = 0;
    if (text && parseCount(text, 0, INT_MAX, rank))
      return static_cast<int>(rank);
  }
  return -1;
}

int runRank(const Options &options) {
  if (!options.commLog.empty())
    ::setenv("LOOM_COMM_LOG", options.commLog.c_str(), 1);
  // Before MPI starts: a rank the teardown terminates early must not look
  // like one that died.
  bool reportStatus = std::getenv("LOOM_STATUS_DIR") != nullptr;
  if (reportStatus && launcherRank() >= 0) {
    prepareTerminatedStatus(launcherRank());
    std::signal(SIGTERM, onTerminate);
    markRankStarted(launcherRank());
  }
  char message[4096];
  loom_comm *comm =
      loom_comm_create(options.comm.empty() ? nullptr : options.comm.c_str(),
                       message, sizeof(message));
  if (!comm) {
    // Without a communicator the ranks cannot agree on who speaks: under
    // the launcher, it reports every rank's message, merged.
    int rank = launcherRank();
    if (reportStatus && rank >= 0 && writeRankStatus(rank, "error", 1, message))
      return 1;
    return error(message);
  }
  Rank self(comm);
  if (reportStatus) {
    prepareTerminatedStatus(self.rank);
    std::signal(SIGTERM, onTerminate);
  }
  if (options.timeoutGiven)
    loom_comm_set_timeout(comm, options.timeout);

  // Load (each rank by itself), then bind (together).
  std::string problem;
  self.program =
      loom_program_load(options.artifact.c_str(), message, sizeof(message));
  if (!self.program)
    problem = message;
  if (!self.agree(problem))
    return 1;
  loom_program *program = self.program;
  int bound = loom_program_bind(program, comm, message, sizeof(message));
  if (bound != LOOM_OK) {
    problem = message;
    int64_t devices = loom_program_mesh_size(program);
    if (bound == LOOM_ERROR_INCOMPATIBLE)
      problem += ": start " + std::to_string(devices) + " ranks (loomrun -np " +
                 std::to_string(devices) + ")";
  }
  if (!self.agree(bound == LOOM_ERROR_PEER_FAILED ? "" : problem,
                  bound == LOOM_ERROR_PEER_FAILED))
    return 1;

  if (!options.params.empty()) {
    problem.clear();
    if (loom_program_load_parameters(program, options.params.c_str(), message,
                                     sizeof(message)) != LOOM_OK)
      problem = message;
    if (!self.agree(problem))
      return 1;
  }
  if (options.threads > 0)
    loom_set_num_threads(options.threads);
  if (options.train) {
    loom::rt::train::Hooks hooks;
    hooks.agree = [&self](const std::string &ownError) {
      return self.agree(ownError);
    };
    hooks.failHere = [&self](const std::string &text) {
      return self.failHere(text);
    };
    int code = loom::rt::train::run(program, comm, options.training, hooks);
    if (code == 0)
      writeRankStatus(self.rank, "ok", 0, "");
    return code;
  }

  // Inputs: every rank reads the whole tensors and keeps its blocks.
  std::vector<NpyArray> inputArrays;
  problem = readInputs(program, options, inputArrays);
  size_t numInputs = loom_program_num_inputs(program);
  std::vector<AlignedBuffer> inputBlocks(numInputs);
  std::vector<const void *> inputPtrs(numInputs);
  for (size_t i = 0; problem.empty() && i < numInputs; ++i) {
    const loom_tensor_info *info = loom_program_input(program, i);
    inputPtrs[i] = inputArrays[i].data.data();
    if (!loom_program_tensor_is_sharded(info))
      continue;
    if (!inputBlocks[i].allocate(info->nbytes)) {
      problem = "cannot allocate " + std::to_string(info->nbytes) +
                " bytes for input '" + info->name + "'";
    } else if (loom_program_shard_input(program, i, inputPtrs[i],
                                        inputBlocks[i].data(), message,
                                        sizeof(message)) != LOOM_OK) {
      problem = message;
    } else {
      inputPtrs[i] = inputBlocks[i].data();
      inputArrays[i].data.reset(); // only the block is needed now
    }
  }

  // Only rank 0 writes outputs.
  std::vector<std::string> fileNames = outputFileNames(program);
  if (problem.empty() && self.rank == 0)
    problem = prepareOutputDir(options.outputDir);
  for (size_t i = 0; problem.empty() && self.rank == 0 && i < fileNames.size();
       ++i) {
    std::string path = joinPath(options.outputDir, fileNames[i]);
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      problem = "cannot write '" + path + "': it is a directory";
  }
  size_t numOutputs = loom_program_num_outputs(program);
  std::vector<AlignedBuffer> outputs(numOutputs);
  std::vector<void *> outputPtrs(numOutputs);
  for (size_t i = 0; problem.empty() && i < numOutputs; ++i) {
    const loom_tensor_info *info = loom_program_output(program, i);
    if (!outputs[i].allocate(info->nbytes))
      problem = "cannot allocate " + std::to_string(info->nbytes) +
                " bytes for output '" + info->name + "'";
    outputPtrs[i] = outputs[i].data();
  }
  if (!self.agree(problem))
    return 1;

  // From here on the ranks meet in the program's collectives: a failure
  // ends the job instead of waiting for an agreement.
  auto runOnce = [&]() -> bool {
    return loom_program_run(program, inputPtrs.data(), outputPtrs.data(),
                            message, sizeof(message)) == LOOM_OK;
  };
  if (options.benchGiven) {
    for (int64_t i = 0; i < options.warmupRuns; ++i)
      if (!runOnce())
        return self.failHere(message);
    std::vector<double> times;
    times.reserve(static_cast<size_t>(options.benchRuns));
    for (int64_t i = 0; i < options.benchRuns; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!runOnce())
        return self.failHere(message);
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    double sum = 0;
    for (double t : times)
      sum += t;
    if (self.rank == 0)
      std::printf("bench: %lld runs, median %.4g ms, min %.4g ms, max %.4g "
                  "ms, mean %.4g ms\n",
                  static_cast<long long>(times.size()), median(times),
                  *std::min_element(times.begin(), times.end()),
                  *std::max_element(times.begin(), times.end()),
                  sum / static_cast<double>(times.size()));
  } else if (!runOnce()) {
    return self.failHere(message);
  }

  // Rank 0 assembles the whole outputs.
  std::vector<AlignedBuffer> wholeOutputs(numOutputs);
  std::vector<const void *> results(numOutputs);
  for (size_t i = 0; i < numOutputs; ++i) {
    const loom_tensor_info *info = loom_program_output(program, i);
    results[i] = outputs[i].data();
    if (!loom_program_tensor_is_sharded(info))
      continue;
    if (self.rank == 0 && !wholeOutputs[i].allocate(info->global_nbytes))
      return self.failHere("cannot allocate " +
                           std::to_string(info->global_nbytes) +
                           " bytes for output '" + info->name + "'");
    if (loom_program_gather_output(program, i, outputs[i].data(),
                                   wholeOutputs[i].data(), 0, message,
                                   sizeof(message)) != LOOM_OK)
      return self.failHere(message);
    results[i] = wholeOutputs[i].data();
  }
  if (options.commStats && !printCommStats(self))
    return 1;

  problem.clear();
  if (self.rank == 0) {
    problem = writeOutputs(program, options.outputDir, fileNames, results);
    if (problem.empty() && std::fflush(stdout) != 0)
      problem = "cannot write to stdout";
  }
  if (!self.agree(problem))
    return 1;
  writeRankStatus(self.rank, "ok", 0, "");
  return 0;
}

//===----------------------------------------------------------------------===//
// The launcher (loomrun -np N outside an MPI job)
//===----------------------------------------------------------------------===//

volatile sig_atomic_t launcherChild = 0;
volatile sig_atomic_t launcherSignal = 0;

extern "C" void forwardSignal(int signal) {
  launcherSignal = signal;
  if (launcherChild > 0)
    ::kill(launcherChild, signal);
}

/// `name` on $PATH, or "".
std::string findOnPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = joinPath(dir.empty() ? "." : dir, name);
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

void removeStatusDir(const std::string &dir) {
  if (DIR *entries = ::opendir(dir.c_str())) {
    while (struct dirent *entry = ::readdir(entries)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        ::unlink(joinPath(dir, name).c_str());
    }
    ::closedir(entries);
  }
  ::rmdir(dir.c_str());
}

struct RankReport {
  /// The rank reached main (rank<R>.started, holding its pid).
  bool started = false;
  pid_t pid = 0;
  bool present = false;
  std::string status;
  int64_t code = 0;
  std::string message;
  bool orderly = false;
};

RankReport readRankReport(const std::string &dir, int64_t rank) {
  RankReport report;
  std::string base = joinPath(dir, "rank" + std::to_string(rank));
  std::string text, message;
  if (readFileToString(base + ".started", 64, text, message)) {
    report.started = true;
    report.pid = static_cast<pid_t>(std::atol(text.c_str()));
  }
  if (!readFileToString(joinPath(dir, "rank" + std::to_string(rank) + ".json"),
                        1 << 20, text, message))
    return report;
  json::Value value;
  json::ParseError parseError;
  if (!json::parse(text, value, parseError) || !value.isObject())
    return report;
  report.present = true;
  if (const json::Value *status = value.find("status"))
    report.status = status->isString() ? status->getString() : "";
  if (const json::Value *code = value.find("code"))
    report.code = code->isInteger() ? code->getInteger() : 0;
  if (const json::Value *text = value.find("message"))
    report.message = text->isString() ? text->getString() : "";
  if (const json::Value *orderly = value.find("orderly"))
    report.orderly = orderly->isBool() && orderly->getBool();
  return report;
}

/// Whether `pid` is a live process running this executable (not a zombie,
/// not a recycled pid).
bool isLiveRank(pid_t pid, const std::string &self) {
  if (pid <= 0)
    return false;
  std::string proc = "/proc/" + std::to_string(pid);
  char exe[PATH_MAX];
  ssize_t length = ::readlink((proc + "/exe").c_str(), exe, sizeof(exe) - 1);
  if (length <= 0 || std::string(exe, static_cast<size_t>(length)) != self)
    return false;
  std::string stat, message;
  if (!readFileToString(proc + "/stat", 4096, stat, message))
    return false;
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() &&
         stat[close + 2] != 'Z';
}

/// mpirun may return while the ranks it tore down are still dying: wait
/// (a few seconds at most) until every rank that started has reported or
/// is gone, so that the report is complete and no rank outlives loomrun.
void waitForRanks(const std::string &dir, int64_t ranks) {
  char self[PATH_MAX];
  ssize_t length = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0)
    return;
  std::string exe(self, static_cast<size_t>(length));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int64_t r = 0; r < ranks; ++r) {
    RankReport report = readRankReport(dir, r);
    while (report.started && !report.present && isLiveRank(report.pid, exe)) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(report.pid, SIGKILL);
        break;
      }
      ::usleep(20000);
      report = readRankReport(dir, r);
    }
  }
}

/// Names the ranks that failed: those that died or reported an error
/// first, not those the teardown terminated or stopped before they started.
void reportFailedRanks(const std::string &dir, int64_t ranks, int exitCode) {
  std::vector<RankReport> reports;
  bool anyStarted = false, anyOrderly = false, allTimeouts = true;
  std::vector<bool> loud;
  for (int64_t r = 0; r < ranks; ++r) {
    reports.push_back(readRankReport(dir, r));
    const RankReport &report = reports.back();
    anyStarted = anyStarted || report.started || report.present;
    anyOrderly = anyOrderly || (report.status == "error" && report.orderly);
    bool died = !report.present && report.started;
    bool failed = report.status == "error" && !report.orderly;
    loud.push_back(died || failed);
    if (loud.back() &&
        report.message.find("did not complete within") == std::string::npos)
      allTimeouts = false;
  }
  bool anyLoud = std::find(loud.begin(), loud.end(), true) != loud.end();
  if (!anyStarted) {
    std::fprintf(stderr,
                 "loomrun: error: mpirun exited with code %d before any rank "
                 "started\n",
                 exitCode);
    return;
  }
  if (!anyLoud && anyOrderly)
    return; // the ranks agreed to fail and one printed why

  // Ranks that failed alike share a line ("ranks 0, 1 failed ...").
  bool printed = false;
  std::vector<bool> done(reports.size(), false);
  for (int64_t r = 0; r < ranks; ++r) {
    if (!loud[r] || done[r])
      continue;
    const RankReport &report = reports[r];
    std::string who = std::to_string(r);
    bool several = false;
    for (int64_t other = r + 1; other < ranks; ++other) {
      const RankReport &next = reports[other];
      if (loud[other] && next.present == report.present &&
          next.code == report.code && next.message == report.message) {
        who += ", " + std::to_string(other);
        done[other] = true;
        several = true;
      }
    }
    const char *noun = several ? "ranks" : "rank";
    if (!report.present)
      std::fprintf(stderr,
                   "loomrun: error: %s %s %s killed (no exit status: "
                   "SIGKILL or crash)\n",
                   noun, who.c_str(), several ? "were" : "was");
    else
      std::fprintf(stderr,
                   "loomrun: error: %s %s failed with exit code %lld: %s\n",
                   noun, who.c_str(), static_cast<long long>(report.code),
                   report.message.c_str());
    printed = true;
  }
  // A rank the others timed out waiting for is a suspect; with no failure
  // at all, whatever stopped the ranks is all there is to say.
  for (int64_t r = 0; r < ranks; ++r) {
    const RankReport &report = reports[r];
    if (report.status == "terminated" && !anyLoud)
      std::fprintf(stderr, "loomrun: error: rank %lld was terminated\n",
                   static_cast<long long>(r));
    else if (report.status == "terminated" && allTimeouts)
      std::fprintf(stderr,
                   "loomrun: error: rank %lld was terminated while the others "
                   "waited for it (it may have hung)\n",
                   static_cast<long long>(r));
    else if (!report.started && !report.present && !anyLoud)
      std::fprintf(stderr, "loomrun: error: rank %lld did not start\n",
                   static_cast<long long>(r));
    else
      continue;
    printed = true;
  }
  if (!printed)
    std::fprintf(stderr, "loomrun: error: mpirun exited with code %d\n",
                 exitCode);
}

/// The arguments for each rank: ours without -np.
std::vector<std::string> rankArguments(int argc, char **argv) {
  std::vector<std::string> args;
  bool endOfOptions = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!endOfOptions && arg == "--")
      endOfOptions = true;
    if (!endOfOptions && (arg == "-np" || arg == "--np")) {
      ++i;
      continue;
    }
    if (!endOfOptions && arg.compare(0, 5, "--np=") == 0)
      continue;
    args.push_back(arg);
  }
  return args;
}

int launch(int argc, char **argv, const Options &options) {
  const char *override = std::getenv("LOOM_MPIRUN");
  std::string mpirun =
      override && *override ? std::string(override) : findOnPath("mpirun");
  if (mpirun.empty())
    return error("-np " + std::to_string(options.ranks) +
                 " starts the ranks with mpirun, which is not on PATH: "
                 "install Open MPI, set LOOM_MPIRUN, or start loomrun with "
                 "mpirun or srun yourself");
  char self[PATH_MAX];
  ssize_t length = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0)
    return error("cannot find the loomrun executable: " + errnoMessage(errno));
  self[length] = '\0';

  std::string statusDir;
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      joinPath(tmp && *tmp ? tmp : "/tmp", "loomrun-status-XXXXXX");
  if (!::mkdtemp(pattern.data()))
    return error("cannot create a status directory in '" +
                 std::string(tmp && *tmp ? tmp : "/tmp") +
                 "': " + errnoMessage(errno));
  statusDir = pattern;
  ::setenv("LOOM_STATUS_DIR", statusDir.c_str(), 1);
  // Ranks see mpirun's pseudo-terminal; progress lines follow ours.
  ::setenv("LOOM_PROGRESS_TTY", ::isatty(STDOUT_FILENO) ? "1" : "0", 1);

  std::vector<std::string> args = {mpirun};
  if (::geteuid() == 0)
    args.push_back("--allow-run-as-root");
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus > 0 && options.ranks > cpus)
    args.push_back("--oversubscribe");
  // -q: loomrun names the failed ranks itself; --bind-to none: each rank
  // runs a thread pool of its own.
  for (const char *arg : {"-q", "--bind-to", "none", "-x", "LOOM_STATUS_DIR",
                          "-x", "LOOM_PROGRESS_TTY"})
    args.push_back(arg);
  args.push_back("-np");
  args.push_back(std::to_string(options.ranks));
  args.push_back(self);
  for (const std::string &arg : rankArguments(argc, argv))
    args.push_back(arg);
  std::vector<char *> argvOut;
  for (std::string &arg : args)
    argvOut.push_back(arg.data());
  argvOut.push_back(nullptr);

  struct sigaction action = {};
  action.sa_handler = forwardSignal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = ::fork();
  if (child < 0) {
    int err = errno;
    removeStatusDir(statusDir);
    return error("cannot start mpirun: " + errnoMessage(err));
  }
  if (child == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::execv(argvOut[0], argvOut.data());
    std::fprintf(stderr, "loomrun: error: cannot run '%s': %s\n", argvOut[0],
                 std::strerror(errno));
    ::_exit(127);
  }
  launcherChild = child;
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  launcherChild = 0;
  waitForRanks(statusDir, options.ranks);
  int code = WIFEXITED(status)     ? WEXITSTATUS(status)
             : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                   : 1;
  bool allOk = true;
  for (int64_t r = 0; r < options.ranks; ++r) {
    RankReport report = readRankReport(statusDir, r);
    allOk = allOk && report.present && report.status == "ok";
  }
  if (launcherSignal) {
    std::fprintf(stderr,
                 "loomrun: error: interrupted (%s); the ranks were "
                 "stopped\n",
                 launcherSignal == SIGINT ? "SIGINT" : "SIGTERM");
    code = 128 + launcherSignal;
  } else if (code != 0 || !allOk) {
    reportFailedRanks(statusDir, options.ranks, code);
    if (code == 0)
      code = 1;
  }
  removeStatusDir(statusDir);
  return code;
}

} // namespace

int main(int argc, char **argv) {
  // Exceeding a file-size limit should be a write error with a message, not
  // a core dump.
  std::signal(SIGXFSZ, SIG_IGN);

  Options options;
  int status = parseOptions(argc, argv, options);
  if (status >= 0)
    return status;
  if (options.help) {
    std::fputs(usageText, stdout);
    return 0;
  }
  if (options.version) {
    std::printf("loomrun (Loom runtime) %s, runtime ABI %d\n",
                loom_runtime_version(), loom_runtime_abi_version());
    return 0;
  }

  if (options.info) {
    char message[4096];
    loom_program *program = loom_program_load_with_flags(
        options.artifact.c_str(), LOOM_LOAD_MANIFEST_ONLY, message,
        sizeof(message));
    if (!program)
      return error(message);
    printInfo(program);
    loom_program_free(program);
    return 0;
  }

  int launched = launcherWorldSize();
  if (options.ranks > 1 && launched < 0)
    return launch(argc, argv, options);
  if (options.ranks > 0 && launched > 0 && launched != options.ranks)
    return usageError("-np " + std::to_string(options.ranks) +
                      " disagrees with the " + std::to_string(launched) +
                      " processes this job was started with");
  return runRank(options);
}
