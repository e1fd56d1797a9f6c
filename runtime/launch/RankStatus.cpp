//===- RankStatus.cpp - What the ranks of a launched job reported ---------===//
//
// Each rank writes rank<R>.started when it starts and rank<R>.json when it
// ends (Launch.h). A rank that started but wrote no status died (SIGKILL or
// a crash); the failures named first are those that died or reported an
// error, not those the teardown then terminated.
//
//===----------------------------------------------------------------------===//

#include "launch/RankStatus.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::launch;

namespace {
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
  if (!readFileToString(base + ".json", 1 << 20, text, message))
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
} // namespace

std::vector<RankReport> launch::readRankReports(const std::string &dir,
                                                int64_t ranks) {
  std::vector<RankReport> reports;
  for (int64_t r = 0; r < ranks; ++r)
    reports.push_back(readRankReport(dir, r));
  return reports;
}

void launch::waitForRanks(const std::string &dir, int64_t ranks,
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

std::string launch::signalName(int signal) {
  static const struct {
    int number;
    const char *name;
  } names[] = {{SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
               {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
               {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
               {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
               {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
               {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"}};
  for (const auto &entry : names)
    if (entry.number == signal)
      return entry.name;
  return "signal " + std::to_string(signal);
}

Failure launch::describeFailure(const std::vector<RankReport> &reports,
                                int mpirunStatus) {
  Failure failure;
  int64_t ranks = static_cast<int64_t>(reports.size());
  bool anyStarted = false, anyOrderly = false, allTimeouts = true;
  std::vector<bool> loud, died;
  for (const RankReport &report : reports) {
    anyStarted = anyStarted || report.started || report.present;
    anyOrderly = anyOrderly || (report.status == "error" && report.orderly);
    died.push_back(!report.present && report.started);
    bool failed = report.status == "error" && !report.orderly;
    loud.push_back(died.back() || failed);
    if (loud.back() &&
        report.message.find("did not complete within") == std::string::npos)
      allTimeouts = false;
  }
  bool anyLoud = std::find(loud.begin(), loud.end(), true) != loud.end();
  if (!anyStarted) {
    failure.lines.push_back("mpirun exited with code " +
                            std::to_string(mpirunStatus) +
                            " before any rank started");
    failure.summary = failure.lines.back();
    failure.transient = false;
    return failure;
  }
  if (!anyLoud && anyOrderly) {
    failure.summary =
        "the ranks agreed to fail (a restart would fail the same way)";
    failure.transient = false;
    return failure; // the ranks agreed to fail and one printed why
  }
  // mpirun exits with 128 + N when a process died of signal N: that is the
  // one rank that died without a status, if only one did.
  int signal = 0;
  if (mpirunStatus > 128 && mpirunStatus < 128 + 65 &&
      std::count(died.begin(), died.end(), true) == 1)
    signal = mpirunStatus - 128;

  // "3", or "3 (pipeline stage 1)".
  auto label = [&](int64_t r) {
    std::string text = std::to_string(r);
    if (reports[r].stage >= 0)
      text += " (pipeline stage " + std::to_string(reports[r].stage) + ")";
    return text;
  };
  std::string firstDeath, firstSuspect;
  // Ranks that failed alike share a line ("ranks 0, 1 failed ...").
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
    std::string line;
    if (report.present)
      line = std::string(noun) + " " + who + " failed with exit code " +
             std::to_string(report.code) + ": " + report.message;
    else if (signal)
      line = std::string(noun) + " " + who + " was killed by " +
             signalName(signal) + " (signal " + std::to_string(signal) + ")";
    else
      line = std::string(noun) + " " + who + " " + (several ? "were" : "was") +
             " killed (no exit status: SIGKILL or crash)";
    if (!report.present && firstDeath.empty())
      firstDeath = line;
    failure.lines.push_back(line);
  }
  // A rank the others timed out waiting for is a suspect; with no failure
  // at all, whatever stopped the ranks is all there is to say.
  for (int64_t r = 0; r < ranks; ++r) {
    const RankReport &report = reports[r];
    if (report.status == "terminated" && !anyLoud) {
      failure.lines.push_back("rank " + label(r) + " was terminated");
    } else if (report.status == "terminated" && allTimeouts) {
      failure.lines.push_back("rank " + label(r) +
                              " was terminated while the others waited for "
                              "it (it may have hung)");
      if (firstSuspect.empty())
        firstSuspect = failure.lines.back();
    } else if (!report.started && !report.present && !anyLoud) {
      failure.lines.push_back("rank " + label(r) + " did not start");
    }
  }
  if (failure.lines.empty())
    failure.lines.push_back("mpirun exited with code " +
                            std::to_string(mpirunStatus));
  failure.summary = !firstDeath.empty()     ? firstDeath
                    : !firstSuspect.empty() ? firstSuspect
                                            : failure.lines.front();
  return failure;
}
