//===- ParameterUpdateTest.cpp - Parameters reach the device's caches -----===//
//
// The CPU device packs the B operand of a GEMM against a parameter once and
// keeps the packing by address. Every way a program's parameter changes
// (set, loaded, swapped with an update as the training loop does) must go
// through the device's parameter-update hook, or the next run multiplies by
// the old weights. The "gemm" entry of TestProgram.c computes y = x w.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "core/Program.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Support.h"
#include "gtest/gtest.h"
#include <cstring>
#include <vector>

using namespace loom::rt;
using namespace loom::rt::test;

namespace {
constexpr int64_t K = 64, N = 4, M = 2;

json::Value gemmManifest() {
  json::Value manifest;
  json::ParseError error;
  EXPECT_TRUE(json::parse(R"({
    "format": "loom-artifact", "format_version": 1, "runtime_abi": 2,
    "library": "program.so", "entry": "loom_entry_gemm",
    "parameter_file": "parameters.bin",
    "parameters": [{"name": "w", "dtype": "float32", "shape": [64, 4],
                    "offset": 0, "nbytes": 1024}],
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 64]}],
    "outputs": [{"name": "y", "dtype": "float32", "shape": [2, 4]}]})",
                          manifest, error))
      << error.format();
  return manifest;
}

std::vector<float> filled(size_t count, float value) {
  return std::vector<float>(count, value);
}

class ParameterUpdateTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::vector<float> ones = filled(K * N, 1.0f);
    std::string parameters(reinterpret_cast<const char *>(ones.data()),
                           ones.size() * sizeof(float));
    std::string dir = tmp.file("gemm.loom");
    ASSERT_TRUE(writeArtifact(dir, gemmManifest(), &parameters));
    char err[1024] = "";
    program = loom_program_load(dir.c_str(), err, sizeof(err));
    ASSERT_NE(program, nullptr) << err;
  }
  void TearDown() override { loom_program_free(program); }

  /// y[0][0] of a run on x = ones: the sum of column 0 of w.
  float run() {
    std::vector<float> x = filled(M * K, 1.0f), y = filled(M * N, -1.0f);
    const void *inputs[] = {x.data()};
    void *outputs[] = {y.data()};
    char err[1024] = "";
    EXPECT_EQ(loom_program_run(program, inputs, outputs, err, sizeof(err)),
              LOOM_OK)
        << err;
    for (float value : y)
      EXPECT_EQ(value, y[0]);
    return y[0];
  }

  void set(float value) {
    std::vector<float> w = filled(K * N, value);
    char err[1024] = "";
    ASSERT_EQ(
        loom_program_set_parameter(program, 0, w.data(), err, sizeof(err)),
        LOOM_OK)
        << err;
  }

  TempDir tmp;
  loom_program *program = nullptr;
};
} // namespace

TEST_F(ParameterUpdateTest, SettingAParameterReachesTheNextRun) {
  EXPECT_EQ(run(), 64.0f);
  set(2.0f); // the mapping gives way to an owned block
  EXPECT_EQ(run(), 128.0f);
  set(3.0f); // the same block, new contents
  EXPECT_EQ(run(), 192.0f);
}

TEST_F(ParameterUpdateTest, SwappingInAnUpdateReachesTheNextRun) {
  // The training loop swaps a parameter's buffer with its update output;
  // the old buffer then receives the next update, written by the program
  // (no hook), and comes back as the parameter one step later.
  set(1.0f);
  EXPECT_EQ(run(), 64.0f);
  AlignedBuffer update;
  ASSERT_TRUE(update.allocate(K * N * sizeof(float)));
  std::vector<float> twos = filled(K * N, 2.0f);
  std::memcpy(update.data(), twos.data(), update.size());
  swapParameter(*program, 0, update);
  EXPECT_EQ(run(), 128.0f);
  std::vector<float> threes = filled(K * N, 3.0f);
  std::memcpy(update.data(), threes.data(), update.size());
  swapParameter(*program, 0, update);
  EXPECT_EQ(run(), 192.0f);
}

TEST_F(ParameterUpdateTest, LoadingParametersReachesTheNextRun) {
  EXPECT_EQ(run(), 64.0f);
  std::vector<float> fives = filled(K * N, 5.0f);
  std::vector<safetensors::Tensor> tensors = {
      {"w", LOOM_DTYPE_FLOAT32, {K, N}, fives.data()}};
  std::string path = tmp.file("w.safetensors"), error;
  ASSERT_TRUE(safetensors::writeFile(path, tensors, {}, error)) << error;
  for (int round = 0; round < 2; ++round) {
    char err[1024] = "";
    ASSERT_EQ(
        loom_program_load_parameters(program, path.c_str(), err, sizeof(err)),
        LOOM_OK)
        << err;
    EXPECT_EQ(run(), 320.0f);
    set(1.0f);
    EXPECT_EQ(run(), 64.0f);
  }
}
