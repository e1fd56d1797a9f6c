//===- ManifestTraining.cpp - Updates and the training object -------------===//
//
// The keys of training artifacts (format_version 3, docs/Training.md): each
// parameter's update output, and the training object's loss, optimizer,
// schedule, scalar inputs and data.
//
//===----------------------------------------------------------------------===//

#include "core/Manifest.h"
#include "core/ManifestReader.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <cmath>
#include <unordered_map>

using namespace loom::rt;
using loom::rt::detail::ManifestReader;

bool ManifestReader::tensorIndex(const json::Value &object, const char *key,
                                 const std::string &keyPath, bool required,
                                 const std::vector<TensorSpec> &tensors,
                                 const char *list, int64_t &index) {
  index = -1;
  std::string name;
  if (!getString(object, key, keyPath, required, name))
    return false;
  const json::Value *value = object.find(key);
  if (!value || value->isNull())
    return true;
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name)
      index = static_cast<int64_t>(i);
  if (index < 0)
    return fail("'" + keyPath + "' names " + json::quote(name) +
                ", which is not one of the " + list);
  return true;
}

bool ManifestReader::readUpdates(Manifest &manifest) {
  std::vector<int64_t> updatedBy(manifest.outputs.size(), -1);
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    TensorSpec &parameter = manifest.parameters[i];
    if (parameter.update.empty())
      continue;
    std::string keyPath = "parameters[" + std::to_string(i) + "].update";
    for (size_t o = 0; o < manifest.outputs.size(); ++o)
      if (manifest.outputs[o].name == parameter.update)
        parameter.updateOutput = static_cast<int64_t>(o);
    if (parameter.updateOutput < 0)
      return fail("'" + keyPath + "' names " + json::quote(parameter.update) +
                  ", which is not an output");
    const TensorSpec &output = manifest.outputs[parameter.updateOutput];
    auto describe = [&](const TensorSpec &tensor) {
      std::string text = formatTensorType(tensor.dtype, tensor.shape);
      if (tensor.isSharded() || !tensor.sharding.empty()) {
        text += " (global " +
                formatTensorType(tensor.dtype, tensor.globalShape) +
                ", sharding [";
        for (size_t d = 0; d < tensor.shape.size(); ++d)
          text += (d ? ", [" : "[") +
                  manifest.axisNames(tensor.axesOf(d), ", ") + "]";
        text += "])";
      }
      return text;
    };
    bool same = output.dtype == parameter.dtype &&
                output.shape == parameter.shape &&
                output.globalShape == parameter.globalShape;
    for (size_t d = 0; same && d < parameter.shape.size(); ++d)
      same = output.axesOf(d) == parameter.axesOf(d);
    if (!same)
      return fail("'" + keyPath + "': output " + json::quote(output.name) +
                  " is " + describe(output) + ", but parameter " +
                  json::quote(parameter.name) + " is " + describe(parameter) +
                  "; an update must match its parameter exactly");
    int64_t &other = updatedBy[parameter.updateOutput];
    if (other >= 0)
      return fail("'" + keyPath + "' names output " + json::quote(output.name) +
                  ", which already updates parameters[" +
                  std::to_string(other) + "]");
    other = static_cast<int64_t>(i);
  }
  return true;
}

bool ManifestReader::readTraining(const json::Value &root, Manifest &manifest) {
  const json::Value *training = member(root, "training", "training", false);
  if (!training)
    return true;
  if (!training->isObject())
    return wrongType("training", "an object", *training);
  manifest.hasTraining = true;
  TrainingSpec &spec = manifest.training;
  auto checkScalarOutput = [&](int64_t index, const char *keyPath) {
    if (index < 0)
      return true;
    const TensorSpec &output = manifest.outputs[index];
    if (output.dtype != LOOM_DTYPE_FLOAT32 || !output.globalShape.empty())
      return fail(std::string("'") + keyPath + "' names output " +
                  json::quote(output.name) + ", which is " +
                  formatTensorType(output.dtype, output.globalShape) +
                  "; it must be a float32 scalar");
    return true;
  };
  if (!tensorIndex(*training, "loss", "training.loss", true, manifest.outputs,
                   "outputs", spec.lossOutput) ||
      !checkScalarOutput(spec.lossOutput, "training.loss") ||
      !tensorIndex(*training, "grad_norm", "training.grad_norm", false,
                   manifest.outputs, "outputs", spec.gradNormOutput) ||
      !checkScalarOutput(spec.gradNormOutput, "training.grad_norm"))
    return false;

  const json::Value *optimizer =
      member(*training, "optimizer", "training.optimizer", true);
  if (!optimizer)
    return false;
  if (!optimizer->isObject())
    return wrongType("training.optimizer", "an object", *optimizer);
  spec.optimizerJson = json::serialize(*optimizer);
  if (!getString(*optimizer, "kind", "training.optimizer.kind", true,
                 spec.optimizerKind) ||
      !getNumber(*optimizer, "lr", "training.optimizer.lr", true, spec.lr) ||
      !getNumber(*optimizer, "beta1", "training.optimizer.beta1", false,
                 spec.beta1) ||
      !getNumber(*optimizer, "beta2", "training.optimizer.beta2", false,
                 spec.beta2) ||
      !getNumber(*optimizer, "eps", "training.optimizer.eps", false,
                 spec.eps) ||
      !getNumber(*optimizer, "weight_decay", "training.optimizer.weight_decay",
                 false, spec.weightDecay) ||
      !getNumber(*optimizer, "momentum", "training.optimizer.momentum", false,
                 spec.momentum))
    return false;

  if (const json::Value *schedule =
          member(*training, "lr_schedule", "training.lr_schedule", false)) {
    if (!schedule->isObject())
      return wrongType("training.lr_schedule", "an object", *schedule);
    std::string kind;
    if (!getString(*schedule, "kind", "training.lr_schedule.kind", true, kind))
      return false;
    if (kind != "constant" && kind != "cosine")
      return fail("'training.lr_schedule.kind' is " + json::quote(kind) +
                  "; this runtime knows \"constant\" and \"cosine\"");
    spec.cosine = kind == "cosine";
    if (!getOptionalInteger(*schedule, "warmup", "training.lr_schedule.warmup",
                            0, spec.warmup) ||
        !getOptionalInteger(*schedule, "decay_steps",
                            "training.lr_schedule.decay_steps", 0,
                            spec.decaySteps) ||
        !getNumber(*schedule, "min_lr", "training.lr_schedule.min_lr", false,
                   spec.minLr))
      return false;
    if (spec.cosine && spec.decaySteps < 1)
      return fail("'training.lr_schedule.decay_steps' must be at least 1 for "
                  "the cosine schedule");
  }
  if (!getOptionalInteger(*training, "grad_accum", "training.grad_accum", 1,
                          spec.gradAccum) ||
      !getNumber(*training, "clip_grad_norm", "training.clip_grad_norm", false,
                 spec.clipGradNorm) ||
      !getOptionalInteger(*training, "zero", "training.zero", 0, spec.zero) ||
      !getOptionalInteger(*training, "tokens_per_example",
                          "training.tokens_per_example", 1,
                          spec.tokensPerExample) ||
      !getOptionalInteger(*training, "num_classes", "training.num_classes", 1,
                          spec.numClasses) ||
      !getNumber(*training, "flops_per_step", "training.flops_per_step", false,
                 spec.flopsPerStep))
    return false;
  if (!getInteger(*training, "batch", "training.batch", spec.batch))
    return false;
  if (spec.batch < 1)
    return fail("'training.batch' is " + std::to_string(spec.batch) +
                "; it must be at least 1");

  // Every input is filled by the runtime: a scalar by role, or data.
  std::vector<const char *> filledBy(manifest.inputs.size(), nullptr);
  if (const json::Value *scalars =
          member(*training, "scalars", "training.scalars", false)) {
    if (!scalars->isObject())
      return wrongType("training.scalars", "an object", *scalars);
    for (const json::Member &entry : scalars->getObject()) {
      std::string keyPath = "training.scalars." + entry.key;
      if (!entry.value.isString())
        return wrongType(keyPath, "a role name", entry.value);
      const std::string &role = entry.value.getString();
      ScalarRole kind;
      if (role == "lr")
        kind = ScalarRole::LearningRate;
      else if (role == "bias_correction1")
        kind = ScalarRole::BiasCorrection1;
      else if (role == "bias_correction2")
        kind = ScalarRole::BiasCorrection2;
      else if (role == "loss_scale")
        kind = ScalarRole::LossScale;
      else
        return fail("'" + keyPath + "' is " + json::quote(role) +
                    ", which is not a role this runtime fills (known: lr, "
                    "bias_correction1, bias_correction2, loss_scale)");
      int64_t index = -1;
      for (size_t i = 0; i < manifest.inputs.size(); ++i)
        if (manifest.inputs[i].name == entry.key)
          index = static_cast<int64_t>(i);
      if (index < 0)
        return fail("'" + keyPath + "': " + json::quote(entry.key) +
                    " is not an input");
      const TensorSpec &input = manifest.inputs[index];
      if (input.dtype != LOOM_DTYPE_FLOAT32 || !input.globalShape.empty())
        return fail("'" + keyPath + "': input " + json::quote(input.name) +
                    " is " + formatTensorType(input.dtype, input.globalShape) +
                    "; training scalars must be float32 scalars");
      filledBy[index] = "training.scalars";
      spec.scalars.emplace_back(index, kind);
    }
  }
  const json::Value *data =
      member(*training, "data_inputs", "training.data_inputs", true);
  if (!data)
    return false;
  if (!data->isArray())
    return wrongType("training.data_inputs", "an array of input names", *data);
  for (size_t k = 0; k < data->getArray().size(); ++k) {
    std::string keyPath = "training.data_inputs[" + std::to_string(k) + "]";
    const json::Value &name = data->getArray()[k];
    if (!name.isString())
      return wrongType(keyPath, "an input name", name);
    int64_t index = -1;
    for (size_t i = 0; i < manifest.inputs.size(); ++i)
      if (manifest.inputs[i].name == name.getString())
        index = static_cast<int64_t>(i);
    if (index < 0)
      return fail("'" + keyPath + "' names " + json::quote(name.getString()) +
                  ", which is not an input");
    if (filledBy[index])
      return fail("'" + keyPath + "': input " + json::quote(name.getString()) +
                  " is already filled by " + filledBy[index]);
    const TensorSpec &input = manifest.inputs[index];
    if (input.globalShape.empty() || input.globalShape[0] != spec.batch)
      return fail("'" + keyPath + "': input " + json::quote(input.name) +
                  " is " + formatTensorType(input.dtype, input.globalShape) +
                  ", but data inputs have the global batch (" +
                  std::to_string(spec.batch) + ") as dimension 0");
    filledBy[index] = "training.data_inputs";
    spec.dataInputs.push_back(index);
  }
  if (!tensorIndex(*training, "labels", "training.labels", false,
                   manifest.inputs, "inputs", spec.labelsInput))
    return false;
  if (spec.labelsInput >= 0 &&
      std::find(spec.dataInputs.begin(), spec.dataInputs.end(),
                spec.labelsInput) == spec.dataInputs.end())
    return fail("'training.labels' names input " +
                json::quote(manifest.inputs[spec.labelsInput].name) +
                ", which is not one of 'training.data_inputs'");
  for (size_t i = 0; i < manifest.inputs.size(); ++i)
    if (!filledBy[i])
      return fail("input " + json::quote(manifest.inputs[i].name) +
                  " is neither in 'training.data_inputs' nor in "
                  "'training.scalars': a training run cannot fill it");
  return true;
}

double TrainingSpec::learningRate(int64_t step) const {
  if (!cosine)
    return lr;
  if (step < warmup)
    return lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  double progress = static_cast<double>(std::min(step - warmup, decaySteps)) /
                    static_cast<double>(decaySteps);
  return minLr + (lr - minLr) * (1 + std::cos(M_PI * progress)) / 2;
}
