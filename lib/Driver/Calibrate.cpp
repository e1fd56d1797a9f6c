//===- Calibrate.cpp - loomc calibrate: measure this machine --------------===//
//
// `loomc calibrate [-o FILE] [--np N] [--threads T] [--quick]` runs the
// runtime's loom-calibrate on N ranks through mpirun, checks what it wrote
// with the same parser as `--cluster`, and writes that description whole or
// not at all.
//
//===----------------------------------------------------------------------===//

#include "loom/CostModel/Cluster.h"
#include "loom/Driver/Driver.h"
#include "loom/Support/Files.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <thread>
#include <unistd.h>

using namespace loom;
using namespace loom::driver;
using llvm::StringRef;

namespace {
constexpr const char *kUsage =
    "USAGE: loomc calibrate [-o FILE] [--np N] [--threads T] [--quick]\n"
    "\n"
    "Measures this machine (float32 GEMM rates by size, float64 GEMM rate,\n"
    "memory bandwidth, the MPI link between ranks) with N ranks running at\n"
    "the same time, one device each, and writes a cluster description for\n"
    "`loomc --cluster FILE` (see docs/Cluster.md).\n"
    "\n"
    "OPTIONS:\n"
    "  -o FILE        where to write it (default: standard output); written\n"
    "                 whole or not at all\n"
    "  --np N         ranks, i.e. devices of the node (default 2); with 1 the\n"
    "                 link is not measured and keeps shared-memory defaults\n"
    "  --threads T    threads per rank (default 1)\n"
    "  --quick        short measurements (a few seconds; noisier figures)\n"
    "\n"
    "mpirun (or $LOOM_MPIRUN) starts loom-calibrate, found next to loomc or\n"
    "on PATH.\n";

int error(const llvm::Twine &message) {
  llvm::errs() << "loomc calibrate: error: " << message << "\n";
  return ExitCode::Failure;
}

struct CalibrateOptions {
  std::string output = "-";
  int64_t ranks = 2;
  int64_t threads = 1;
  bool quick = false;
};

/// Parses the arguments after `calibrate`; returns an exit code when done
/// (help, or an error already printed).
std::optional<int> parseArguments(int argc, char **argv,
                                  CalibrateOptions &options) {
  for (int i = 2; i < argc; ++i) {
    StringRef arg = argv[i];
    auto [flag, inlineValue] = arg.split('=');
    bool hasInline = arg.contains('=');
    auto value = [&](StringRef &out) -> bool {
      if (hasInline) {
        out = inlineValue;
        return true;
      }
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    auto positive = [&](StringRef name, int64_t &out) -> std::optional<int> {
      StringRef text;
      if (!value(text) || text.getAsInteger(10, out) || out < 1 || out > 4096)
        return error(name + " takes a positive integer (got '" + text + "')");
      return std::nullopt;
    };
    if (arg == "-h" || arg == "-help" || arg == "--help") {
      llvm::outs() << kUsage;
      return ExitCode::Success;
    }
    if (arg == "--quick") {
      options.quick = true;
    } else if (flag == "-o" || flag == "--o") {
      StringRef text;
      if (!value(text) || text.empty())
        return error("-o takes a file name");
      options.output = text.str();
    } else if (flag == "--np" || flag == "-np") {
      if (auto code = positive("--np", options.ranks))
        return code;
    } else if (flag == "--threads") {
      if (auto code = positive("--threads", options.threads))
        return code;
    } else {
      llvm::errs() << kUsage;
      return error("unknown argument '" + arg + "'");
    }
  }
  return std::nullopt;
}

/// The directory `output` goes to must take a new file: checked before the
/// measurements, by creating (and removing) one there.
std::optional<int> checkWritable(StringRef output) {
  if (output == "-")
    return std::nullopt;
  if (llvm::sys::fs::is_directory(output))
    return error("cannot write '" + output + "': it is a directory");
  // A device or FIFO is written in place, not beside.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(output, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return std::nullopt;
  llvm::SmallString<256> dir(output);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  llvm::SmallString<256> probe(dir);
  llvm::sys::path::append(probe, ".loomc-calibrate-%%%%%%.tmp");
  int fd = -1;
  llvm::SmallString<256> created;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(probe, fd, created))
    return error("cannot write '" + output + "': " + ec.message());
  ::close(fd);
  llvm::sys::fs::remove(created);
  return std::nullopt;
}

/// loom-calibrate beside this executable (build/bin), else on PATH.
std::string findCalibrateTool(const char *argv0) {
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(argv0, &anchor);
  if (!self.empty()) {
    llvm::SmallString<256> candidate(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(candidate, "loom-calibrate");
    if (llvm::sys::fs::can_execute(candidate))
      return candidate.str().str();
  }
  llvm::ErrorOr<std::string> onPath =
      llvm::sys::findProgramByName("loom-calibrate");
  return onPath ? *onPath : std::string();
}

std::string gflops(double tflops) {
  return llvm::formatv("{0:F1}", tflops * 1e3).str();
}

/// A figure as the description writes it (4 significant digits at most).
std::string num(double value) {
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

void printSummary(llvm::raw_ostream &os, const Cluster &c,
                  const CalibrateOptions &options) {
  const DeviceSpec &d = c.device;
  os << "Calibrated this machine as 1 node of " << c.devicesPerNode
     << " CPU device(s) (" << d.name << ", " << options.threads
     << " thread(s) per rank): float32 GEMM peaks at "
     << gflops(d.peakTFLOPs.lookup("float32")) << " GFLOP/s per rank";
  if (!d.matmulTFLOPsBySize.empty()) {
    os << " (";
    llvm::interleaveComma(d.matmulTFLOPsBySize, os, [&](const auto &point) {
      os << num(point.first) << ": " << gflops(point.second);
    });
    os << " by size)";
  }
  os << ", float64 " << gflops(d.peakTFLOPs.lookup("float64"))
     << " GFLOP/s; memory bandwidth " << num(d.memoryBandwidthGBps)
     << " GB/s per rank; ";
  if (options.ranks > 1)
    os << "link latency " << num(c.intraNode.latencyUs) << " us and bandwidth "
       << num(c.intraNode.bandwidthGBps) << " GB/s (MPI ping-pong).";
  else
    os << "link not measured with one rank: shared-memory defaults ("
       << num(c.intraNode.bandwidthGBps) << " GB/s, "
       << num(c.intraNode.latencyUs) << " us) kept.";
  if (options.output != "-")
    os << " Wrote " << options.output << "; use it with `loomc --cluster "
       << options.output << " --mesh dp=" << c.devicesPerNode << " ...`.";
  os << "\n";
}
} // namespace

int loom::driver::calibrateMain(int argc, char **argv) {
  CalibrateOptions options;
  if (std::optional<int> done = parseArguments(argc, argv, options))
    return *done;
  if (std::optional<int> bad = checkWritable(options.output))
    return *bad;

  std::string mpirun;
  if (std::optional<std::string> override =
          llvm::sys::Process::GetEnv("LOOM_MPIRUN");
      override && !override->empty()) {
    mpirun = *override;
    // A bare name is looked up on PATH, as a shell would.
    if (!StringRef(mpirun).contains('/'))
      if (llvm::ErrorOr<std::string> found =
              llvm::sys::findProgramByName(mpirun))
        mpirun = *found;
    if (!llvm::sys::fs::can_execute(mpirun))
      return error("LOOM_MPIRUN names '" + mpirun +
                   "', which is not an executable");
  } else {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("mpirun");
    if (!found)
      return error("calibration starts its ranks with mpirun, which is not "
                   "on PATH: install Open MPI or set LOOM_MPIRUN");
    mpirun = *found;
  }
  std::string tool = findCalibrateTool(argv[0]);
  if (tool.empty())
    return error("cannot find loom-calibrate next to loomc or on PATH: "
                 "build it (ninja loom-calibrate) or add it to PATH");

  // The tool writes to a temporary of ours; loomc checks it, then writes
  // the output whole.
  llvm::SmallString<128> measured;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("loom-calibrate",
                                                              "json", measured))
    return error("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeMeasured(measured);

  std::vector<std::string> args = {mpirun};
  // As loomrun -np: root needs its consent, and ranks may outnumber cores.
  if (::geteuid() == 0)
    args.push_back("--allow-run-as-root");
  if (options.ranks > std::max(1u, std::thread::hardware_concurrency()))
    args.push_back("--oversubscribe");
  for (const char *arg : {"--bind-to", "none", "-np"})
    args.push_back(arg);
  args.push_back(std::to_string(options.ranks));
  args.push_back(tool);
  args.push_back("--threads");
  args.push_back(std::to_string(options.threads));
  if (options.quick)
    args.push_back("--quick");
  args.push_back("-o");
  args.push_back(measured.str().str());
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string command = llvm::join(argRefs, " ");

  llvm::errs() << "loomc calibrate: measuring on " << options.ranks
               << " rank(s) ("
               << (options.quick ? "a few seconds" : "about half a minute")
               << "): " << command << "\n";
  // What mpirun prints on standard output goes to standard error, after it:
  // standard output is for the description or the summary.
  llvm::SmallString<128> launcherOutput;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "loom-calibrate", "log", launcherOutput))
    return error("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeLauncherOutput(launcherOutput);
  std::optional<StringRef> redirects[] = {
      std::nullopt, StringRef(launcherOutput), std::nullopt};
  std::string message;
  bool failedToRun = false;
  int code = llvm::sys::ExecuteAndWait(mpirun, argRefs, std::nullopt, redirects,
                                       0, 0, &message, &failedToRun);
  if (auto printed = llvm::MemoryBuffer::getFile(launcherOutput))
    llvm::errs() << (*printed)->getBuffer();
  if (failedToRun)
    return error("cannot run '" + mpirun + "': " + message);
  if (code != 0)
    return error("the measurement failed (" +
                 (code < 0
                      ? message
                      : "mpirun exited with code " + std::to_string(code)) +
                 "): " + command);

  auto buffer = llvm::MemoryBuffer::getFile(measured);
  if (!buffer || (*buffer)->getBuffer().empty())
    return error("loom-calibrate exited without writing its result ('" + tool +
                 "')");
  StringRef text = (*buffer)->getBuffer();
  llvm::Expected<Cluster> cluster = parseCluster(text, "loom-calibrate output");
  if (!cluster)
    return error(llvm::toString(cluster.takeError()));
  if (cluster->devicesPerNode != options.ranks)
    return error("loom-calibrate described " +
                 llvm::Twine(cluster->devicesPerNode) + " device(s) for " +
                 llvm::Twine(options.ranks) + " rank(s)");

  // A regular file through a temporary beside it, renamed over it; a
  // device or FIFO in place; a failed write is an error.
  if (llvm::Error e = writeOutputFile(
          options.output, [&](llvm::raw_ostream &os) -> llvm::Error {
            os << text;
            return llvm::Error::success();
          }))
    return error(llvm::toString(std::move(e)));
  printSummary(options.output == "-" ? llvm::errs() : llvm::outs(), *cluster,
               options);
  return ExitCode::Success;
}
