//===- Faults.cpp - The LOOM_TEST_FAULT hook ------------------------------===//
//
// Faults are parsed once per process. A fault belongs to one attempt of a
// job that loomrun --max-restarts relaunches ($LOOM_RESTART_COUNT), so that
// a test can kill a rank at a different step of every attempt.
//
//===----------------------------------------------------------------------===//

#include "comm/Faults.h"
#include "comm/Comm.h"
#include "loom/runtime/Launch.h"
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

using namespace loom::rt;

namespace {
struct Fault {
  int rank = 0;
  enum Trigger { Collective, Step, Checkpoint } trigger = Collective;
  int64_t at = 0;
  enum Action { Kill, Exit, Hang, Nan } action = Kill;
  /// The attempt it applies to; -1 for every attempt.
  int64_t attempt = 0;
};

/// One fault ("rank=R,step=S,action=kill[,attempt=A]"); false if malformed.
bool parseOne(const std::string &spec, Fault &fault) {
  bool haveRank = false, haveTrigger = false, haveAction = false;
  bool attemptOk = true;
  int triggers = 0;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos)
      end = spec.size();
    std::string item = spec.substr(start, end - start);
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    char *stop = nullptr;
    if (key == "rank") {
      fault.rank = static_cast<int>(std::strtol(value.c_str(), &stop, 10));
      haveRank = !value.empty() && *stop == '\0';
    } else if (key == "collective" || key == "step" || key == "ckpt") {
      fault.trigger = key == "collective" ? Fault::Collective
                      : key == "step"     ? Fault::Step
                                          : Fault::Checkpoint;
      fault.at = std::strtoll(value.c_str(), &stop, 10);
      haveTrigger = !value.empty() && *stop == '\0';
      ++triggers;
    } else if (key == "action") {
      haveAction = value == "kill" || value == "exit" || value == "hang" ||
                   value == "nan";
      fault.action = value == "exit"   ? Fault::Exit
                     : value == "hang" ? Fault::Hang
                     : value == "nan"  ? Fault::Nan
                                       : Fault::Kill;
    } else if (key == "attempt") {
      fault.attempt =
          value == "any" ? -1 : std::strtoll(value.c_str(), &stop, 10);
      attemptOk = value == "any" ||
                  (!value.empty() && *stop == '\0' && fault.attempt >= 0);
    } else {
      return false;
    }
    start = end + 1;
  }
  // nan only at a step; a checkpoint only kills.
  bool consistent =
      triggers == 1 &&
      (fault.action != Fault::Nan || fault.trigger == Fault::Step) &&
      (fault.trigger != Fault::Checkpoint || fault.action == Fault::Kill);
  return haveRank && haveTrigger && haveAction && attemptOk && consistent;
}

/// The faults of this attempt.
std::vector<Fault> parseFaults() {
  std::vector<Fault> faults;
  const char *text = std::getenv("LOOM_TEST_FAULT");
  if (!text || !*text)
    return faults;
  std::string specs = text;
  int attempt = launchAttempt();
  size_t start = 0;
  while (start <= specs.size()) {
    size_t end = specs.find(';', start);
    if (end == std::string::npos)
      end = specs.size();
    Fault fault;
    if (!parseOne(specs.substr(start, end - start), fault)) {
      std::fprintf(stderr,
                   "loom: warning: ignoring LOOM_TEST_FAULT='%s' (expected "
                   "rank=R,collective=K,action=kill|exit|hang, "
                   "rank=R,step=S,action=nan|kill|exit|hang or "
                   "rank=R,ckpt=K,action=kill, each with an optional "
                   "attempt=A|any, separated by ';')\n",
                   text);
      return {};
    }
    if (fault.attempt < 0 || fault.attempt == attempt)
      faults.push_back(fault);
    start = end + 1;
  }
  return faults;
}

const std::vector<Fault> &theFaults() {
  static const std::vector<Fault> faults = parseFaults();
  return faults;
}

const Fault *findFault(Fault::Trigger trigger, int rank, int64_t at) {
  for (const Fault &fault : theFaults())
    if (fault.trigger == trigger && fault.rank == rank && fault.at == at)
      return &fault;
  return nullptr;
}

void act(const Fault &fault, int rank) {
  switch (fault.action) {
  case Fault::Kill:
    ::raise(SIGKILL);
    break;
  case Fault::Exit:
    terminateJob(rank, 7,
                 "loom: rank " + std::to_string(rank) + ": injected fault");
  case Fault::Hang:
    for (;;)
      ::pause();
  case Fault::Nan:
    break;
  }
}

} // namespace

void loom::rt::injectCollectiveFault(int64_t call, int rank) {
  if (const Fault *fault = findFault(Fault::Collective, rank, call))
    act(*fault, rank);
}

void loom::rt::injectStepFault(int64_t step, int rank) {
  if (const Fault *fault = findFault(Fault::Step, rank, step))
    act(*fault, rank);
}

bool loom::rt::faultNanAtStep(int rank, int64_t step) {
  const Fault *fault = findFault(Fault::Step, rank, step);
  return fault && fault->action == Fault::Nan;
}

bool loom::rt::faultKillInCheckpoint(int rank, int64_t checkpoint) {
  return findFault(Fault::Checkpoint, rank, checkpoint) != nullptr;
}
