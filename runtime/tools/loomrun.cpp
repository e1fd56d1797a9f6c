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
// Exit codes: 0 success, 1 error (message on stderr starting with
// "loomrun: error: "), 2 bad command line (with the usage text).
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Npy.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
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
    "                         target, then exit\n"
    "  --version              print the runtime version and ABI, then exit\n"
    "  -h, --help             print this help, then exit\n"
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
        name == "--version") {
      if (hasValue)
        return usageError("option '" + name + "' takes no value");
      if (name == "--info")
        options.info = true;
      else if (name == "--version")
        options.version = true;
      else
        options.help = true;
      continue;
    }
    if (name != "--input" && name != "--output-dir" && name != "--threads" &&
        name != "--bench" && name != "--warmup")
      return usageError("unknown option '" + name + "'");
    if (!hasValue) {
      if (i + 1 >= argc)
        return usageError("option '" + name + "' needs a value");
      value = argv[++i];
    }
    if (name == "--input") {
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
  return -1;
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
    text += std::string(info->name) + " " + formatTensorType(*info);
  }
  return text;
}

void printTensors(const char *title, size_t count,
                  const loom_tensor_info *(*get)(const loom_program *, size_t),
                  const loom_program *program) {
  size_t total = 0;
  for (size_t i = 0; i < count; ++i)
    total += get(program, i)->nbytes;
  std::printf("%s (%zu, %zu bytes):\n", title, count, total);
  for (size_t i = 0; i < count; ++i) {
    const loom_tensor_info *info = get(program, i);
    std::printf("  %s: %s\n", info->name, formatTensorType(*info).c_str());
  }
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
  printTensors("inputs", loom_program_num_inputs(program), loom_program_input,
               program);
  printTensors("outputs", loom_program_num_outputs(program),
               loom_program_output, program);
  printTensors("parameters", loom_program_num_parameters(program),
               loom_program_parameter, program);
}

/// Reads and checks every input; fills `arrays` in model order.
int bindInputs(const loom_program *program, const Options &options,
               std::vector<NpyArray> &arrays) {
  size_t numInputs = loom_program_num_inputs(program);
  std::vector<const std::string *> paths(numInputs, nullptr);
  for (const auto &[name, path] : options.inputs) {
    int64_t index = loom_program_find_input(program, name.c_str());
    if (index < 0)
      return error("unknown input '" + name + "': the model's inputs are " +
                   tensorList(program, false));
    if (paths[index])
      return error("input '" + name + "' is given twice (" + *paths[index] +
                   " and " + path + ")");
    paths[index] = &path;
  }
  for (size_t i = 0; i < numInputs; ++i) {
    if (paths[i])
      continue;
    const loom_tensor_info *info = loom_program_input(program, i);
    return error("missing input '" + std::string(info->name) + "' (" +
                 formatTensorType(*info) + "): pass --input " + info->name +
                 "=FILE.npy; the model's inputs are " +
                 tensorList(program, false));
  }

  arrays.resize(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    const loom_tensor_info *info = loom_program_input(program, i);
    std::string message;
    if (!readNpy(*paths[i], arrays[i], message))
      return error("input '" + std::string(info->name) + "': " + message);
    const NpyArray &array = arrays[i];
    bool sameShape =
        array.shape.size() == static_cast<size_t>(info->rank) &&
        std::equal(array.shape.begin(), array.shape.end(), info->shape);
    if (!npyHolds(array.dtype, info->dtype) || !sameShape)
      return error("input '" + std::string(info->name) + "' expects " +
                   formatTensorType(*info) + ", but " + *paths[i] + " holds " +
                   formatTensorType(array.dtype, array.shape));
  }
  return 0;
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
/// before any time is spent running.
int prepareOutputDir(const std::string &dir) {
  std::string message;
  if (!makeDirectories(dir, message)) {
    // makeDirectories names the component that failed; the user named dir.
    size_t reason = message.rfind(": ");
    return error(
        "cannot create output directory '" + dir + "': " +
        (reason == std::string::npos ? message : message.substr(reason + 2)));
  }
  std::string probe = joinPath(dir, ".loomrun-probe-XXXXXX");
  int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0)
    return error("cannot write to output directory '" + dir +
                 "': " + errnoMessage(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return 0;
}

struct PendingFile {
  std::string tempPath;
  std::string finalPath;
};

void removeTemporaries(const std::vector<PendingFile> &files, size_t from) {
  for (size_t i = from; i < files.size(); ++i)
    ::unlink(files[i].tempPath.c_str());
}

/// Writes every output to a temporary file in `dir`, syncs them, then
/// renames them all into place.
int writeOutputs(const loom_program *program, const std::string &dir,
                 const std::vector<std::string> &fileNames,
                 const std::vector<AlignedBuffer> &outputs) {
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
      return error("cannot write '" + file.finalPath +
                   "': " + errnoMessage(err));
    }
    files.push_back(file);
    std::string message;
    bool ok = true;
    if (::fchmod(fd, 0666 & ~mask) != 0) {
      message = "cannot write '" + file.finalPath + "': " + errnoMessage(errno);
      ok = false;
    }
    ok = ok &&
         writeNpy(fd, file.finalPath, info->dtype, info->shape,
                  static_cast<size_t>(info->rank), outputs[i].data(), message);
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
      return error(message);
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (::rename(files[i].tempPath.c_str(), files[i].finalPath.c_str()) != 0) {
      int err = errno;
      removeTemporaries(files, i);
      return error("cannot move the new '" + files[i].finalPath +
                   "' into place: " + errnoMessage(err) +
                   (i ? " (" + std::to_string(i) +
                            " earlier outputs were already replaced)"
                      : ""));
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
                formatTensorType(*loom_program_output(program, i)).c_str(),
                files[i].finalPath.c_str());
  return 0;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
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

  char message[4096];
  unsigned flags = options.info ? LOOM_LOAD_MANIFEST_ONLY : 0;
  loom_program *program = loom_program_load_with_flags(
      options.artifact.c_str(), flags, message, sizeof(message));
  if (!program)
    return error(message);
  struct ProgramCloser {
    loom_program *program;
    ~ProgramCloser() { loom_program_free(program); }
  } closer{program};

  if (options.info) {
    printInfo(program);
    return 0;
  }

  std::vector<NpyArray> inputArrays;
  if (int result = bindInputs(program, options, inputArrays))
    return result;
  if (options.threads > 0)
    loom_set_num_threads(options.threads);
  if (int result = prepareOutputDir(options.outputDir))
    return result;
  std::vector<std::string> fileNames = outputFileNames(program);
  for (const std::string &fileName : fileNames) {
    std::string path = joinPath(options.outputDir, fileName);
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return error("cannot write '" + path + "': it is a directory");
  }

  size_t numOutputs = loom_program_num_outputs(program);
  std::vector<AlignedBuffer> outputs(numOutputs);
  std::vector<void *> outputPtrs(numOutputs);
  for (size_t i = 0; i < numOutputs; ++i) {
    const loom_tensor_info *info = loom_program_output(program, i);
    if (!outputs[i].allocate(info->nbytes))
      return error("cannot allocate " + std::to_string(info->nbytes) +
                   " bytes for output '" + info->name + "'");
    outputPtrs[i] = outputs[i].data();
  }
  std::vector<const void *> inputPtrs(inputArrays.size());
  for (size_t i = 0; i < inputArrays.size(); ++i)
    inputPtrs[i] = inputArrays[i].data.data();

  auto runOnce = [&]() -> bool {
    return loom_program_run(program, inputPtrs.data(), outputPtrs.data(),
                            message, sizeof(message)) == LOOM_OK;
  };
  if (options.benchGiven) {
    for (int64_t i = 0; i < options.warmupRuns; ++i)
      if (!runOnce())
        return error(message);
    std::vector<double> times;
    times.reserve(static_cast<size_t>(options.benchRuns));
    for (int64_t i = 0; i < options.benchRuns; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!runOnce())
        return error(message);
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    double sum = 0;
    for (double t : times)
      sum += t;
    std::printf("bench: %lld runs, median %.4g ms, min %.4g ms, max %.4g ms, "
                "mean %.4g ms\n",
                static_cast<long long>(times.size()), median(times),
                *std::min_element(times.begin(), times.end()),
                *std::max_element(times.begin(), times.end()),
                sum / static_cast<double>(times.size()));
  } else if (!runOnce()) {
    return error(message);
  }

  if (int result = writeOutputs(program, options.outputDir, fileNames, outputs))
    return result;
  return std::fflush(stdout) == 0 ? 0 : error("cannot write to stdout");
}
