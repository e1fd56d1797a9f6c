//===- DataLoader.h - Training batches from .npy and token files -*- C++
//-*-===//
//
// Fills the data inputs of a training step with the global batch
// (docs/Training.md). Example i of step s is chosen from (seed, s, i) alone,
// with a counter-based hash (splitmix64), so that runs are reproducible,
// resumable at any step, and independent of the number of ranks.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TRAIN_DATALOADER_H
#define LOOM_RUNTIME_TRAIN_DATALOADER_H

#include "core/Manifest.h"
#include "loom/runtime/Npy.h"
#include "loom/runtime/Support.h"
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loom::rt {

/// splitmix64's output function: a bijective mix of 64 bits.
uint64_t mix64(uint64_t x);

class DataLoader {
public:
  /// Binds every data input of `manifest` to a file of `data` (NAME=FILE);
  /// a token file bound to one input also fills the labels input. Checks
  /// every file against its input. Messages name the input and the file.
  bool open(const Manifest &manifest,
            const std::vector<std::pair<std::string, std::string>> &data,
            std::string &error);

  /// Fills `batches` (one whole global tensor per data input, in the order
  /// of training.data_inputs) for step `step`.
  void fill(int64_t step, uint64_t seed, std::vector<AlignedBuffer> &batches);

private:
  struct Source {
    /// Input index; for token files the labels input too (-1: none).
    int64_t input = -1;
    int64_t labels = -1;
    std::string path;
    bool tokens = false;
    NpyArray array;
    size_t exampleBytes = 0;
    /// Token files: the tokens.
    std::string tokenBytes;
    int64_t numTokens = 0;
  };
  const std::vector<uint32_t> &permutation(uint64_t seed, int64_t epoch);
  /// Labels outside [0, classes) other than -100 would index past the
  /// logits: false with a message naming the first.
  static bool checkLabels(const Source &source, const TrainingSpec &spec,
                          std::string &error);

  const Manifest *manifest = nullptr;
  std::vector<Source> sources;
  /// .npy examples (all .npy sources have as many).
  int64_t numExamples = 0;
  /// Permutations of the last two epochs used.
  std::vector<std::pair<int64_t, std::vector<uint32_t>>> permutations;
  uint64_t permutationSeed = 0;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_TRAIN_DATALOADER_H
