//===- ProgramInfo.cpp - What a loaded program's manifest says ------------===//
//
// The signature, mesh, group, collective and target accessors of Runtime.h:
// they read the checked manifest only, so they work for programs loaded
// with LOOM_LOAD_MANIFEST_ONLY too.
//
//===----------------------------------------------------------------------===//

#include "core/Program.h"
#include "loom/runtime/Runtime.h"
#include <cstring>

using namespace loom::rt;

extern "C" size_t loom_program_num_parameters(const loom_program *program) {
  return program ? program->parameterInfos.size() : 0;
}

extern "C" size_t loom_program_num_inputs(const loom_program *program) {
  return program ? program->inputInfos.size() : 0;
}

extern "C" size_t loom_program_num_outputs(const loom_program *program) {
  return program ? program->outputInfos.size() : 0;
}

namespace {
const loom_tensor_info *infoAt(const std::vector<loom_tensor_info> &infos,
                               size_t index) {
  return index < infos.size() ? &infos[index] : nullptr;
}

int64_t findByName(const std::vector<loom_tensor_info> &infos,
                   const char *name) {
  if (!name)
    return -1;
  for (size_t i = 0; i < infos.size(); ++i)
    if (std::strcmp(infos[i].name, name) == 0)
      return static_cast<int64_t>(i);
  return -1;
}
} // namespace

extern "C" const loom_tensor_info *
loom_program_parameter(const loom_program *program, size_t index) {
  return program ? infoAt(program->parameterInfos, index) : nullptr;
}

extern "C" const loom_tensor_info *
loom_program_input(const loom_program *program, size_t index) {
  return program ? infoAt(program->inputInfos, index) : nullptr;
}

extern "C" const loom_tensor_info *
loom_program_output(const loom_program *program, size_t index) {
  return program ? infoAt(program->outputInfos, index) : nullptr;
}

extern "C" int64_t loom_program_find_input(const loom_program *program,
                                           const char *name) {
  return program ? findByName(program->inputInfos, name) : -1;
}

extern "C" int64_t loom_program_find_output(const loom_program *program,
                                            const char *name) {
  return program ? findByName(program->outputInfos, name) : -1;
}

extern "C" const void *loom_program_parameter_data(const loom_program *program,
                                                   size_t index) {
  if (!program || index >= program->parameterData.size())
    return nullptr;
  return program->parameterData[index];
}

extern "C" int loom_program_tensor_is_sharded(const loom_tensor_info *info) {
  if (!info || !info->global_shape)
    return 0;
  for (int32_t d = 0; d < info->rank; ++d)
    if (info->shape[d] != info->global_shape[d])
      return 1;
  return 0;
}

extern "C" size_t loom_program_mesh_num_axes(const loom_program *program) {
  return program ? program->manifest.mesh.size() : 0;
}

extern "C" const char *loom_program_mesh_axis_name(const loom_program *program,
                                                   size_t axis) {
  if (!program || axis >= program->manifest.mesh.size())
    return nullptr;
  return program->manifest.mesh[axis].name.c_str();
}

extern "C" int64_t loom_program_mesh_axis_size(const loom_program *program,
                                               size_t axis) {
  if (!program || axis >= program->manifest.mesh.size())
    return 0;
  return program->manifest.mesh[axis].size;
}

extern "C" int64_t loom_program_mesh_size(const loom_program *program) {
  return program ? program->manifest.meshSize() : 0;
}

extern "C" size_t loom_program_num_groups(const loom_program *program) {
  return program ? program->groupAxes.size() : 0;
}

extern "C" const char *loom_program_group_axes(const loom_program *program,
                                               size_t group) {
  if (!program || group >= program->groupAxes.size())
    return nullptr;
  return program->groupAxes[group].c_str();
}

extern "C" size_t loom_program_num_collectives(const loom_program *program) {
  return program ? program->manifest.collectives.size() : 0;
}

extern "C" int loom_program_collective(const loom_program *program,
                                       size_t index, int32_t *kind,
                                       int32_t *group, int64_t *bytes) {
  if (!program || index >= program->manifest.collectives.size())
    return LOOM_ERROR_INVALID_ARGUMENT;
  const CollectiveSpec &call = program->manifest.collectives[index];
  if (kind)
    *kind = call.kind;
  if (group)
    *group = call.group;
  if (bytes)
    *bytes = call.bytes;
  return LOOM_OK;
}

extern "C" const char *loom_program_tensor_sharding(const loom_program *program,
                                                    int32_t list, size_t index,
                                                    int32_t dim) {
  if (!program || list < 0 || list > 2 ||
      index >= program->tensorText[list].size())
    return nullptr;
  const std::vector<std::string> &dims =
      program->tensorText[list][index].sharding;
  if (dim < 0 || static_cast<size_t>(dim) >= dims.size())
    return nullptr;
  return dims[dim].c_str();
}

extern "C" int64_t loom_program_pipeline_stage(const loom_program *program) {
  return program && program->pipelineStages > 1 ? program->pipelineStage : -1;
}

extern "C" int64_t loom_program_pipeline_stages(const loom_program *program) {
  return program ? program->pipelineStages : 1;
}

extern "C" const char *loom_program_artifact_dir(const loom_program *program) {
  return program ? program->artifactDir.c_str() : nullptr;
}

extern "C" const char *loom_program_producer(const loom_program *program) {
  return program ? program->manifest.producer.c_str() : nullptr;
}

extern "C" const char *loom_program_model(const loom_program *program) {
  return program ? program->manifest.model.c_str() : nullptr;
}

extern "C" const char *loom_program_target_triple(const loom_program *program) {
  return program ? program->manifest.targetTriple.c_str() : nullptr;
}

extern "C" const char *loom_program_target_cpu(const loom_program *program) {
  return program ? program->manifest.targetCpu.c_str() : nullptr;
}

extern "C" size_t
loom_program_num_target_features(const loom_program *program) {
  return program ? program->manifest.targetFeatures.size() : 0;
}

extern "C" const char *loom_program_target_feature(const loom_program *program,
                                                   size_t index) {
  if (!program || index >= program->manifest.targetFeatures.size())
    return nullptr;
  return program->manifest.targetFeatures[index].c_str();
}

extern "C" const char *loom_program_target_device(const loom_program *program) {
  return program ? program->manifest.targetDevice.c_str() : nullptr;
}

extern "C" size_t loom_program_num_target_chips(const loom_program *program) {
  return program ? program->manifest.targetChips.size() : 0;
}

extern "C" const char *loom_program_target_chip(const loom_program *program,
                                                size_t index) {
  if (!program || index >= program->manifest.targetChips.size())
    return nullptr;
  return program->manifest.targetChips[index].c_str();
}

extern "C" int64_t
loom_program_target_arena_bytes(const loom_program *program) {
  return program ? program->manifest.targetArenaBytes : 0;
}

extern "C" loom_device *loom_program_device(const loom_program *program) {
  return program ? program->device : nullptr;
}
