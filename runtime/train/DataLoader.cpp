//===- DataLoader.cpp - Training batches from .npy and token files --------===//

#include "train/DataLoader.h"
#include <algorithm>
#include <cstring>

using namespace loom::rt;

uint64_t loom::rt::mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {
/// The hash of (seed, a, b): three rounds, so that nearby counters give
/// unrelated values.
uint64_t hash3(uint64_t seed, uint64_t a, uint64_t b) {
  return mix64(mix64(mix64(seed) ^ a) ^ b);
}

bool isInteger(loom_dtype dtype) {
  switch (dtype) {
  case LOOM_DTYPE_INT8:
  case LOOM_DTYPE_INT16:
  case LOOM_DTYPE_INT32:
  case LOOM_DTYPE_INT64:
  case LOOM_DTYPE_UINT8:
  case LOOM_DTYPE_UINT16:
  case LOOM_DTYPE_UINT32:
  case LOOM_DTYPE_UINT64:
    return true;
  default:
    return false;
  }
}

/// Stores token `value` as element `index` of an integer tensor.
void storeToken(void *base, loom_dtype dtype, size_t index, uint16_t value) {
  switch (dtype) {
  case LOOM_DTYPE_INT8:
  case LOOM_DTYPE_UINT8:
    static_cast<uint8_t *>(base)[index] = static_cast<uint8_t>(value);
    break;
  case LOOM_DTYPE_INT16:
  case LOOM_DTYPE_UINT16:
    static_cast<uint16_t *>(base)[index] = value;
    break;
  case LOOM_DTYPE_INT32:
  case LOOM_DTYPE_UINT32:
    static_cast<uint32_t *>(base)[index] = value;
    break;
  default:
    static_cast<uint64_t *>(base)[index] = value;
    break;
  }
}

bool endsWith(const std::string &text, const char *suffix) {
  size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}
} // namespace

bool DataLoader::open(
    const Manifest &manifest,
    const std::vector<std::pair<std::string, std::string>> &data,
    std::string &error) {
  this->manifest = &manifest;
  const TrainingSpec &spec = manifest.training;
  auto dataNames = [&] {
    std::string text;
    for (int64_t index : spec.dataInputs)
      text += (text.empty() ? "" : ", ") + manifest.inputs[index].name + " " +
              formatTensorType(manifest.inputs[index].dtype,
                               manifest.inputs[index].globalShape);
    return text;
  };
  std::vector<const std::string *> given(manifest.inputs.size(), nullptr);
  for (const auto &[name, path] : data) {
    int64_t index = -1;
    for (int64_t candidate : spec.dataInputs)
      if (manifest.inputs[candidate].name == name)
        index = candidate;
    if (index < 0) {
      error = "--data " + name + "=" + path + ": '" + name +
              "' is not a data input; the data inputs are " + dataNames();
      return false;
    }
    if (given[index]) {
      error = "data input '" + name + "' is given twice (" + *given[index] +
              " and " + path + ")";
      return false;
    }
    given[index] = &path;
  }

  numExamples = 0;
  std::string firstNpy;
  for (int64_t index : spec.dataInputs) {
    if (!given[index])
      continue;
    const TensorSpec &input = manifest.inputs[index];
    Source source;
    source.input = index;
    source.path = *given[index];
    if (endsWith(source.path, ".npy")) {
      if (!readNpy(source.path, source.array, error)) {
        error = "data input '" + input.name + "': " + error;
        return false;
      }
      const NpyArray &array = source.array;
      bool sameShape = array.shape.size() == input.globalShape.size() &&
                       !array.shape.empty() &&
                       std::equal(array.shape.begin() + 1, array.shape.end(),
                                  input.globalShape.begin() + 1);
      if (!npyHolds(array.dtype, input.dtype) || !sameShape ||
          array.shape[0] < 1) {
        std::vector<int64_t> example(input.globalShape.begin() + 1,
                                     input.globalShape.end());
        error = "data input '" + input.name + "' takes examples of " +
                formatTensorType(input.dtype, example) +
                " (the file's dimension 0 indexes them), but " + source.path +
                " holds " + formatTensorType(array.dtype, array.shape);
        return false;
      }
      if (numExamples && array.shape[0] != numExamples) {
        error = "the .npy data must have as many examples: " + firstNpy +
                " has " + std::to_string(numExamples) + ", but " + source.path +
                " has " + std::to_string(array.shape[0]);
        return false;
      }
      // Permutations hold 32-bit example indices.
      if (array.shape[0] > int64_t(UINT32_MAX)) {
        error = source.path + " holds " + std::to_string(array.shape[0]) +
                " examples; the data loader takes at most " +
                std::to_string(UINT32_MAX);
        return false;
      }
      if (index == spec.labelsInput && !checkLabels(source, spec, error))
        return false;
      numExamples = array.shape[0];
      firstNpy = source.path;
      source.exampleBytes =
          input.globalNbytes / static_cast<size_t>(spec.batch);
    } else {
      // A flat little-endian uint16 token file for an int input [B, T].
      if (!isInteger(input.dtype) || input.globalShape.size() != 2) {
        error = "data input '" + input.name + "' is " +
                formatTensorType(input.dtype, input.globalShape) +
                "; a token file (" + source.path +
                ", not .npy) fills an integer input of shape [B, T]";
        return false;
      }
      if (!readFileToString(source.path, SIZE_MAX / 2, source.tokenBytes,
                            error)) {
        error = "data input '" + input.name + "': " + error;
        return false;
      }
      if (source.tokenBytes.size() % 2 != 0) {
        error = "token file " + source.path + " has an odd size (" +
                std::to_string(source.tokenBytes.size()) +
                " bytes); it must hold uint16 tokens";
        return false;
      }
      source.tokens = true;
      source.numTokens = static_cast<int64_t>(source.tokenBytes.size() / 2);
      int64_t length = input.globalShape[1];
      if (spec.labelsInput >= 0 && spec.labelsInput != index) {
        const TensorSpec &labels = manifest.inputs[spec.labelsInput];
        if (given[spec.labelsInput]) {
          error = "data input '" + labels.name +
                  "' is the labels, which the token file " + source.path +
                  " fills: do not pass --data " + labels.name;
          return false;
        }
        if (!isInteger(labels.dtype) ||
            labels.globalShape != input.globalShape) {
          error = "the labels input '" + labels.name + "' is " +
                  formatTensorType(labels.dtype, labels.globalShape) +
                  ", but token input '" + input.name + "' is " +
                  formatTensorType(input.dtype, input.globalShape);
          return false;
        }
        source.labels = spec.labelsInput;
      }
      if (source.labels >= 0 && !checkLabels(source, spec, error))
        return false;
      // Each example needs T tokens, and one more for the labels.
      int64_t needed = length + (source.labels >= 0 ? 1 : 0);
      if (source.numTokens < needed) {
        error = "token file " + source.path + " holds " +
                std::to_string(source.numTokens) +
                " tokens, fewer than one example needs (" +
                std::to_string(needed) + ")";
        return false;
      }
    }
    sources.push_back(std::move(source));
  }
  for (int64_t index : spec.dataInputs) {
    bool filled = given[index] != nullptr;
    for (const Source &source : sources)
      filled = filled || source.labels == index;
    if (!filled) {
      const TensorSpec &input = manifest.inputs[index];
      error = "missing data for input '" + input.name + "' (" +
              formatTensorType(input.dtype, input.globalShape) +
              "): pass --data " + input.name +
              "=FILE.npy (or a token file); the data inputs are " + dataNames();
      return false;
    }
  }
  return true;
}

bool DataLoader::checkLabels(const Source &source, const TrainingSpec &spec,
                             std::string &error) {
  if (spec.numClasses <= 0)
    return true;
  auto bad = [&](int64_t value, size_t position, const char *what) {
    error = source.path + " holds the label " + std::to_string(value) + " at " +
            what + " " + std::to_string(position) + ", but the model has " +
            std::to_string(spec.numClasses) + " classes (labels lie in [0, " +
            std::to_string(spec.numClasses) + ") or are -100)";
    return false;
  };
  if (source.tokens) {
    const auto *bytes =
        reinterpret_cast<const unsigned char *>(source.tokenBytes.data());
    for (int64_t i = 0; i < source.numTokens; ++i) {
      int64_t token = bytes[2 * i] | (bytes[2 * i + 1] << 8);
      if (token >= spec.numClasses)
        return bad(token, static_cast<size_t>(i), "token");
    }
    return true;
  }
  const NpyArray &array = source.array;
  size_t size = loom_dtype_size(array.dtype);
  if (size == 0)
    return true;
  size_t count = array.nbytes / size;
  const auto *data = static_cast<const char *>(array.data.data());
  for (size_t i = 0; i < count; ++i) {
    int64_t value = 0;
    switch (array.dtype) {
    case LOOM_DTYPE_INT64:
      value = reinterpret_cast<const int64_t *>(data)[i];
      break;
    case LOOM_DTYPE_INT32:
      value = reinterpret_cast<const int32_t *>(data)[i];
      break;
    case LOOM_DTYPE_INT16:
      value = reinterpret_cast<const int16_t *>(data)[i];
      break;
    case LOOM_DTYPE_UINT16:
      value = reinterpret_cast<const uint16_t *>(data)[i];
      break;
    case LOOM_DTYPE_INT8:
      value = reinterpret_cast<const int8_t *>(data)[i];
      break;
    case LOOM_DTYPE_UINT8:
      value = reinterpret_cast<const uint8_t *>(data)[i];
      break;
    default:
      return true;
    }
    if ((value < 0 && value != -100) || value >= spec.numClasses)
      return bad(value, i, "element");
  }
  return true;
}

const std::vector<uint32_t> &DataLoader::permutation(uint64_t seed,
                                                     int64_t epoch) {
  if (permutationSeed != seed)
    permutations.clear();
  permutationSeed = seed;
  for (auto &entry : permutations)
    if (entry.first == epoch)
      return entry.second;
  if (permutations.size() >= 2)
    permutations.erase(permutations.begin());
  // Fisher-Yates driven by the counter-based hash of (seed, epoch, i).
  std::vector<uint32_t> order(static_cast<size_t>(numExamples));
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<uint32_t>(i);
  for (size_t i = order.size(); i > 1; --i) {
    uint64_t r = hash3(seed ^ 0x5eedull, static_cast<uint64_t>(epoch), i) % i;
    std::swap(order[i - 1], order[r]);
  }
  permutations.emplace_back(epoch, std::move(order));
  return permutations.back().second;
}

void DataLoader::fill(int64_t step, uint64_t seed,
                      std::vector<AlignedBuffer> &batches) {
  const TrainingSpec &spec = manifest->training;
  auto slot = [&](int64_t input) -> AlignedBuffer & {
    size_t k = static_cast<size_t>(
        std::find(spec.dataInputs.begin(), spec.dataInputs.end(), input) -
        spec.dataInputs.begin());
    return batches[k];
  };
  int64_t batch = spec.batch;
  for (const Source &source : sources) {
    char *out = static_cast<char *>(slot(source.input).data());
    if (!source.tokens) {
      // Every example once per epoch, in an order that depends on the
      // seed and the epoch.
      for (int64_t i = 0; i < batch; ++i) {
        int64_t global = step * batch + i;
        int64_t epoch = global / numExamples;
        int64_t position = global % numExamples;
        uint32_t example = permutation(seed, epoch)[position];
        std::memcpy(out + i * source.exampleBytes,
                    static_cast<const char *>(source.array.data.data()) +
                        example * source.exampleBytes,
                    source.exampleBytes);
      }
      continue;
    }
    const TensorSpec &input = manifest->inputs[source.input];
    int64_t length = input.globalShape[1];
    int64_t windows = source.numTokens - length - (source.labels >= 0 ? 1 : 0);
    char *labels = source.labels >= 0
                       ? static_cast<char *>(slot(source.labels).data())
                       : nullptr;
    loom_dtype labelType = source.labels >= 0
                               ? manifest->inputs[source.labels].dtype
                               : LOOM_DTYPE_INVALID;
    const unsigned char *tokens =
        reinterpret_cast<const unsigned char *>(source.tokenBytes.data());
    auto token = [&](int64_t at) {
      return static_cast<uint16_t>(tokens[2 * at] | tokens[2 * at + 1] << 8);
    };
    for (int64_t i = 0; i < batch; ++i) {
      int64_t start = static_cast<int64_t>(
          hash3(seed, static_cast<uint64_t>(step), static_cast<uint64_t>(i)) %
          static_cast<uint64_t>(windows + 1));
      for (int64_t t = 0; t < length; ++t) {
        size_t index = static_cast<size_t>(i * length + t);
        storeToken(out, input.dtype, index, token(start + t));
        if (labels)
          storeToken(labels, labelType, index, token(start + t + 1));
      }
    }
  }
}
