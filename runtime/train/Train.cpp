//===- Train.cpp - The training loop of `loomrun --train` -----------------===//
//
// One Trainer per rank. Before the loop the ranks agree on every step that
// can fail (the artifact, the data, the checkpoint to resume, the metrics
// file); in the loop they meet in the program's collectives and in one
// all-reduce of a "finite" flag per step, so that every rank applies or
// skips the same updates. Applying an update swaps the parameter's buffer
// with its update output's: no copy, and the old buffer receives the next
// step's update.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Train.h"
#include "comm/Faults.h"
#include "comm/Layout.h"
#include "core/Program.h"
#include "loom/runtime/Checkpoint.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Launch.h"
#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Support.h"
#include "train/DataLoader.h"
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::train;

namespace {
double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

[[noreturn]] void killSelf() {
  ::raise(SIGKILL);
  ::_exit(137);
}

std::string formatFloat(const char *format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

class Trainer {
public:
  Trainer(loom_program *program, loom_comm *comm, const Options &options,
          const Hooks &hooks)
      : program(program), comm(comm), options(options), hooks(hooks),
        manifest(program->manifest), spec(manifest.training),
        rank(loom_comm_rank(comm)), size(loom_comm_size(comm)) {}
  ~Trainer() {
    if (metrics)
      std::fclose(metrics);
  }

  int run();

private:
  std::string prepare();
  std::string prepareCheckpoints();
  std::string resumeFrom(const std::string &checkpointDir);
  bool step(int64_t s);
  bool saveCheckpoint(int64_t done);
  std::string writeCheckpointManifest(const std::string &dir, int64_t done,
                                      const std::vector<int64_t> &table);
  void progress(int64_t done, float loss, float gradNorm, double lr,
                double seconds, bool skipped);
  bool isStateTensor(const TensorSpec &parameter) const {
    return parameter.updateOutput >= 0;
  }
  std::string kindOf(const TensorSpec &parameter) const {
    return parameter.initZeros && parameter.name.find(':') != std::string::npos
               ? "optimizer"
               : "parameter";
  }

  loom_program *program;
  loom_comm *comm;
  const Options &options;
  const Hooks &hooks;
  const Manifest &manifest;
  const TrainingSpec &spec;
  int rank;
  int size;

  DataLoader loader;
  std::vector<AlignedBuffer> batches;
  std::vector<AlignedBuffer> inputBlocks;
  std::vector<const void *> inputs;
  std::vector<AlignedBuffer> outputs;
  std::vector<void *> outputPointers;
  uint64_t seed = 0;
  int64_t firstStep = 0;
  int64_t updatesApplied = 0;
  int64_t skipped = 0;
  int64_t checkpointsWritten = 0;
  FILE *metrics = nullptr;
  bool tty = false;
};

int Trainer::run() {
  if (!hooks.agree(prepare()))
    return 1;
  if (!hooks.agree(prepareCheckpoints()))
    return 1;
  std::string problem;
  if (rank == 0 && !options.metrics.empty()) {
    // A resumed run continues the metrics of the run it resumes.
    metrics = std::fopen(options.metrics.c_str(), firstStep > 0 ? "ae" : "we");
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

  for (int64_t s = firstStep; s < options.steps; ++s) {
    if (!step(s))
      return 1;
    int64_t done = s + 1;
    bool due = (options.ckptEvery > 0 && done % options.ckptEvery == 0) ||
               done == options.steps;
    if (!options.ckptDir.empty() && due && !saveCheckpoint(done))
      return 1;
  }
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

std::string Trainer::prepareCheckpoints() {
  if (options.ckptDir.empty())
    return "";
  if (program->pipelineStages > 1)
    return "--ckpt: checkpoints of pipelined runs (" +
           std::to_string(program->pipelineStages) +
           " stages) are not supported yet; train without --ckpt, or "
           "compile without a pp axis";
  const std::string &root = options.ckptDir;
  std::string latest = checkpoint::findLatest(root);
  if (!options.resume) {
    struct stat st;
    bool hasLatest = ::lstat(joinPath(root, "latest").c_str(), &st) == 0;
    if (!latest.empty() || hasLatest)
      return "checkpoint directory '" + root + "' already holds checkpoints" +
             (latest.empty() ? std::string()
                             : " (the latest: " + latest + ")") +
             ": pass --resume to continue from them, or another --ckpt DIR";
    std::string error;
    if (rank == 0 && !makeDirectories(root, error))
      return "cannot create checkpoint directory '" + root + "': " + error;
    return "";
  }
  if (latest.empty()) {
    if (rank == 0)
      std::printf("no checkpoint in '%s' yet: starting at step 0\n",
                  root.c_str());
    std::string error;
    if (rank == 0 && !makeDirectories(root, error))
      return "cannot create checkpoint directory '" + root + "': " + error;
    return "";
  }
  return resumeFrom(latest);
}

std::string Trainer::resumeFrom(const std::string &checkpointDir) {
  checkpoint::Reader reader;
  std::string error;
  if (!reader.open(checkpointDir, error))
    return error;
  const checkpoint::Info &info = reader.info();
  std::string where = "checkpoint '" + checkpointDir + "'";
  if (info.optimizerKind != spec.optimizerKind)
    return where + " was written with optimizer '" + info.optimizerKind +
           "', but the artifact uses '" + spec.optimizerKind + "'";
  if (options.seedGiven && info.seed != options.seed)
    return where + " was written with --seed " + std::to_string(info.seed) +
           ", not " + std::to_string(options.seed) +
           ": drop --seed to continue it";
  // Names, dtypes and global shapes must match; the mesh need not.
  std::vector<int64_t> tensorOf(manifest.parameters.size(), -1);
  for (size_t t = 0; t < info.tensors.size(); ++t) {
    const checkpoint::Tensor &tensor = info.tensors[t];
    int64_t found = -1;
    for (size_t i = 0; i < manifest.parameters.size(); ++i)
      if (isStateTensor(manifest.parameters[i]) &&
          manifest.parameters[i].name == tensor.name)
        found = static_cast<int64_t>(i);
    if (found < 0)
      return where + " holds tensor '" + tensor.name +
             "', which is not a state tensor of artifact '" +
             program->artifactDir + "'";
    const TensorSpec &parameter = manifest.parameters[found];
    if (tensor.dtype != parameter.dtype ||
        tensor.globalShape != parameter.globalShape)
      return where + ": tensor '" + tensor.name + "' is " +
             formatTensorType(tensor.dtype, tensor.globalShape) +
             ", but the artifact's is " +
             formatTensorType(parameter.dtype, parameter.globalShape);
    tensorOf[found] = static_cast<int64_t>(t);
  }
  for (size_t i = 0; i < manifest.parameters.size(); ++i)
    if (isStateTensor(manifest.parameters[i]) && tensorOf[i] < 0)
      return where + " has no tensor '" + manifest.parameters[i].name + "' (" +
             formatTensorType(manifest.parameters[i].dtype,
                              manifest.parameters[i].globalShape) +
             "), a state tensor of the artifact";
  // Every shard is checked, then each rank keeps its blocks of the whole
  // tensors (any mesh can resume any other's checkpoint).
  if (!reader.verify(error))
    return error;
  std::vector<int64_t> sizes = manifest.meshSizes();
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    if (tensorOf[i] < 0)
      continue;
    const TensorSpec &parameter = manifest.parameters[i];
    AlignedBuffer global;
    if (!global.allocate(parameter.globalNbytes))
      return "cannot allocate " + std::to_string(parameter.globalNbytes) +
             " bytes to load tensor '" + parameter.name + "'";
    if (!reader.assemble(static_cast<size_t>(tensorOf[i]), global.data(),
                         error))
      return error;
    void *block = mutableParameter(*program, i);
    if (parameter.nbytes == 0)
      continue;
    layout::extractBlock(
        global.data(), block, parameter.globalShape, parameter.shape,
        layout::blockOffsets(sizes, parameter.sharding, parameter.shape, rank),
        loom_dtype_size(parameter.dtype));
  }
  firstStep = info.step;
  updatesApplied = info.updatesApplied;
  seed = info.seed;
  if (rank == 0)
    std::printf("resuming from %s (step %lld, %lld updates applied)\n",
                checkpointDir.c_str(), static_cast<long long>(info.step),
                static_cast<long long>(info.updatesApplied));
  return "";
}

bool Trainer::step(int64_t s) {
  double start = now();
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
        outputPointers[parameter.updateOutput] =
            outputs[parameter.updateOutput].data();
      }
    }
    ++updatesApplied;
  } else {
    ++skipped;
  }
  double seconds = now() - start;
  progress(s + 1, loss, gradNorm, lr, seconds, !finite);
  return true;
}

void Trainer::progress(int64_t done, float loss, float gradNorm, double lr,
                       double seconds, bool skipped) {
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
    line.key("skipped").boolean(skipped);
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

bool Trainer::saveCheckpoint(int64_t done) {
  std::string root = options.ckptDir;
  std::string name = checkpoint::stepName(done);
  std::string dir = joinPath(root, name);
  std::string problem;
  if (rank == 0) {
    std::string error;
    if (!makeDirectories(dir, error))
      problem = "cannot create checkpoint directory '" + dir + "': " + error;
    // A checkpoint being rewritten is incomplete until its new manifest.
    std::string manifestPath = joinPath(dir, "manifest.json");
    if (problem.empty() && ::unlink(manifestPath.c_str()) == 0)
      checkpoint::syncDirectory(dir);
  }
  if (!hooks.agree(problem))
    return false;

  // This rank's blocks of the state tensors it holds the canonical copy of.
  std::vector<int64_t> sizes = manifest.meshSizes();
  std::vector<safetensors::Tensor> mine;
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    const TensorSpec &parameter = manifest.parameters[i];
    if (!isStateTensor(parameter) ||
        !layout::isCanonicalHolder(sizes, parameter.sharding, rank))
      continue;
    mine.push_back({parameter.name, parameter.dtype, parameter.shape,
                    loom_program_parameter_data(program, i)});
  }
  char fileName[64];
  std::snprintf(fileName, sizeof(fileName), "rank-%05d.safetensors", rank);
  uint64_t fileSize = 0;
  uint32_t crc = 0;
  if (!mine.empty()) {
    std::string path = joinPath(dir, fileName);
    std::string temp = joinPath(dir, std::string(".") + fileName + ".tmp");
    safetensors::Metadata metadata = {{"format", "loom-checkpoint-shard"},
                                      {"rank", std::to_string(rank)},
                                      {"step", std::to_string(done)}};
    int fd =
        ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      problem = "cannot write '" + path + "': " + errnoMessage(errno);
    } else {
      bool kill = faultKillInCheckpoint(rank, checkpointsWritten);
      bool ok = safetensors::write(fd, path, mine, metadata, fileSize, crc,
                                   problem, kill ? killSelf : nullptr);
      if (ok && ::fsync(fd) != 0) {
        problem = "cannot write '" + path + "': " + errnoMessage(errno);
        ok = false;
      }
      if (::close(fd) != 0 && ok) {
        problem = "cannot write '" + path + "': " + errnoMessage(errno);
        ok = false;
      }
      if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
        problem =
            "cannot move '" + temp + "' into place: " + errnoMessage(errno);
        ok = false;
      }
      if (!ok)
        ::unlink(temp.c_str());
    }
  }
  // Every shard is in place before the manifest names it.
  if (!hooks.agree(problem))
    return false;
  std::vector<int64_t> table(2 * static_cast<size_t>(size), 0);
  if (!mine.empty()) {
    table[2 * rank] = static_cast<int64_t>(fileSize) + 1;
    table[2 * rank + 1] = crc;
  }
  char message[1024];
  if (size > 1 &&
      loom_comm_all_reduce(comm, table.data(), table.data(), table.size(),
                           LOOM_DTYPE_INT64, LOOM_REDUCE_SUM, message,
                           sizeof(message)) != LOOM_OK) {
    hooks.failHere(std::string("cannot gather the checkpoint's shards: ") +
                   message);
    return false;
  }
  if (rank == 0) {
    checkpoint::syncDirectory(dir);
    problem = writeCheckpointManifest(dir, done, table);
    if (problem.empty() && checkpoint::writeFileAtomically(
                               joinPath(root, "latest"), name + "\n", problem))
      problem.clear();
  }
  ++checkpointsWritten;
  return hooks.agree(problem);
}

std::string
Trainer::writeCheckpointManifest(const std::string &dir, int64_t done,
                                 const std::vector<int64_t> &table) {
  std::vector<int64_t> sizes = manifest.meshSizes();
  std::vector<int64_t> shardOf(size, -1);
  json::Writer writer(2);
  writer.beginObject();
  writer.key("format").string(checkpoint::formatName);
  writer.key("version").integer(checkpoint::formatVersion);
  writer.key("step").integer(done);
  writer.key("updates_applied").integer(updatesApplied);
  writer.key("seed").unsignedInteger(seed);
  writer.key("model").string(manifest.model);
  writer.key("artifact").string(program->artifactDir);
  writer.key("mesh").beginArray();
  for (const MeshAxis &axis : manifest.mesh) {
    writer.beginObject();
    writer.key("name").string(axis.name);
    writer.key("size").integer(axis.size);
    writer.endObject();
  }
  writer.endArray();
  json::Value optimizer;
  json::ParseError parseError;
  json::parse(spec.optimizerJson, optimizer, parseError);
  writer.key("optimizer").value(optimizer);
  writer.key("shards").beginArray();
  int64_t numShards = 0;
  for (int r = 0; r < size; ++r) {
    if (table[2 * r] == 0)
      continue;
    char fileName[64];
    std::snprintf(fileName, sizeof(fileName), "rank-%05d.safetensors", r);
    writer.beginObject();
    writer.key("file").string(fileName);
    writer.key("rank").integer(r);
    writer.key("size").integer(table[2 * r] - 1);
    writer.key("crc32").integer(table[2 * r + 1]);
    writer.endObject();
    shardOf[r] = numShards++;
  }
  writer.endArray();
  writer.key("tensors").beginArray();
  for (const TensorSpec &parameter : manifest.parameters) {
    if (!isStateTensor(parameter))
      continue;
    writer.beginObject();
    writer.key("name").string(parameter.name);
    writer.key("kind").string(kindOf(parameter));
    writer.key("dtype").string(loom_dtype_name(parameter.dtype));
    writer.key("global_shape").beginArray();
    for (int64_t dim : parameter.globalShape)
      writer.integer(dim);
    writer.endArray();
    writer.key("sharding").beginArray();
    for (size_t d = 0; d < parameter.shape.size(); ++d) {
      writer.beginArray();
      for (int axis : parameter.axesOf(d))
        writer.string(manifest.mesh[axis].name);
      writer.endArray();
    }
    writer.endArray();
    writer.key("blocks").beginArray();
    for (int r = 0; r < size; ++r) {
      if (!layout::isCanonicalHolder(sizes, parameter.sharding, r))
        continue;
      if (shardOf[r] < 0)
        return "rank " + std::to_string(r) +
               " wrote no checkpoint shard, but holds a block of '" +
               parameter.name + "'";
      writer.beginObject();
      writer.key("shard").integer(shardOf[r]);
      writer.key("offsets").beginArray();
      for (int64_t offset :
           layout::blockOffsets(sizes, parameter.sharding, parameter.shape, r))
        writer.integer(offset);
      writer.endArray();
      writer.key("shape").beginArray();
      for (int64_t dim : parameter.shape)
        writer.integer(dim);
      writer.endArray();
      writer.endObject();
    }
    writer.endArray();
    writer.endObject();
  }
  writer.endArray();
  writer.endObject();
  std::string error;
  if (!checkpoint::writeFileAtomically(joinPath(dir, "manifest.json"),
                                       writer.take() + "\n", error))
    return error;
  return "";
}
} // namespace

int loom::rt::train::run(loom_program *program, loom_comm *comm,
                         const Options &options, const Hooks &hooks) {
  Trainer trainer(program, comm, options, hooks);
  return trainer.run();
}
