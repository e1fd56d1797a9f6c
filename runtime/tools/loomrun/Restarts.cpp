//===- Restarts.cpp - Launching a job that restarts itself ----------------===//
//
// `loomrun -np N ... --train --ckpt DIR --max-restarts R` runs the ranks
// through the launcher (Launcher.h), which starts the job again when a rank
// dies, fails or hangs. Every restart resumes from the last complete
// checkpoint in DIR (--resume), and the metrics continue in the same file;
// the launcher names, per restart, the step the job had reached (the last
// line of the metrics) and the checkpoint it resumes from.
//
//===----------------------------------------------------------------------===//

#include "Loomrun.h"
#include "loom/runtime/Checkpoint.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Launcher.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace loom::rt;
using namespace loomrun;

namespace {
/// The step of the last complete line of the metrics file, or -1.
int64_t lastMetricsStep(const std::string &path) {
  FILE *file = std::fopen(path.c_str(), "rbe");
  if (!file)
    return -1;
  // One line is far shorter than this.
  constexpr long tail = 1 << 16;
  std::string text(tail, '\0');
  if (std::fseek(file, -tail, SEEK_END) != 0)
    std::rewind(file);
  text.resize(std::fread(text.data(), 1, text.size(), file));
  std::fclose(file);
  size_t end = text.rfind('\n');
  while (end != std::string::npos && end > 0) {
    size_t start = text.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    json::Value line;
    json::ParseError parseError;
    if (json::parse(text.substr(start, end - start), line, parseError) &&
        line.isObject())
      if (const json::Value *step = line.find("step");
          step && step->isInteger())
        return step->getInteger();
    if (start == 0)
      break;
    end = start - 1;
  }
  return -1;
}

/// The step of `checkpointDir` (DIR/step-<S>), from its name.
int64_t checkpointStep(const std::string &checkpointDir) {
  size_t name = checkpointDir.rfind("step-");
  return name == std::string::npos
             ? 0
             : std::atoll(checkpointDir.c_str() + name + 5);
}

/// argv without the options only the launcher reads.
std::vector<std::string> withoutRestartOptions(std::vector<std::string> args) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--") {
      kept.insert(kept.end(), args.begin() + i, args.end());
      break;
    }
    if (arg == "--max-restarts" || arg == "--restart-delay") {
      ++i;
      continue;
    }
    if (arg.rfind("--max-restarts=", 0) == 0 ||
        arg.rfind("--restart-delay=", 0) == 0)
      continue;
    kept.push_back(arg);
  }
  return kept;
}
} // namespace

int loomrun::launchJob(int argc, char **argv, const Options &options) {
  launch::Options job;
  job.ranks = std::max<int64_t>(options.ranks, 1);
  job.arguments = withoutRestartOptions(launch::withoutRankCount(argc, argv));
  job.maxRestarts = options.maxRestarts;
  job.restartDelay = options.restartDelay;
  if (options.maxRestarts == 0)
    return launch::run(job);
  // Options go before a "--" that may end them.
  job.restartArguments = job.arguments;
  if (!options.training.resume)
    job.restartArguments.insert(job.restartArguments.begin(), "--resume");
  std::string metrics = options.training.metrics;
  std::string root = options.training.ckptDir;
  job.progress = [metrics]() -> std::string {
    int64_t step = metrics.empty() ? -1 : lastMetricsStep(metrics);
    return step < 0 ? "" : "after step " + std::to_string(step);
  };
  job.resumePoint = [root]() -> std::string {
    std::string latest = checkpoint::findLatest(root);
    return latest.empty()
               ? "step 0 (no checkpoint yet)"
               : "checkpoint step " + std::to_string(checkpointStep(latest));
  };
  return launch::run(job);
}
