//===- Info.cpp - loomrun --info: what an artifact holds ------------------===//

#include "Loomrun.h"
#include "loom/runtime/Collectives.h"
#include "loom/runtime/Support.h"
#include <cstdio>

using namespace loom::rt;

namespace loomrun {

/// "float32[16,16]": the whole tensor, as files hold it.
std::string globalType(const loom_tensor_info &info) {
  return formatTensorType(info.dtype, info.global_shape,
                          static_cast<size_t>(info.rank));
}

std::string tensorList(const loom_program *program, bool outputs) {
  size_t count = outputs ? loom_program_num_outputs(program)
                         : loom_program_num_inputs(program);
  if (count == 0)
    return "(none)";
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    const loom_tensor_info *info = outputs ? loom_program_output(program, i)
                                           : loom_program_input(program, i);
    if (i)
      text += ", ";
    text += std::string(info->name) + " " + globalType(*info);
  }
  return text;
}

namespace {
/// "[[dp], []]", or "" when the tensor names no mesh axis.
std::string shardingText(const loom_program *program, loom_tensor_list list,
                         size_t index, int32_t rank) {
  std::string text;
  bool any = false;
  for (int32_t d = 0; d < rank; ++d) {
    std::string axes = loom_program_tensor_sharding(program, list, index, d);
    any = any || !axes.empty();
    std::string spaced;
    for (char c : axes)
      spaced += c == ',' ? std::string(", ") : std::string(1, c);
    text += (d ? ", [" : "[") + spaced + "]";
  }
  return any ? "[" + text + "]" : std::string();
}

void printTensors(const char *title, loom_tensor_list list, size_t count,
                  const loom_tensor_info *(*get)(const loom_program *, size_t),
                  const loom_program *program) {
  size_t total = 0;
  for (size_t i = 0; i < count; ++i)
    total += get(program, i)->nbytes;
  bool distributed = loom_program_mesh_num_axes(program) > 0;
  std::printf("%s (%zu, %zu bytes%s):\n", title, count, total,
              distributed ? " per rank" : "");
  for (size_t i = 0; i < count; ++i) {
    const loom_tensor_info *info = get(program, i);
    std::string sharding = shardingText(program, list, i, info->rank);
    std::string extra;
    if (!sharding.empty())
      extra = " (global " + globalType(*info) + ", sharding " + sharding + ")";
    std::printf("  %s: %s%s\n", info->name, formatTensorType(*info).c_str(),
                extra.c_str());
  }
}

std::string describeMesh(const loom_program *program) {
  std::string text;
  for (size_t i = 0; i < loom_program_mesh_num_axes(program); ++i)
    text += (i ? " x " : "") +
            std::string(loom_program_mesh_axis_name(program, i)) + "=" +
            std::to_string(loom_program_mesh_axis_size(program, i));
  return text;
}

std::string groupText(const loom_program *program, size_t group) {
  std::string text;
  for (const char *c = loom_program_group_axes(program, group); *c; ++c)
    text += *c == ',' ? std::string(", ") : std::string(1, *c);
  return "[" + text + "]";
}

} // namespace

void printInfo(const loom_program *program) {
  std::printf("artifact: %s\n", loom_program_artifact_dir(program));
  if (*loom_program_producer(program))
    std::printf("producer: %s\n", loom_program_producer(program));
  if (*loom_program_model(program))
    std::printf("model: %s\n", loom_program_model(program));
  size_t numChips = loom_program_num_target_chips(program);
  std::string target = *loom_program_target_triple(program)
                           ? loom_program_target_triple(program)
                       : numChips ? loom_program_target_device(program)
                                  : "(unspecified)";
  for (size_t i = 0; i < numChips; ++i)
    target +=
        (i ? "," : " ") + std::string(loom_program_target_chip(program, i));
  if (int64_t arena = loom_program_target_arena_bytes(program))
    target += ", arena " + std::to_string(arena) + " bytes";
  if (*loom_program_target_cpu(program))
    target += std::string(", cpu ") + loom_program_target_cpu(program);
  size_t numFeatures = loom_program_num_target_features(program);
  for (size_t i = 0; i < numFeatures; ++i)
    target += (i ? "," : ", features ") +
              std::string(loom_program_target_feature(program, i));
  // The device only when it is not the default, the CPU.
  if (std::string(loom_program_target_device(program)) !=
      LOOM_DEFAULT_DEVICE_KIND)
    target += std::string(", device ") + loom_program_target_device(program);
  std::printf("target: %s\n", target.c_str());
  if (loom_program_mesh_num_axes(program) > 0)
    std::printf("mesh: %s (%lld devices)\n", describeMesh(program).c_str(),
                static_cast<long long>(loom_program_mesh_size(program)));
  // A pipelined artifact is described by its first stage, below.
  if (loom_program_pipeline_stages(program) > 1)
    std::printf("pipeline: %lld stages (the manifest's rank_stage says which "
                "rank runs which); stage %lld below\n",
                static_cast<long long>(loom_program_pipeline_stages(program)),
                static_cast<long long>(loom_program_pipeline_stage(program)));
  size_t numGroups = loom_program_num_groups(program);
  if (numGroups) {
    std::printf("groups (%zu):\n", numGroups);
    for (size_t g = 0; g < numGroups; ++g)
      std::printf("  %zu: %s\n", g, groupText(program, g).c_str());
  }
  printTensors("inputs", LOOM_TENSOR_INPUT, loom_program_num_inputs(program),
               loom_program_input, program);
  printTensors("outputs", LOOM_TENSOR_OUTPUT, loom_program_num_outputs(program),
               loom_program_output, program);
  printTensors("parameters", LOOM_TENSOR_PARAMETER,
               loom_program_num_parameters(program), loom_program_parameter,
               program);
  size_t numCollectives = loom_program_num_collectives(program);
  if (numCollectives) {
    std::printf("collectives (%zu):\n", numCollectives);
    for (size_t i = 0; i < numCollectives; ++i) {
      int32_t kind = 0, group = 0;
      int64_t bytes = 0;
      loom_program_collective(program, i, &kind, &group, &bytes);
      std::printf("  %zu: %s over group %d %s, %lld bytes\n", i,
                  loom_collective_kind_name(kind), group,
                  groupText(program, static_cast<size_t>(group)).c_str(),
                  static_cast<long long>(bytes));
    }
  }
}

} // namespace loomrun
