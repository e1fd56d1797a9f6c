//===- Launcher.cpp - Starting the ranks of a job through mpirun ----------===//
//
// The launcher runs the ranks under mpirun with a status directory
// (LOOM_STATUS_DIR) that each rank fills (Launch.h); when mpirun returns it
// waits briefly for ranks still dying, then names those that failed first,
// not those the teardown stopped. SIGINT and SIGTERM go on to mpirun, which
// ends the ranks gently.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Launcher.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace loom::rt;

namespace {

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
  /// The pipeline stage the rank runs (rank<R>.stage), or -1.
  int64_t stage = -1;
};

RankReport readRankReport(const std::string &dir, int64_t rank) {
  RankReport report;
  std::string base = joinPath(dir, "rank" + std::to_string(rank));
  std::string text, message;
  if (readFileToString(base + ".started", 64, text, message)) {
    report.started = true;
    report.pid = static_cast<pid_t>(std::atol(text.c_str()));
  }
  if (readFileToString(base + ".stage", 64, text, message) && !text.empty())
    report.stage = std::atoll(text.c_str());
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

/// Whether `pid` is a live process running the rank executable `self` (not
/// a zombie, not a recycled pid).
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
/// is gone, so that the report is complete and no rank outlives the
/// launcher.
void waitForRanks(const std::string &dir, int64_t ranks,
                  const std::string &exe) {
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
void reportFailedRanks(const std::string &dir, int64_t ranks, int exitCode,
                       const char *name) {
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
                 "%s: error: mpirun exited with code %d before any rank "
                 "started\n",
                 name, exitCode);
    return;
  }
  if (!anyLoud && anyOrderly)
    return; // the ranks agreed to fail and one printed why

  // "3", or "3 (pipeline stage 1)".
  auto label = [&](int64_t r) {
    std::string text = std::to_string(r);
    if (reports[r].stage >= 0)
      text += " (pipeline stage " + std::to_string(reports[r].stage) + ")";
    return text;
  };
  // Ranks that failed alike share a line ("ranks 0, 1 failed ...").
  bool printed = false;
  std::vector<bool> done(reports.size(), false);
  for (int64_t r = 0; r < ranks; ++r) {
    if (!loud[r] || done[r])
      continue;
    const RankReport &report = reports[r];
    std::string who = label(r);
    bool several = false;
    for (int64_t other = r + 1; other < ranks; ++other) {
      const RankReport &next = reports[other];
      if (loud[other] && next.present == report.present &&
          next.code == report.code && next.message == report.message) {
        who += ", " + label(other);
        done[other] = true;
        several = true;
      }
    }
    const char *noun = several ? "ranks" : "rank";
    if (!report.present)
      std::fprintf(stderr,
                   "%s: error: %s %s %s killed (no exit status: "
                   "SIGKILL or crash)\n",
                   name, noun, who.c_str(), several ? "were" : "was");
    else
      std::fprintf(stderr, "%s: error: %s %s failed with exit code %lld: %s\n",
                   name, noun, who.c_str(), static_cast<long long>(report.code),
                   report.message.c_str());
    printed = true;
  }
  // A rank the others timed out waiting for is a suspect; with no failure
  // at all, whatever stopped the ranks is all there is to say.
  for (int64_t r = 0; r < ranks; ++r) {
    const RankReport &report = reports[r];
    if (report.status == "terminated" && !anyLoud)
      std::fprintf(stderr, "%s: error: rank %s was terminated\n", name,
                   label(r).c_str());
    else if (report.status == "terminated" && allTimeouts)
      std::fprintf(stderr,
                   "%s: error: rank %s was terminated while the others "
                   "waited for it (it may have hung)\n",
                   name, label(r).c_str());
    else if (!report.started && !report.present && !anyLoud)
      std::fprintf(stderr, "%s: error: rank %s did not start\n", name,
                   label(r).c_str());
    else
      continue;
    printed = true;
  }
  if (!printed)
    std::fprintf(stderr, "%s: error: mpirun exited with code %d\n", name,
                 exitCode);
}

} // namespace

std::vector<std::string> loom::rt::launch::withoutRankCount(int argc,
                                                            char **argv) {
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

int loom::rt::launch::run(const launch::Options &options) {
  const char *name = options.name.c_str();
  auto error = [&](const std::string &message) {
    std::fprintf(stderr, "%s: error: %s\n", name, message.c_str());
    return 1;
  };
  const char *override = std::getenv("LOOM_MPIRUN");
  std::string mpirun =
      override && *override ? std::string(override) : findOnPath("mpirun");
  if (mpirun.empty())
    return error("-np " + std::to_string(options.ranks) +
                 " starts the ranks with mpirun, which is not on PATH: "
                 "install Open MPI, set LOOM_MPIRUN, or start " +
                 options.name + " with mpirun or srun yourself");
  // /proc/<pid>/exe of a rank names the resolved file.
  std::string self;
  char resolved[PATH_MAX];
  if (options.executable.empty()) {
    ssize_t length =
        ::readlink("/proc/self/exe", resolved, sizeof(resolved) - 1);
    if (length <= 0)
      return error("cannot find the " + options.name +
                   " executable: " + errnoMessage(errno));
    self.assign(resolved, static_cast<size_t>(length));
  } else if (::realpath(options.executable.c_str(), resolved)) {
    self = resolved;
  } else {
    return error("cannot find the rank program '" + options.executable +
                 "': " + errnoMessage(errno));
  }

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
  // -q: the launcher names the failed ranks itself; --bind-to none: each rank
  // runs a thread pool of its own.
  for (const char *arg : {"-q", "--bind-to", "none", "-x", "LOOM_STATUS_DIR",
                          "-x", "LOOM_PROGRESS_TTY"})
    args.push_back(arg);
  args.push_back("-np");
  args.push_back(std::to_string(options.ranks));
  args.push_back(self);
  for (const std::string &arg : options.arguments)
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
    std::fprintf(stderr, "%s: error: cannot run '%s': %s\n", name, argvOut[0],
                 std::strerror(errno));
    ::_exit(127);
  }
  launcherChild = child;
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  launcherChild = 0;
  waitForRanks(statusDir, options.ranks, self);
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
                 "%s: error: interrupted (%s); the ranks were "
                 "stopped\n",
                 name, launcherSignal == SIGINT ? "SIGINT" : "SIGTERM");
    code = 128 + launcherSignal;
  } else if (code != 0 || !allOk) {
    reportFailedRanks(statusDir, options.ranks, code, name);
    if (code == 0)
      code = 1;
  }
  removeStatusDir(statusDir);
  return code;
}
