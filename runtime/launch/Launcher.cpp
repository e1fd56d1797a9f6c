//===- Launcher.cpp - Starting the ranks of a job through mpirun ----------===//
//
// The launcher runs the ranks under mpirun with a status directory
// (LOOM_STATUS_DIR) that each rank fills (Launch.h); when mpirun returns it
// waits briefly for ranks still dying, then names those that failed first,
// not those the teardown stopped (RankStatus.h). SIGINT, SIGTERM and SIGHUP
// go on to mpirun, which ends the ranks gently; mpirun gets SIGTERM too if
// the launcher itself is killed, so that no rank outlives it. A failed
// attempt is started again while restarts are left, each in a fresh status
// directory.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Launcher.h"
#include "launch/RankStatus.h"
#include "loom/runtime/Support.h"
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::launch;

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

/// What one attempt left: mpirun's status and every rank's report.
struct Attempt {
  int status = 0;
  std::vector<RankReport> reports;

  bool succeeded() const {
    for (const RankReport &report : reports)
      if (!report.present || report.status != "ok")
        return false;
    return status == 0;
  }
};

/// Runs mpirun once. Returns "" or the message of a failure to start it.
std::string runAttempt(const std::string &mpirun, const std::string &self,
                       const Options &options,
                       const std::vector<std::string> &arguments,
                       int64_t attempt, Attempt &result) {
  const char *tmp = std::getenv("TMPDIR");
  std::string statusDir =
      joinPath(tmp && *tmp ? tmp : "/tmp", "loomrun-status-XXXXXX");
  if (!::mkdtemp(statusDir.data()))
    return "cannot create a status directory in '" +
           std::string(tmp && *tmp ? tmp : "/tmp") +
           "': " + errnoMessage(errno);
  ::setenv("LOOM_STATUS_DIR", statusDir.c_str(), 1);
  ::setenv("LOOM_RESTART_COUNT", std::to_string(attempt).c_str(), 1);
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
  for (const char *arg :
       {"-q", "--bind-to", "none", "-x", "LOOM_STATUS_DIR", "-x",
        "LOOM_PROGRESS_TTY", "-x", "LOOM_RESTART_COUNT"})
    args.push_back(arg);
  args.push_back("-np");
  args.push_back(std::to_string(options.ranks));
  args.push_back(self);
  for (const std::string &arg : arguments)
    args.push_back(arg);
  std::vector<char *> argvOut;
  for (std::string &arg : args)
    argvOut.push_back(arg.data());
  argvOut.push_back(nullptr);

  std::fflush(stdout);
  std::fflush(stderr);
  pid_t parent = ::getpid();
  pid_t child = ::fork();
  if (child < 0) {
    int err = errno;
    removeStatusDir(statusDir);
    return "cannot start mpirun: " + errnoMessage(err);
  }
  if (child == 0) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    // A launcher killed outright (SIGKILL) must not leave the job running:
    // mpirun then ends the ranks as on SIGTERM.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent)
      ::_exit(1);
    ::execv(argvOut[0], argvOut.data());
    std::fprintf(stderr, "%s: error: cannot run '%s': %s\n",
                 options.name.c_str(), argvOut[0], std::strerror(errno));
    ::_exit(127);
  }
  launcherChild = child;
  // A signal that came before launcherChild was set was not forwarded.
  if (launcherSignal)
    ::kill(child, launcherSignal);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  launcherChild = 0;
  waitForRanks(statusDir, options.ranks, self);
  result.status = WIFEXITED(status)     ? WEXITSTATUS(status)
                  : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                        : 1;
  result.reports = readRankReports(statusDir, options.ranks);
  removeStatusDir(statusDir);
  return "";
}

/// Sleeps `seconds` unless a signal comes first.
void pause(double seconds) {
  struct timespec until;
  ::clock_gettime(CLOCK_MONOTONIC, &until);
  int64_t ns =
      static_cast<int64_t>(until.tv_nsec) + static_cast<int64_t>(seconds * 1e9);
  until.tv_sec += static_cast<time_t>(ns / 1000000000);
  until.tv_nsec = static_cast<long>(ns % 1000000000);
  while (!launcherSignal && ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
                                              &until, nullptr) == EINTR) {
  }
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

  struct sigaction action = {};
  action.sa_handler = forwardSignal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP})
    ::sigaction(signal, &action, nullptr);
  auto interrupted = [&]() {
    std::fprintf(stderr,
                 "%s: error: interrupted (%s); the ranks were stopped\n", name,
                 signalName(launcherSignal).c_str());
    return interruptedStatus(launcherSignal);
  };

  for (int64_t attempt = 0;; ++attempt) {
    const std::vector<std::string> &arguments =
        attempt > 0 && !options.restartArguments.empty()
            ? options.restartArguments
            : options.arguments;
    Attempt result;
    if (std::string problem =
            runAttempt(mpirun, self, options, arguments, attempt, result);
        !problem.empty())
      return error(problem);
    if (launcherSignal)
      return interrupted();
    if (result.succeeded())
      return 0;
    Failure failure = describeFailure(result.reports, result.status);
    if (!failure.transient || attempt >= options.maxRestarts) {
      for (const std::string &line : failure.lines)
        std::fprintf(stderr, "%s: error: %s\n", name, line.c_str());
      if (options.maxRestarts > 0 && attempt >= options.maxRestarts)
        std::fprintf(stderr,
                     "%s: error: giving up after %lld restart%s "
                     "(--max-restarts=%lld)\n",
                     name, static_cast<long long>(attempt),
                     attempt == 1 ? "" : "s",
                     static_cast<long long>(options.maxRestarts));
      else if (options.maxRestarts > 0 && failure.lines.empty())
        std::fprintf(stderr, "%s: error: not restarting: %s\n", name,
                     failure.summary.c_str());
      return 1;
    }
    std::string progress = options.progress ? options.progress() : "";
    std::string from = options.resumePoint ? options.resumePoint() : "";
    std::fprintf(stderr, "%s: %s%s; restart %lld of %lld%s\n", name,
                 failure.summary.c_str(),
                 progress.empty() ? "" : (" " + progress).c_str(),
                 static_cast<long long>(attempt + 1),
                 static_cast<long long>(options.maxRestarts),
                 from.empty() ? "" : (" from " + from).c_str());
    std::fflush(stderr);
    pause(options.restartDelay);
    if (launcherSignal)
      return interrupted();
  }
}
