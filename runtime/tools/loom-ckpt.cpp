//===- loom-ckpt.cpp - Inspect, verify and export training checkpoints ----===//
//
// loom-ckpt info DIR                      what a checkpoint holds
// loom-ckpt verify DIR                    check every shard's size and CRC-32
// loom-ckpt export DIR [-o FILE.safetensors] [--artifact MODEL.loom]
//                                         the model parameters, whole, with
//                                         their ONNX names (and the ones the
//                                         artifact holds but never updates)
//
// DIR is a checkpoint (DIR/step-<S>, holding manifest.json) or a directory
// of checkpoints (`loomrun --ckpt DIR`), whose latest is taken; verify
// checks every complete checkpoint of such a directory.
//
// Exit codes: 0 success, 1 error, 2 bad command line.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Checkpoint.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Support.h"
#include <cstdio>
#include <set>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace loom::rt;

namespace {
const char usageText[] =
    "usage: loom-ckpt info DIR\n"
    "       loom-ckpt verify DIR\n"
    "       loom-ckpt export DIR [-o FILE.safetensors] [--artifact "
    "MODEL.loom]\n"
    "\n"
    "DIR is a checkpoint (DIR/step-<S>) or a `loomrun --train --ckpt` "
    "directory\n"
    "(its latest checkpoint; verify checks all of them). export writes the "
    "model\n"
    "parameters (no optimizer state) as one safetensors file (default:\n"
    "model.safetensors). With --artifact (the artifact that trained) it adds\n"
    "the parameters no step updates (frozen ones, BatchNorm running\n"
    "statistics in inference mode, parameters without a gradient), so the\n"
    "file holds the whole model.\n";

int error(const std::string &message) {
  std::fprintf(stderr, "loom-ckpt: error: %s\n", message.c_str());
  return 1;
}

int usageError(const std::string &message) {
  std::fprintf(stderr, "loom-ckpt: error: %s\n\n%s", message.c_str(),
               usageText);
  return 2;
}

std::string shapeText(const std::vector<std::vector<std::string>> &sharding) {
  std::string text = "[";
  for (size_t d = 0; d < sharding.size(); ++d) {
    text += d ? ", [" : "[";
    for (size_t a = 0; a < sharding[d].size(); ++a)
      text += (a ? ", " : "") + sharding[d][a];
    text += "]";
  }
  return text + "]";
}

int info(const std::string &dir) {
  std::string checkpointDir, message;
  checkpoint::Info data;
  if (!checkpoint::resolve(dir, checkpointDir, message) ||
      !checkpoint::readInfo(checkpointDir, data, message))
    return error(message);
  std::printf("checkpoint: %s\n", checkpointDir.c_str());
  std::printf("step: %lld (%lld updates applied), seed %llu\n",
              static_cast<long long>(data.step),
              static_cast<long long>(data.updatesApplied),
              static_cast<unsigned long long>(data.seed));
  if (!data.model.empty())
    std::printf("model: %s\n", data.model.c_str());
  std::printf("mesh: %s\n", data.describeMesh().c_str());
  std::printf("optimizer: %s\n", json::serialize(data.optimizer).c_str());
  std::printf("tensors (%zu):\n", data.tensors.size());
  for (const checkpoint::Tensor &tensor : data.tensors)
    std::printf("  %s: %s %s, sharding %s, %zu block%s\n", tensor.name.c_str(),
                tensor.kind.c_str(),
                formatTensorType(tensor.dtype, tensor.globalShape).c_str(),
                shapeText(tensor.sharding).c_str(), tensor.blocks.size(),
                tensor.blocks.size() == 1 ? "" : "s");
  std::printf("shards (%zu):\n", data.shards.size());
  for (const checkpoint::Shard &shard : data.shards)
    std::printf("  %s: rank %lld, %llu bytes, crc32 %08x\n", shard.file.c_str(),
                static_cast<long long>(shard.rank),
                static_cast<unsigned long long>(shard.size), shard.crc32);
  return 0;
}

/// Checks one checkpoint: every shard, and every tensor assembles.
bool verifyOne(const std::string &checkpointDir, std::string &message) {
  checkpoint::Reader reader;
  if (!reader.open(checkpointDir, message) || !reader.verify(message))
    return false;
  for (size_t t = 0; t < reader.info().tensors.size(); ++t) {
    const checkpoint::Tensor &tensor = reader.info().tensors[t];
    size_t nbytes = 0;
    AlignedBuffer global;
    if (!checkedByteSize(tensor.dtype, tensor.globalShape.data(),
                         tensor.globalShape.size(), nbytes) ||
        !global.allocate(nbytes)) {
      message = "cannot allocate tensor '" + tensor.name + "'";
      return false;
    }
    if (!reader.assemble(t, global.data(), message))
      return false;
  }
  message = std::to_string(reader.info().shards.size()) + " shards, " +
            std::to_string(reader.info().tensors.size()) + " tensors";
  return true;
}

int verify(const std::string &dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return error("'" + dir + "' is not a directory");
  std::vector<std::string> dirs;
  if (::stat(joinPath(dir, "manifest.json").c_str(), &st) == 0) {
    dirs.push_back(dir);
  } else {
    for (const std::string &name : checkpoint::listComplete(dir))
      dirs.push_back(joinPath(dir, name));
    if (dirs.empty())
      return error("'" + dir + "' holds no complete checkpoint");
  }
  bool ok = true;
  for (const std::string &checkpointDir : dirs) {
    std::string message;
    if (verifyOne(checkpointDir, message)) {
      std::printf("%s: ok (%s)\n", checkpointDir.c_str(), message.c_str());
    } else {
      std::printf("%s: FAILED\n", checkpointDir.c_str());
      std::fflush(stdout);
      error(message);
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

/// The artifact's parameters that no step updates (frozen weights,
/// BatchNorm's running statistics in inference mode, parameters without a
/// gradient): a checkpoint does not hold them. Every stage of a pipelined
/// artifact is read; `programs` keeps the mapped data alive.
bool frozenParameters(const std::string &artifact,
                      const std::vector<std::string> &have,
                      std::vector<loom_program *> &programs,
                      std::vector<safetensors::Tensor> &tensors,
                      std::string &message) {
  char err[1024] = {0};
  std::set<std::string> seen(have.begin(), have.end());
  std::set<int64_t> stagesRead;
  // Rank r runs one stage; ranks past the first of each stage add nothing.
  for (int rank = 0;; ++rank) {
    // The manifest and the mapped weights only: no device, no program.
    loom_program *program = loom_program_load_rank(
        artifact.c_str(), rank, LOOM_LOAD_MANIFEST_ONLY | LOOM_LOAD_PARAMETERS,
        err, sizeof err);
    if (!program) {
      message = "--artifact: " + std::string(err);
      return false;
    }
    programs.push_back(program);
    int64_t stages = loom_program_pipeline_stages(program);
    if (!stagesRead.insert(loom_program_pipeline_stage(program)).second)
      continue;
    for (size_t i = 0, e = loom_program_num_parameters(program); i < e; ++i) {
      const loom_tensor_info *p = loom_program_parameter(program, i);
      const void *data = loom_program_parameter_data(program, i);
      if (!p || !data || loom_program_parameter_update(program, i) >= 0 ||
          !seen.insert(p->name).second)
        continue;
      tensors.push_back(
          {p->name, p->dtype,
           std::vector<int64_t>(p->global_shape, p->global_shape + p->rank),
           data});
    }
    if (int64_t(stagesRead.size()) >= stages)
      return true;
  }
}

int exportParameters(const std::string &dir, const std::string &output,
                     const std::string &artifact) {
  std::string checkpointDir, message;
  checkpoint::Reader reader;
  if (!checkpoint::resolve(dir, checkpointDir, message) ||
      !reader.open(checkpointDir, message) || !reader.verify(message))
    return error(message);
  const checkpoint::Info &data = reader.info();
  std::vector<AlignedBuffer> buffers(data.tensors.size());
  std::vector<safetensors::Tensor> tensors;
  for (size_t t = 0; t < data.tensors.size(); ++t) {
    const checkpoint::Tensor &tensor = data.tensors[t];
    if (tensor.kind != "parameter")
      continue;
    size_t nbytes = 0;
    if (!checkedByteSize(tensor.dtype, tensor.globalShape.data(),
                         tensor.globalShape.size(), nbytes) ||
        !buffers[t].allocate(nbytes))
      return error("cannot allocate tensor '" + tensor.name + "'");
    if (!reader.assemble(t, buffers[t].data(), message))
      return error(message);
    tensors.push_back(
        {tensor.name, tensor.dtype, tensor.globalShape, buffers[t].data()});
  }
  std::vector<loom_program *> programs;
  auto freePrograms = [&] {
    for (loom_program *p : programs)
      loom_program_free(p);
  };
  size_t fromCheckpoint = tensors.size();
  if (!artifact.empty()) {
    std::vector<std::string> have;
    for (const safetensors::Tensor &t : tensors)
      have.push_back(t.name);
    if (!frozenParameters(artifact, have, programs, tensors, message)) {
      freePrograms();
      return error(message);
    }
  }
  // "pt" is what transformers looks for in files it loads.
  safetensors::Metadata metadata = {{"format", "pt"},
                                    {"loom.step", std::to_string(data.step)}};
  bool written = safetensors::writeFile(output, tensors, metadata, message);
  freePrograms();
  if (!written)
    return error(message);
  std::printf("exported %zu parameters of %s (step %lld) to %s\n",
              fromCheckpoint, checkpointDir.c_str(),
              static_cast<long long>(data.step), output.c_str());
  if (!artifact.empty())
    std::printf("and %zu parameters no step updates, from %s\n",
                tensors.size() - fromCheckpoint, artifact.c_str());
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::fputs(usageText, stdout);
    return 0;
  }
  if (args.empty())
    return usageError("no command given");
  const std::string &command = args[0];
  std::string dir, output = "model.safetensors", artifact;
  for (size_t i = 1; i < args.size(); ++i) {
    if (command == "export" && (args[i] == "-o" || args[i] == "--output")) {
      if (i + 1 >= args.size() || args[i + 1].empty())
        return usageError(args[i] + " needs a file");
      output = args[++i];
    } else if (command == "export" && args[i] == "--artifact") {
      if (i + 1 >= args.size() || args[i + 1].empty())
        return usageError(args[i] + " needs a directory");
      artifact = args[++i];
    } else if (args[i].size() > 1 && args[i][0] == '-') {
      return usageError("unknown option '" + args[i] + "'");
    } else if (dir.empty()) {
      dir = args[i];
    } else {
      return usageError("unexpected argument '" + args[i] + "'");
    }
  }
  if (command != "info" && command != "verify" && command != "export")
    return usageError("unknown command '" + command +
                      "' (known: info, verify, export)");
  if (dir.empty())
    return usageError(command + " needs a checkpoint DIR");
  if (command == "info")
    return info(dir);
  if (command == "verify")
    return verify(dir);
  return exportParameters(dir, output, artifact);
}
