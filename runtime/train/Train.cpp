//===- Train.cpp - The training loop of `loomrun --train` -----------------===//
//
// One Trainer per rank. Before the loop the ranks agree on every step that
// can fail (the artifact, the data, the checkpoint to resume, the metrics
// file); in the loop they meet in the program's collectives and in one
// all-reduce of a "finite" flag per step, so that every rank applies or
// skips the same updates. Applying an update swaps the parameter's buffer
// with its update output's: no copy, and the old buffer receives the next
// step's update. A checkpoint due after a step is started (TrainSave.cpp)
// before the step's progress line.
//
//===----------------------------------------------------------------------===//

#include "comm/Faults.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Launch.h"
#include "loom/runtime/Support.h"
#include "train/Trainer.h"
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::train;

namespace {
double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string formatFloat(const char *format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}
} // namespace

int Trainer::run() {
  if (!hooks.agree(prepare()))
    return 1;
  if (!hooks.agree(prepareCheckpoints()) || !hooks.agree(prepareSnapshot()))
    return 1;
  std::string problem;
  if (rank == 0 && !options.metrics.empty()) {
    // A resumed or restarted run continues the metrics of the run before.
    bool append = firstStep > 0 || launchAttempt() > 0;
    metrics = std::fopen(options.metrics.c_str(), append ? "ae" : "we");
    if (!metrics)
      problem = "cannot write metrics file '" + options.metrics +
                "': " + errnoMessage(errno);
  }
  if (!hooks.agree(problem))
    return 1;
  // mpirun hands ranks a pseudo-terminal whatever the user's stdout is:
  // loomrun's launcher passes on whether its own is a terminal.
  const char *hint = std::getenv("LOOM_PROGRESS_TTY");
  if (hint && *hint)
    tty = rank == 0 && hint[0] == '1';
  else
    tty = rank == 0 && launcherWorldSize() < 0 && ::isatty(STDOUT_FILENO);
  if (rank == 0 && firstStep >= options.steps)
    std::printf("nothing to do: the checkpoint is at step %lld of %lld\n",
                static_cast<long long>(firstStep),
                static_cast<long long>(options.steps));

  for (int64_t s = firstStep; s < options.steps; ++s)
    if (!step(s))
      return 1;
  // The last checkpoint is complete before the job says it is done.
  if (!finishPending(/*wait=*/true))
    return 1;
  if (rank == 0) {
    if (tty && firstStep < options.steps)
      std::printf("\n");
    std::printf("trained %lld steps (%lld skipped), %lld updates applied\n",
                static_cast<long long>(options.steps - firstStep),
                static_cast<long long>(skipped),
                static_cast<long long>(updatesApplied));
    if (metrics && std::fflush(metrics) != 0)
      return hooks.failHere("cannot write metrics file '" + options.metrics +
                            "'");
    std::fflush(stdout);
  }
  return hooks.agree("") ? 0 : 1;
}

std::string Trainer::prepare() {
  const std::string &dir = program->artifactDir;
  if (!manifest.hasTraining)
    return "artifact '" + dir +
           "' is not a training artifact (its manifest has no 'training' "
           "object): compile it with loomc --train";
  if (options.batch && options.batch != spec.batch)
    return "--batch " + std::to_string(options.batch) +
           " does not match the global batch the artifact was compiled for (" +
           std::to_string(spec.batch) + "): recompile it with that batch";
  seed = options.seed;
  std::string error;
  if (!loader.open(manifest, options.data, error))
    return error;

  size_t numInputs = manifest.inputs.size();
  batches.resize(spec.dataInputs.size());
  inputBlocks.resize(numInputs);
  inputs.assign(numInputs, nullptr);
  for (size_t k = 0; k < spec.dataInputs.size(); ++k) {
    const TensorSpec &input = manifest.inputs[spec.dataInputs[k]];
    if (!batches[k].allocate(input.globalNbytes))
      return "cannot allocate " + std::to_string(input.globalNbytes) +
             " bytes for the batch of input '" + input.name + "'";
    inputs[spec.dataInputs[k]] = batches[k].data();
  }
  for (size_t i = 0; i < numInputs; ++i) {
    const TensorSpec &input = manifest.inputs[i];
    // Scalars, and this rank's blocks of sharded data.
    if (inputs[i] && !input.isSharded())
      continue;
    if (!inputBlocks[i].allocate(input.nbytes))
      return "cannot allocate " + std::to_string(input.nbytes) +
             " bytes for input '" + input.name + "'";
  }
  outputs.resize(manifest.outputs.size());
  outputPointers.resize(manifest.outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (!outputs[o].allocate(manifest.outputs[o].nbytes))
      return "cannot allocate " + std::to_string(manifest.outputs[o].nbytes) +
             " bytes for output '" + manifest.outputs[o].name + "'";
    outputPointers[o] = outputs[o].data();
  }
  return "";
}

bool Trainer::step(int64_t s) {
  double start = now();
  injectStepFault(s + 1, rank);
  loader.fill(s, seed, batches);
  char message[1024];
  std::vector<const void *> pointers(manifest.inputs.size());
  for (size_t i = 0; i < manifest.inputs.size(); ++i) {
    pointers[i] = inputs[i];
    if (!inputBlocks[i].isAllocated())
      continue;
    pointers[i] = inputBlocks[i].data();
    if (!inputs[i])
      continue; // a scalar, filled below
    if (loom_program_shard_input(program, i, inputs[i], inputBlocks[i].data(),
                                 message, sizeof(message)) != LOOM_OK) {
      hooks.failHere(message);
      return false;
    }
  }
  // Scalars by role; bias corrections use the updates applied so far.
  double lr = spec.learningRate(s);
  double t = static_cast<double>(updatesApplied + 1);
  for (const auto &[index, role] : spec.scalars) {
    double value = 1.0;
    switch (role) {
    case ScalarRole::LearningRate:
      value = lr;
      break;
    case ScalarRole::BiasCorrection1:
      value = 1.0 - std::pow(spec.beta1, t);
      break;
    case ScalarRole::BiasCorrection2:
      value = 1.0 - std::pow(spec.beta2, t);
      break;
    case ScalarRole::LossScale:
      value = faultNanAtStep(rank, s + 1)
                  ? std::numeric_limits<double>::quiet_NaN()
                  : 1.0;
      break;
    }
    float scalar = static_cast<float>(value);
    std::memcpy(inputBlocks[index].data(), &scalar, sizeof(scalar));
  }
  stageMetrics.begin();
  if (loom_program_run(program, pointers.data(), outputPointers.data(), message,
                       sizeof(message)) != LOOM_OK) {
    hooks.failHere("step " + std::to_string(s + 1) + ": " + message);
    return false;
  }
  float loss = *static_cast<const float *>(outputs[spec.lossOutput].data());
  float gradNorm =
      spec.gradNormOutput >= 0
          ? *static_cast<const float *>(outputs[spec.gradNormOutput].data())
          : 0.0f;
  // Every rank applies or skips the same updates.
  int32_t finite = std::isfinite(loss) && std::isfinite(gradNorm) ? 1 : 0;
  if (size > 1 && loom_comm_all_reduce(comm, &finite, &finite, 1,
                                       LOOM_DTYPE_INT32, LOOM_REDUCE_MIN,
                                       message, sizeof(message)) != LOOM_OK) {
    hooks.failHere(std::string("step ") + std::to_string(s + 1) +
                   ": cannot agree on the outcome: " + message);
    return false;
  }
  if (!finite && options.haltOnNan) {
    hooks.agree("step " + std::to_string(s + 1) + ": the loss (" +
                formatFloat("%g", loss) + ") or the gradient norm (" +
                formatFloat("%g", gradNorm) +
                ") is not finite on some rank: stopping (--on-nan=halt)");
    return false;
  }
  if (finite) {
    for (size_t i = 0; i < manifest.parameters.size(); ++i) {
      const TensorSpec &parameter = manifest.parameters[i];
      if (parameter.updateOutput >= 0) {
        swapParameter(*program, i, outputs[parameter.updateOutput]);
        keepLentBuffer(i, outputs[parameter.updateOutput]);
        outputPointers[parameter.updateOutput] =
            outputs[parameter.updateOutput].data();
      }
    }
    ++updatesApplied;
  } else {
    ++skipped;
  }
  double seconds = now() - start;
  StepSample sample = stageMetrics.end(seconds);
  std::vector<StageSample> stages;
  std::string error;
  if (!options.metrics.empty() && stageMetrics.pipelined() &&
      !stageMetrics.gather(comm, sample, stages, error)) {
    hooks.failHere("step " + std::to_string(s + 1) + ": " + error);
    return false;
  }
  // Before the progress line, which reports the checkpoint's stall.
  if (!checkpointAfter(s + 1))
    return false;
  progress(s + 1, loss, gradNorm, lr, seconds, !finite, sample, stages);
  return true;
}

void Trainer::progress(int64_t done, float loss, float gradNorm, double lr,
                       double seconds, bool skipped, const StepSample &sample,
                       const std::vector<StageSample> &stages) {
  if (rank != 0)
    return;
  double samples = seconds > 0 ? static_cast<double>(spec.batch) / seconds : 0;
  double tokens = samples * static_cast<double>(spec.tokensPerExample);
  if (metrics) {
    json::Writer line;
    line.beginObject();
    line.key("step").integer(done);
    line.key("loss").number(loss);
    line.key("grad_norm").number(gradNorm);
    line.key("lr").number(lr);
    line.key("step_time_s").number(seconds);
    line.key("samples_per_s").number(samples);
    if (spec.tokensPerExample > 0)
      line.key("tokens_per_s").number(tokens);
    if (spec.flopsPerStep > 0 && seconds > 0)
      line.key("flops_per_s").number(spec.flopsPerStep / seconds);
    // This rank's split of the step, and each pipeline stage's.
    auto split = [&](const StepSample &x) {
      line.key("busy_s").number(x.busySeconds);
      line.key("wait_s").number(x.waitSeconds);
      line.key("comm_s").number(x.commSeconds);
      line.key("peak_bytes").integer(x.peakBytes);
      line.key("buffer_peak_bytes").integer(x.bufferBytes);
    };
    split(sample);
    if (!stages.empty()) {
      line.key("stages").beginArray();
      for (const StageSample &stage : stages) {
        line.beginObject();
        line.key("stage").integer(stage.stage);
        split(stage.sample);
        line.endObject();
      }
      line.endArray();
    }
    line.key("skipped").boolean(skipped);
    // The time training waited for checkpoints after this step.
    if (ckptSeconds >= 0)
      line.key("ckpt_s").number(ckptSeconds);
    line.endObject();
    std::string text = line.take() + "\n";
    // Flushed per line, so that the metrics of a job that died are there.
    if (std::fputs(text.c_str(), metrics) < 0 || std::fflush(metrics) != 0)
      hooks.failHere("cannot write metrics file '" + options.metrics +
                     "': " + errnoMessage(errno));
  }
  bool first = done == firstStep + 1, last = done == options.steps;
  bool due = options.logEvery > 0 && done % options.logEvery == 0;
  if (!tty && !first && !last && !due)
    return;
  std::string text =
      "step " + std::to_string(done) + "/" + std::to_string(options.steps) +
      " loss " + formatFloat("%.4f", loss) + " grad_norm " +
      formatFloat("%.4g", gradNorm) + " lr " + formatFloat("%.1e", lr) + " " +
      formatFloat("%.1f", seconds * 1e3) + " ms/step " +
      (spec.tokensPerExample > 0
           ? formatFloat("%.0f", tokens) + " tokens/s"
           : formatFloat("%.0f", samples) + " samples/s") +
      (skipped ? " (skipped: not finite)" : "");
  if (tty)
    std::printf("\r%s\033[K", text.c_str());
  else
    std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

int loom::rt::train::run(loom_program *program, loom_comm *comm,
                         const Options &options, const Hooks &hooks) {
  Trainer trainer(program, comm, options, hooks);
  return trainer.run();
}
