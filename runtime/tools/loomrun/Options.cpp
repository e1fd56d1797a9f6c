//===- Options.cpp - loomrun's command line -------------------------------===//

#include "Loomrun.h"
#include <climits>
#include <cstdio>
#include <cstdlib>

namespace loomrun {

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
    "  --keep-last K          keep only the K newest checkpoints in DIR\n"
    "  --sync-ckpt            write checkpoints while training waits\n"
    "                         (default: in the background, from a copy)\n"
    "  --resume               continue from the latest checkpoint in DIR\n"
    "  --on-nan=skip|halt     a non-finite loss or gradient norm skips the "
    "update\n"
    "                         (default) or stops the run\n"
    "  --log-every K          print progress every K steps (default: 10) when "
    "not\n"
    "                         on a terminal\n"
    "  --max-restarts N       when a rank dies, fails or hangs, stop the job "
    "and start\n"
    "                         it again from the last checkpoint, up to N times "
    "(needs\n"
    "                         --ckpt DIR; default: 0)\n"
    "  --restart-delay S      wait S seconds before each restart (default: 1)\n"
    "\n"
    "exit status: 0 success, 1 error (also a rank that failed, was killed or "
    "hung),\n"
    "2 bad command line, 128+N interrupted by signal N (130 SIGINT, 143 "
    "SIGTERM)\n";

int error(const std::string &message) {
  std::fprintf(stderr, "loomrun: error: %s\n", message.c_str());
  return 1;
}

int usageError(const std::string &message) {
  std::fprintf(stderr, "loomrun: error: %s\n\n%s", message.c_str(), usageText);
  return 2;
}

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
        name == "--resume" || name == "--sync-ckpt") {
      if (hasValue)
        return usageError("option '" + name + "' takes no value");
      if (name == "--train")
        options.train = true;
      else if (name == "--resume") {
        options.training.resume = true;
        options.trainingOption = name;
      } else if (name == "--sync-ckpt") {
        options.training.asyncCkpt = false;
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
        name != "--log-every" && name != "--keep-last" &&
        name != "--max-restarts" && name != "--restart-delay")
      return usageError("unknown option '" + name + "'");
    if (!hasValue) {
      if (i + 1 >= argc)
        return usageError("option '" + name + "' needs a value");
      value = argv[++i];
    }
    loom::rt::train::Options &training = options.training;
    if (name == "--data" || name == "--steps" || name == "--batch" ||
        name == "--seed" || name == "--metrics" || name == "--ckpt" ||
        name == "--ckpt-every" || name == "--on-nan" || name == "--log-every" ||
        name == "--keep-last")
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
    } else if (name == "--keep-last") {
      if (!parseCount(value, 1, INT64_MAX / 4, training.keepLast))
        return usageError("--keep-last expects a number of checkpoints of at "
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
    } else if (name == "--max-restarts") {
      if (!parseCount(value, 0, 1000000, options.maxRestarts))
        return usageError("--max-restarts expects a number of restarts, got '" +
                          value + "'");
    } else if (name == "--restart-delay") {
      char *end = nullptr;
      options.restartDelay = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(options.restartDelay >= 0) ||
          options.restartDelay > 86400)
        return usageError("--restart-delay expects a number of seconds, got '" +
                          value + "'");
      options.restartDelayGiven = true;
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
    if (training.keepLast && training.ckptDir.empty())
      return usageError("--keep-last needs --ckpt DIR");
    if (!training.asyncCkpt && training.ckptDir.empty())
      return usageError("--sync-ckpt needs --ckpt DIR");
  }
  // A restart resumes from the checkpoints of the run it restarts.
  if (options.maxRestarts > 0 &&
      (!options.train || options.training.ckptDir.empty()))
    return usageError("--max-restarts needs --train and --ckpt DIR (a restart "
                      "resumes from the last checkpoint)");
  if (options.restartDelayGiven && options.maxRestarts == 0)
    return usageError("--restart-delay only applies with --max-restarts");
  return -1;
}

} // namespace loomrun
