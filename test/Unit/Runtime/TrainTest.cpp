//===- TrainTest.cpp - Training artifacts, parameters, safetensors --------===//

#include "RuntimeTestUtils.h"
#include "loom/runtime/Checkpoint.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Support.h"
#include "gtest/gtest.h"
#include <cstring>
#include <sys/stat.h>

using namespace loom::rt;
using namespace loom::rt::test;

namespace {
json::Value parse(const std::string &text) {
  json::Value value;
  json::ParseError error;
  EXPECT_TRUE(json::parse(text, value, error)) << error.format();
  return value;
}

/// The "tokens" program of TrainProgram.c on one device: B = 2, T = 3.
json::Value tokensManifest() {
  return parse(R"({
    "format": "loom-artifact", "format_version": 3, "runtime_abi": 3,
    "library": "program.so", "entry": "loom_entry_tokens",
    "mesh": {"axes": [{"name": "dp", "size": 1}]}, "groups": [["dp"]],
    "parameter_file": "parameters.bin",
    "parameters": [
      {"name": "cfg", "dtype": "int64", "shape": [2], "offset": 0,
       "nbytes": 16},
      {"name": "p", "dtype": "float32", "shape": [1], "offset": 64,
       "nbytes": 4, "update": "p.new"}],
    "inputs": [{"name": "ids", "dtype": "int32", "shape": [2, 3]},
               {"name": "labels", "dtype": "int32", "shape": [2, 3]},
               {"name": "lr", "dtype": "float32", "shape": []}],
    "outputs": [{"name": "loss", "dtype": "float32", "shape": []},
                {"name": "norm", "dtype": "float32", "shape": []},
                {"name": "p.new", "dtype": "float32", "shape": [1]}],
    "training": {"loss": "loss", "grad_norm": "norm",
                 "optimizer": {"kind": "sgd", "lr": 0.1},
                 "scalars": {"lr": "lr"}, "data_inputs": ["ids", "labels"],
                 "labels": "labels", "batch": 2}})");
}

std::string tokensParameters() {
  std::string bytes(68, '\0');
  const int64_t cfg[2] = {2, 3};
  const float p = 0.5f;
  std::memcpy(&bytes[0], cfg, sizeof(cfg));
  std::memcpy(&bytes[64], &p, sizeof(p));
  return bytes;
}

class TrainTest : public ::testing::Test {
protected:
  std::string artifact() const { return tmp.file("t.loom"); }
  loom_program *load(const json::Value &manifest, std::string &error) {
    std::string parameters = tokensParameters();
    EXPECT_TRUE(
        writeArtifact(artifact(), manifest, &parameters, LOOM_TEST_TRAIN));
    char message[1024] = "";
    loom_program *program =
        loom_program_load(artifact().c_str(), message, sizeof(message));
    error = message;
    return program;
  }
  TempDir tmp;
};

float parameterValue(const loom_program *program, size_t index) {
  float value = 0;
  std::memcpy(&value, loom_program_parameter_data(program, index),
              sizeof(value));
  return value;
}
} // namespace

TEST(SafetensorsTest, Crc32MatchesZlib) {
  EXPECT_EQ(crc32(0, "123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32(crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
  EXPECT_EQ(crc32(0, "", 0), 0u);
}

TEST(SafetensorsTest, RoundTrip) {
  TempDir tmp;
  const float a[6] = {1, 2, 3, 4, 5, 6};
  const int64_t b[1] = {-7};
  std::vector<safetensors::Tensor> tensors = {
      {"a:b", LOOM_DTYPE_FLOAT32, {2, 3}, a}, {"s", LOOM_DTYPE_INT64, {}, b}};
  std::string error;
  std::string path = tmp.file("x.safetensors");
  ASSERT_TRUE(safetensors::writeFile(path, tensors, {{"k", "v"}}, error))
      << error;
  std::string bytes = readFile(path);
  safetensors::Header header;
  ASSERT_TRUE(
      safetensors::parseHeader(bytes.data(), bytes.size(), path, header, error))
      << error;
  EXPECT_EQ(header.dataOffset % 8, 0u);
  ASSERT_EQ(header.tensors.size(), 2u);
  const safetensors::Entry *entry = header.find("a:b");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->dtype, LOOM_DTYPE_FLOAT32);
  EXPECT_EQ(entry->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(bytes.data() + header.dataOffset + entry->begin, a,
                        sizeof(a)),
            0);
  EXPECT_EQ(header.find("s")->begin, 24u);
  ASSERT_EQ(header.metadata.size(), 1u);
  EXPECT_EQ(header.metadata[0].second, "v");

  // Truncated: the message names the file and the tensor.
  EXPECT_FALSE(safetensors::parseHeader(bytes.data(), bytes.size() - 4, path,
                                        header, error));
  EXPECT_NE(error.find(path + ": truncated: tensor 's'"), std::string::npos)
      << error;
  EXPECT_FALSE(safetensors::parseHeader(bytes.data(), 5, path, header, error));
  EXPECT_NE(error.find("too short"), std::string::npos) << error;

  // int4 has no safetensors dtype.
  const uint8_t c[1] = {1};
  EXPECT_FALSE(safetensors::writeFile(path, {{"c", LOOM_DTYPE_INT4, {1}, c}},
                                      {}, error));
  EXPECT_NE(error.find("'c'"), std::string::npos) << error;
}

TEST_F(TrainTest, RunApplyUpdatesAndLoadParameters) {
  std::string error;
  loom_program *program = load(tokensManifest(), error);
  ASSERT_NE(program, nullptr) << error;
  EXPECT_EQ(loom_program_is_training(program), 1);
  EXPECT_EQ(loom_program_find_parameter(program, "p"), 1);
  EXPECT_EQ(loom_program_find_parameter(program, "q"), -1);
  EXPECT_EQ(loom_program_parameter_update(program, 1), 2);
  EXPECT_EQ(loom_program_parameter_update(program, 0), -1);
  // Owned, aligned blocks.
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(
        reinterpret_cast<uintptr_t>(loom_program_parameter_data(program, i)) %
            LOOM_ALIGNMENT,
        0u);
  alignas(64) int32_t ids[6] = {1, 2, 3, 4, 5, 6};
  alignas(64) int32_t labels[6] = {2, 3, 0, 5, 9, 0};
  alignas(64) float lr = 0.1f, loss = 0, norm = 0, pNew = 0;
  const void *inputs[3] = {ids, labels, &lr};
  void *outputs[3] = {&loss, &norm, &pNew};
  char message[1024];
  ASSERT_EQ(
      loom_program_run(program, inputs, outputs, message, sizeof(message)),
      LOOM_OK)
      << message;
  EXPECT_EQ(loss, 3.5f);
  EXPECT_EQ(norm, 1.0f); // labels[4] is not ids[5]
  EXPECT_EQ(pNew, 1.5f);
  EXPECT_EQ(parameterValue(program, 1), 0.5f);
  ASSERT_EQ(
      loom_program_apply_updates(program, outputs, message, sizeof(message)),
      LOOM_OK)
      << message;
  EXPECT_EQ(parameterValue(program, 1), 1.5f);
  ASSERT_EQ(
      loom_program_run(program, inputs, outputs, message, sizeof(message)),
      LOOM_OK);
  EXPECT_EQ(pNew, 2.5f);

  // From a safetensors file, by name; extra tensors are ignored.
  const int64_t cfg[2] = {2, 3};
  const float p[1] = {7};
  std::string path = tmp.file("p.safetensors");
  ASSERT_TRUE(safetensors::writeFile(path,
                                     {{"cfg", LOOM_DTYPE_INT64, {2}, cfg},
                                      {"p", LOOM_DTYPE_FLOAT32, {1}, p},
                                      {"extra", LOOM_DTYPE_FLOAT32, {1}, p}},
                                     {}, error));
  ASSERT_EQ(loom_program_load_parameters(program, path.c_str(), message,
                                         sizeof(message)),
            LOOM_OK)
      << message;
  EXPECT_EQ(parameterValue(program, 1), 7.0f);

  // A missing or misshapen parameter changes nothing.
  ASSERT_TRUE(safetensors::writeFile(path, {{"p", LOOM_DTYPE_FLOAT32, {1}, p}},
                                     {}, error));
  EXPECT_EQ(loom_program_load_parameters(program, path.c_str(), message,
                                         sizeof(message)),
            LOOM_ERROR_FORMAT);
  EXPECT_NE(std::string(message).find("has no tensor 'cfg'"), std::string::npos)
      << message;
  ASSERT_TRUE(safetensors::writeFile(
      path,
      {{"cfg", LOOM_DTYPE_INT64, {2}, cfg}, {"p", LOOM_DTYPE_FLOAT64, {}, cfg}},
      {}, error));
  EXPECT_EQ(loom_program_load_parameters(program, path.c_str(), message,
                                         sizeof(message)),
            LOOM_ERROR_FORMAT);
  EXPECT_NE(std::string(message).find(
                "tensor 'p' is float64[], but the artifact's parameter is "
                "float32[1]"),
            std::string::npos)
      << message;
  EXPECT_EQ(parameterValue(program, 1), 7.0f);

  // set_parameter takes the whole tensor.
  const float eight = 8;
  ASSERT_EQ(
      loom_program_set_parameter(program, 1, &eight, message, sizeof(message)),
      LOOM_OK);
  EXPECT_EQ(parameterValue(program, 1), 8.0f);
  loom_program_free(program);
}

TEST_F(TrainTest, ManifestErrorsNameTheKey) {
  struct Case {
    const char *path;
    const char *value;
    const char *message;
  };
  const Case cases[] = {
      {"parameters.1.update", "\"loss\"",
       "'parameters[1].update': output \"loss\" is float32[], but parameter "
       "\"p\" is float32[1]"},
      {"parameters.1.init", "\"random\"", "'parameters[1].init' is \"random\""},
      {"training.batch", "0", "'training.batch' is 0"},
      {"training.data_inputs", "[\"ids\", \"lr\"]",
       "'training.data_inputs[1]': input \"lr\" is already filled by "
       "training.scalars"},
      {"training.scalars", "{\"lr\": \"lr\", \"ids\": \"lr\"}",
       "'training.scalars.ids': input \"ids\" is int32[2,3]; training scalars "
       "must be float32 scalars"},
      {"training.lr_schedule",
       "{\"kind\": \"cosine\", \"warmup\": 1, \"decay_steps\": 0}",
       "'training.lr_schedule.decay_steps' must be at least 1"},
      {"training.loss", "\"p.new\"",
       "'training.loss' names output \"p.new\", which is float32[1]"},
  };
  for (const Case &c : cases) {
    json::Value manifest = tokensManifest();
    // Only paths of one or two object keys, or key.index.key.
    std::string path = c.path;
    size_t dot = path.find('.');
    std::string first = path.substr(0, dot), rest = path.substr(dot + 1);
    json::Value copy = *manifest.find(first);
    if (first == "parameters") {
      size_t index = std::stoul(rest.substr(0, rest.find('.')));
      std::string key = rest.substr(rest.find('.') + 1);
      copy.getArray()[index].set(key, parse(c.value));
    } else {
      copy.set(rest, parse(c.value));
    }
    manifest.set(first, copy);
    std::string error;
    loom_program *program = load(manifest, error);
    EXPECT_EQ(program, nullptr) << c.path;
    loom_program_free(program);
    EXPECT_NE(error.find("manifest.json: " + std::string(c.message)),
              std::string::npos)
        << error;
  }
}

TEST(CheckpointTest, StepNamesAndLatest) {
  TempDir tmp;
  EXPECT_EQ(checkpoint::stepName(100), "step-00000100");
  EXPECT_EQ(checkpoint::findLatest(tmp.path()), "");
  ::mkdir(tmp.file("step-00000002").c_str(), 0777);
  ::mkdir(tmp.file("step-00000010").c_str(), 0777);
  ::mkdir(tmp.file("step-00000011").c_str(), 0777); // incomplete
  ASSERT_TRUE(writeFile(tmp.file("step-00000002/manifest.json"), "{}"));
  ASSERT_TRUE(writeFile(tmp.file("step-00000010/manifest.json"), "{}"));
  EXPECT_EQ(checkpoint::listComplete(tmp.path()),
            (std::vector<std::string>{"step-00000002", "step-00000010"}));
  EXPECT_EQ(checkpoint::findLatest(tmp.path()), tmp.file("step-00000010"));
  // latest wins when it names a complete checkpoint, not otherwise.
  ASSERT_TRUE(writeFile(tmp.file("latest"), "step-00000002\n"));
  EXPECT_EQ(checkpoint::findLatest(tmp.path()), tmp.file("step-00000002"));
  ASSERT_TRUE(writeFile(tmp.file("latest"), "step-00000011\n"));
  EXPECT_EQ(checkpoint::findLatest(tmp.path()), tmp.file("step-00000010"));
  checkpoint::Info info;
  std::string error;
  EXPECT_FALSE(checkpoint::readInfo(tmp.file("step-00000010"), info, error));
  EXPECT_NE(error.find("step-00000010/manifest.json: missing key 'format'"),
            std::string::npos)
      << error;
}
