//===- Faults.cpp - The LOOM_TEST_FAULT hook ------------------------------===//

#include "comm/Faults.h"
#include "comm/Comm.h"
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace loom::rt;

namespace {
struct Fault {
  bool enabled = false;
  int rank = 0;
  enum Trigger { Collective, Step, Checkpoint } trigger = Collective;
  int64_t at = 0;
  enum Action { Kill, Exit, Hang, Nan } action = Kill;
};

Fault parseFault() {
  Fault fault;
  const char *text = std::getenv("LOOM_TEST_FAULT");
  if (!text || !*text)
    return fault;
  std::string spec = text;
  bool haveRank = false, haveTrigger = false, haveAction = false;
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
    }
    start = end + 1;
  }
  // nan only at a step; a checkpoint only kills.
  bool consistent =
      triggers == 1 &&
      (fault.trigger == Fault::Step) == (fault.action == Fault::Nan) &&
      (fault.trigger != Fault::Checkpoint || fault.action == Fault::Kill);
  fault.enabled = haveRank && haveTrigger && haveAction && consistent;
  if (!fault.enabled)
    std::fprintf(stderr,
                 "loom: warning: ignoring LOOM_TEST_FAULT='%s' (expected "
                 "rank=R,collective=K,action=kill|exit|hang, "
                 "rank=R,step=S,action=nan or rank=R,ckpt=K,action=kill)\n",
                 text);
  return fault;
}

const Fault &theFault() {
  static const Fault fault = parseFault();
  return fault;
}

} // namespace

void loom::rt::injectCollectiveFault(int64_t call, int rank) {
  const Fault &fault = theFault();
  if (!fault.enabled || fault.trigger != Fault::Collective ||
      fault.rank != rank || fault.at != call)
    return;
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

bool loom::rt::faultNanAtStep(int rank, int64_t step) {
  const Fault &fault = theFault();
  return fault.enabled && fault.trigger == Fault::Step && fault.rank == rank &&
         fault.at == step;
}

bool loom::rt::faultKillInCheckpoint(int rank, int64_t checkpoint) {
  const Fault &fault = theFault();
  return fault.enabled && fault.trigger == Fault::Checkpoint &&
         fault.rank == rank && fault.at == checkpoint;
}
