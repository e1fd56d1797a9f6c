//===- ProgramTest.cpp - Loading and running artifacts --------------------===//

#include "RuntimeTestUtils.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include "gtest/gtest.h"
#include <cstring>
#include <sys/stat.h>

using namespace loom::rt;
using namespace loom::rt::test;

namespace {
/// Owns a loaded program.
struct Program {
  loom_program *ptr = nullptr;
  explicit Program(loom_program *program) : ptr(program) {}
  ~Program() { loom_program_free(ptr); }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  loom_program *get() const { return ptr; }
};

class ArtifactTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_FALSE(tmp.path().empty()); }

  std::string artifact() const { return tmp.file("model.loom"); }

  /// Writes the artifact (the affine manifest unless given) and loads it,
  /// returning the error message, or "" when loading succeeded.
  std::string loadError(const json::Value &manifest,
                        const std::string *parameters,
                        const char *program = LOOM_TEST_PROGRAM) {
    EXPECT_TRUE(writeArtifact(artifact(), manifest, parameters, program));
    return loadError();
  }
  std::string loadError(const json::Value &manifest) {
    std::string parameters = affineParameters();
    return loadError(manifest, &parameters);
  }
  std::string loadError() {
    char err[2048] = "untouched";
    loom_program *program =
        loom_program_load(artifact().c_str(), err, sizeof(err));
    if (program) {
      loom_program_free(program);
      return "";
    }
    return err;
  }

  TempDir tmp;
};

/// A 64-byte-aligned buffer holding `bytes` at `offset`.
struct Buffer {
  AlignedBuffer storage;
  void *ptr;
  Buffer(size_t bytes, size_t offset = 0) {
    storage.allocate(bytes + offset);
    ptr = static_cast<char *>(storage.data()) + offset;
  }
};

TEST(RuntimeApi, VersionsAndDTypes) {
  EXPECT_EQ(loom_runtime_abi_version(), LOOM_RUNTIME_ABI_VERSION);
  EXPECT_STRNE(loom_runtime_version(), "");
  const struct {
    loom_dtype dtype;
    const char *name;
    size_t size;
  } expected[] = {
      {LOOM_DTYPE_FLOAT16, "float16", 2}, {LOOM_DTYPE_BFLOAT16, "bfloat16", 2},
      {LOOM_DTYPE_FLOAT32, "float32", 4}, {LOOM_DTYPE_FLOAT64, "float64", 8},
      {LOOM_DTYPE_INT8, "int8", 1},       {LOOM_DTYPE_INT16, "int16", 2},
      {LOOM_DTYPE_INT32, "int32", 4},     {LOOM_DTYPE_INT64, "int64", 8},
      {LOOM_DTYPE_UINT8, "uint8", 1},     {LOOM_DTYPE_BOOL, "bool", 1},
  };
  for (const auto &e : expected) {
    EXPECT_EQ(loom_dtype_size(e.dtype), e.size);
    EXPECT_STREQ(loom_dtype_name(e.dtype), e.name);
    EXPECT_EQ(loom_dtype_from_name(e.name), e.dtype);
  }
  EXPECT_EQ(loom_dtype_size(LOOM_DTYPE_INVALID), 0u);
  EXPECT_EQ(loom_dtype_size(static_cast<loom_dtype>(99)), 0u);
  EXPECT_EQ(loom_dtype_size(LOOM_DTYPE_MAX_ENUM), 0u);
  EXPECT_STREQ(loom_dtype_name(static_cast<loom_dtype>(99)), "invalid");
  EXPECT_EQ(loom_dtype_from_name(nullptr), LOOM_DTYPE_INVALID);
  EXPECT_EQ(loom_dtype_from_name("invalid"), LOOM_DTYPE_INVALID);
  EXPECT_EQ(loom_dtype_from_name("Float32"), LOOM_DTYPE_INVALID);
  EXPECT_EQ(loom_dtype_from_name(""), LOOM_DTYPE_INVALID);
}

TEST(RuntimeApi, AlignedMemoryAndThreads) {
  for (size_t size : {0u, 1u, 63u, 64u, 65u, 4096u}) {
    void *ptr = loom_aligned_alloc(size);
    ASSERT_NE(ptr, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % LOOM_ALIGNMENT, 0u);
    for (size_t i = 0; i < size; ++i)
      EXPECT_EQ(static_cast<unsigned char *>(ptr)[i], 0);
    loom_aligned_free(ptr);
  }
  EXPECT_EQ(loom_aligned_alloc(SIZE_MAX), nullptr);
  loom_aligned_free(nullptr);
  loom_set_num_threads(1);
  loom_set_num_threads(0); // Ignored.
}

TEST(RuntimeApi, NullHandlesAreSafe) {
  EXPECT_EQ(loom_program_num_inputs(nullptr), 0u);
  EXPECT_EQ(loom_program_num_outputs(nullptr), 0u);
  EXPECT_EQ(loom_program_num_parameters(nullptr), 0u);
  EXPECT_EQ(loom_program_input(nullptr, 0), nullptr);
  EXPECT_EQ(loom_program_find_input(nullptr, "x"), -1);
  EXPECT_EQ(loom_program_parameter_data(nullptr, 0), nullptr);
  EXPECT_EQ(loom_program_target_triple(nullptr), nullptr);
  loom_program_free(nullptr);
  char err[128];
  EXPECT_EQ(loom_program_run(nullptr, nullptr, nullptr, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "loom_program_run: the program is NULL");
  EXPECT_EQ(loom_program_load(nullptr, err, sizeof(err)), nullptr);
  EXPECT_STREQ(err, "loom_program_load: no artifact directory given");
  EXPECT_EQ(loom_program_load("", nullptr, 0), nullptr);
}

TEST_F(ArtifactTest, LoadsAndRunsAffine) {
  std::string parameters = affineParameters();
  ASSERT_TRUE(writeArtifact(artifact(), affineManifest(), &parameters));
  char err[1024] = "";
  Program program(loom_program_load(artifact().c_str(), err, sizeof(err)));
  ASSERT_NE(program.get(), nullptr) << err;

  EXPECT_STREQ(loom_program_artifact_dir(program.get()), artifact().c_str());
  EXPECT_STREQ(loom_program_producer(program.get()), "hand-written test");
  EXPECT_STREQ(loom_program_model(program.get()), "affine.onnx");
  EXPECT_STREQ(loom_program_target_triple(program.get()),
               "x86_64-unknown-linux-gnu");
  EXPECT_STREQ(loom_program_target_cpu(program.get()), "generic");
  EXPECT_EQ(loom_program_num_target_features(program.get()), 0u);
  EXPECT_EQ(loom_program_target_feature(program.get(), 0), nullptr);

  ASSERT_EQ(loom_program_num_parameters(program.get()), 1u);
  ASSERT_EQ(loom_program_num_inputs(program.get()), 1u);
  ASSERT_EQ(loom_program_num_outputs(program.get()), 2u);
  const loom_tensor_info *p = loom_program_parameter(program.get(), 0);
  EXPECT_STREQ(p->name, "p");
  EXPECT_EQ(p->nbytes, 12u);
  const float *pData =
      static_cast<const float *>(loom_program_parameter_data(program.get(), 0));
  ASSERT_NE(pData, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pData) % LOOM_ALIGNMENT, 0u);
  EXPECT_EQ(pData[1], 2.0f);
  EXPECT_EQ(loom_program_parameter_data(program.get(), 1), nullptr);

  const loom_tensor_info *x = loom_program_input(program.get(), 0);
  EXPECT_STREQ(x->name, "x");
  EXPECT_EQ(x->dtype, LOOM_DTYPE_FLOAT32);
  ASSERT_EQ(x->rank, 2);
  EXPECT_EQ(x->shape[0], 2);
  EXPECT_EQ(x->shape[1], 3);
  EXPECT_EQ(x->num_elements, 6);
  EXPECT_EQ(x->nbytes, 24u);
  const loom_tensor_info *count = loom_program_output(program.get(), 1);
  EXPECT_STREQ(count->name, "count");
  EXPECT_EQ(count->rank, 0);
  EXPECT_EQ(count->shape, nullptr);
  EXPECT_EQ(count->num_elements, 1);
  EXPECT_EQ(count->nbytes, 8u);
  EXPECT_EQ(loom_program_output(program.get(), 2), nullptr);
  EXPECT_EQ(loom_program_find_input(program.get(), "x"), 0);
  EXPECT_EQ(loom_program_find_input(program.get(), "y"), -1);
  EXPECT_EQ(loom_program_find_output(program.get(), "count"), 1);
  EXPECT_EQ(loom_program_find_output(program.get(), nullptr), -1);

  // Aligned buffers, then the same through misaligned ones (the runtime
  // copies them; the program reports misalignment as count = -1).
  for (size_t offset : {0u, 4u}) {
    Buffer xBuf(24, offset), yBuf(24, offset), countBuf(8, offset);
    const float xs[6] = {0, 1, 2, 3, 4, 5};
    std::memcpy(xBuf.ptr, xs, sizeof(xs));
    const void *inputs[] = {xBuf.ptr};
    void *outputs[] = {yBuf.ptr, countBuf.ptr};
    ASSERT_EQ(
        loom_program_run(program.get(), inputs, outputs, err, sizeof(err)),
        LOOM_OK)
        << err;
    const float expected[6] = {1, 3, -1, 2.5f, 9, -4};
    float ys[6];
    std::memcpy(ys, yBuf.ptr, sizeof(ys));
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(ys[i], expected[i])
          << "offset " << offset << ", y[" << i << "]";
    int64_t positive;
    std::memcpy(&positive, countBuf.ptr, sizeof(positive));
    EXPECT_EQ(positive, 4) << "offset " << offset;
  }
}

TEST_F(ArtifactTest, RunRejectsBadBuffers) {
  std::string parameters = affineParameters();
  ASSERT_TRUE(writeArtifact(artifact(), affineManifest(), &parameters));
  Program program(loom_program_load(artifact().c_str(), nullptr, 0));
  ASSERT_NE(program.get(), nullptr);
  char err[256];
  Buffer yBuf(24), countBuf(8);
  void *outputs[] = {yBuf.ptr, countBuf.ptr};
  EXPECT_EQ(loom_program_run(program.get(), nullptr, outputs, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "loom_program_run: the inputs array is NULL");
  const void *nullInput[] = {nullptr};
  EXPECT_EQ(
      loom_program_run(program.get(), nullInput, outputs, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "loom_program_run: input 0 ('x') is NULL");
  Buffer xBuf(24);
  const void *inputs[] = {xBuf.ptr};
  void *nullOutput[] = {yBuf.ptr, nullptr};
  EXPECT_EQ(
      loom_program_run(program.get(), inputs, nullOutput, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "loom_program_run: output 1 ('count') is NULL");
  // A short error buffer gets a truncated, terminated message.
  char tiny[8];
  EXPECT_EQ(
      loom_program_run(program.get(), inputs, nullOutput, tiny, sizeof(tiny)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tiny, "loom_pr");
}

TEST_F(ArtifactTest, ScalarsAndEmptyTensorsWithoutParameters) {
  json::Value manifest = affineManifest();
  manifest.set("entry", json::Value::string("loom_entry_scalar"));
  manifest.erase("parameter_file");
  manifest.set("parameters", json::Value::array());
  json::Value inputs = json::Value::array();
  inputs.push_back(tensorJson("s", "float64", {}));
  inputs.push_back(tensorJson("e", "float32", {0}));
  manifest.set("inputs", std::move(inputs));
  json::Value outputs = json::Value::array();
  outputs.push_back(tensorJson("r", "float64", {}));
  outputs.push_back(tensorJson("empty", "int32", {0, 3}));
  manifest.set("outputs", std::move(outputs));
  ASSERT_TRUE(writeArtifact(artifact(), manifest, nullptr));
  char err[1024];
  Program program(loom_program_load(artifact().c_str(), err, sizeof(err)));
  ASSERT_NE(program.get(), nullptr) << err;
  EXPECT_EQ(loom_program_input(program.get(), 1)->nbytes, 0u);
  EXPECT_EQ(loom_program_output(program.get(), 1)->num_elements, 0);
  double s = 21, r = 0;
  // Zero-byte tensors may be passed as NULL.
  const void *in[] = {&s, nullptr};
  void *out[] = {&r, nullptr};
  ASSERT_EQ(loom_program_run(program.get(), in, out, err, sizeof(err)), LOOM_OK)
      << err;
  EXPECT_EQ(r, 42.0);
}

TEST_F(ArtifactTest, TwoArtifactsAtOnce) {
  std::string parameters = affineParameters();
  std::string other = tmp.file("other.loom");
  ASSERT_TRUE(writeArtifact(artifact(), affineManifest(), &parameters));
  const float otherP[3] = {1, 1, 1};
  std::string otherParameters(reinterpret_cast<const char *>(otherP), 12);
  ASSERT_TRUE(writeArtifact(other, affineManifest(), &otherParameters));
  Program a(loom_program_load(artifact().c_str(), nullptr, 0));
  Program b(loom_program_load(other.c_str(), nullptr, 0));
  ASSERT_NE(a.get(), nullptr);
  ASSERT_NE(b.get(), nullptr);
  Buffer xBuf(24), yBuf(24), countBuf(8);
  const float xs[6] = {1, 1, 1, 1, 1, 1};
  std::memcpy(xBuf.ptr, xs, sizeof(xs));
  const void *inputs[] = {xBuf.ptr};
  void *outputs[] = {yBuf.ptr, countBuf.ptr};
  ASSERT_EQ(loom_program_run(b.get(), inputs, outputs, nullptr, 0), LOOM_OK);
  EXPECT_EQ(static_cast<float *>(yBuf.ptr)[2], 2.0f);
  ASSERT_EQ(loom_program_run(a.get(), inputs, outputs, nullptr, 0), LOOM_OK);
  EXPECT_EQ(static_cast<float *>(yBuf.ptr)[2], 0.0f);
}

TEST_F(ArtifactTest, UnknownKeysAreIgnored) {
  json::Value manifest = affineManifest();
  manifest.set("future_key", json::Value::object());
  json::Value inputs = json::Value::array();
  json::Value x = tensorJson("x", "float32", {2, 3});
  x.set("layout", json::Value::string("row-major"));
  inputs.push_back(std::move(x));
  manifest.set("inputs", std::move(inputs));
  EXPECT_EQ(loadError(manifest), "");
}

TEST_F(ArtifactTest, ManifestOnlyLoading) {
  // Describes artifacts whose program cannot be loaded here.
  json::Value manifest = affineManifest();
  ASSERT_TRUE(writeArtifact(artifact(), manifest, nullptr, nullptr));
  char err[512];
  Program program(loom_program_load_with_flags(
      artifact().c_str(), LOOM_LOAD_MANIFEST_ONLY, err, sizeof(err)));
  ASSERT_NE(program.get(), nullptr) << err;
  EXPECT_EQ(loom_program_num_outputs(program.get()), 2u);
  EXPECT_EQ(loom_program_run(program.get(), nullptr, nullptr, err, sizeof(err)),
            LOOM_ERROR_UNSUPPORTED);
  EXPECT_EQ(std::string(err),
            "loom_program_run: artifact '" + artifact() +
                "' was loaded with LOOM_LOAD_MANIFEST_ONLY and cannot run");
}

//===----------------------------------------------------------------------===//
// Load errors
//===----------------------------------------------------------------------===//

TEST_F(ArtifactTest, MissingOrWrongArtifactPath) {
  char err[512];
  std::string missing = tmp.file("missing.loom");
  EXPECT_EQ(loom_program_load(missing.c_str(), err, sizeof(err)), nullptr);
  EXPECT_EQ(std::string(err), "cannot open artifact '" + missing +
                                  "': No such file or directory");
  ASSERT_TRUE(writeFile(tmp.file("file.loom"), "x"));
  EXPECT_EQ(loom_program_load(tmp.file("file.loom").c_str(), err, sizeof(err)),
            nullptr);
  EXPECT_EQ(std::string(err), "'" + tmp.file("file.loom") +
                                  "' is not an artifact: artifacts are "
                                  "directories (MODEL.loom/) holding "
                                  "manifest.json");
  ::mkdir(artifact().c_str(), 0777);
  EXPECT_EQ(loadError(), "cannot open '" + artifact() +
                             "/manifest.json': No such file or directory");
}

TEST_F(ArtifactTest, MalformedJson) {
  ::mkdir(artifact().c_str(), 0777);
  ASSERT_TRUE(writeFile(artifact() + "/manifest.json",
                        "{\n  \"format\": \"loom-artifact\",\n  \"inputs\": "
                        "[1, 2,]\n}\n"));
  EXPECT_EQ(loadError(), artifact() +
                             "/manifest.json: invalid JSON at byte 49 (line "
                             "3, column 19): expected a JSON value, found "
                             "']'");
  ASSERT_TRUE(writeFile(artifact() + "/manifest.json", ""));
  EXPECT_EQ(loadError(), artifact() +
                             "/manifest.json: invalid JSON at byte 0 (line 1, "
                             "column 1): expected a JSON value, found the end "
                             "of the input");
  ASSERT_TRUE(writeFile(artifact() + "/manifest.json", "[]"));
  EXPECT_EQ(loadError(), artifact() + "/manifest.json: the manifest must be a "
                                      "JSON object, found array");
}

TEST_F(ArtifactTest, FormatAndVersions) {
  const std::string manifestPath = artifact() + "/manifest.json";
  json::Value manifest = affineManifest();
  manifest.erase("format");
  EXPECT_EQ(loadError(manifest),
            manifestPath + ": missing key 'format': this is not a Loom "
                           "artifact manifest (expected \"format\": "
                           "\"loom-artifact\")");
  manifest.set("format", json::Value::string("onnx"));
  EXPECT_EQ(loadError(manifest),
            manifestPath + ": 'format' is \"onnx\", expected "
                           "\"loom-artifact\": this is not a Loom artifact "
                           "manifest");
  manifest = affineManifest();
  manifest.set("format_version", json::Value::integer(6));
  // The version is checked before the rest of a manifest whose schema may
  // differ.
  manifest.erase("inputs");
  EXPECT_EQ(loadError(manifest),
            manifestPath + ": artifact '" + artifact() +
                "' has format_version 6; this runtime reads format_version "
                "1 to 5: recompile it with a matching loomc");
  manifest.set("format_version", json::Value::integer(0));
  EXPECT_EQ(loadError(manifest),
            manifestPath + ": artifact '" + artifact() +
                "' has format_version 0; this runtime reads format_version "
                "1 to 5: recompile it with a matching loomc");
  // Every version before the checksums loads without them.
  for (int version : {1, 2, 3, 4}) {
    manifest = affineManifest();
    manifest.set("format_version", json::Value::integer(version));
    EXPECT_EQ(loadError(manifest), "");
  }
  manifest = affineManifest();
  manifest.set("runtime_abi", json::Value::integer(5));
  EXPECT_EQ(
      loadError(manifest),
      manifestPath + ": artifact '" + artifact() +
          "' was built for runtime ABI 5; this runtime supports ABI 1 to 4: "
          "recompile it with a matching loomc");
  manifest.set("runtime_abi", json::Value::string("1"));
  EXPECT_EQ(loadError(manifest),
            manifestPath + ": 'runtime_abi' must be an integer, found string");
  manifest.erase("runtime_abi");
  EXPECT_EQ(loadError(manifest), manifestPath + ": missing key 'runtime_abi'");
}

TEST_F(ArtifactTest, ManifestKeyErrors) {
  const std::string at = artifact() + "/manifest.json: ";
  struct Case {
    void (*edit)(json::Value &);
    std::string message;
  };
  const Case cases[] = {
      {[](json::Value &m) { m.erase("entry"); }, "missing key 'entry'"},
      {[](json::Value &m) { m.set("entry", json::Value::string("")); },
       "'entry' must name a symbol, found \"\""},
      {[](json::Value &m) { m.erase("outputs"); }, "missing key 'outputs'"},
      {[](json::Value &m) { m.set("inputs", json::Value::object()); },
       "'inputs' must be an array, found object"},
      {[](json::Value &m) { m.set("library", json::Value::integer(3)); },
       "'library' must be a string, found number"},
      {[](json::Value &m) {
         m.set("library", json::Value::string("/etc/program.so"));
       },
       "'library' must be a path inside the artifact, found "
       "\"/etc/program.so\""},
      {[](json::Value &m) {
         m.set("parameter_file", json::Value::string("a/../../p.bin"));
       },
       "'parameter_file' must be a path inside the artifact, found "
       "\"a/../../p.bin\""},
      {[](json::Value &m) { m.set("target", json::Value::string("x86")); },
       "'target' must be an object, found string"},
      {[](json::Value &m) {
         json::Value target = json::Value::object();
         json::Value features = json::Value::array();
         features.push_back(json::Value::integer(1));
         target.set("features", std::move(features));
         m.set("target", std::move(target));
       },
       "'target.features[0]' must be a string, found number"},
      {[](json::Value &m) {
         json::Value inputs = json::Value::array();
         inputs.push_back(tensorJson("x", "float8", {2, 3}));
         m.set("inputs", std::move(inputs));
       },
       "'inputs[0].dtype' is \"float8\", which is not a dtype this runtime "
       "knows (known: float16, bfloat16, float32, float64, int8, int16, "
       "int32, int64, uint8, uint16, uint32, uint64, bool, float8e4m3fn, "
       "float8e4m3fnuz, float8e5m2, float8e5m2fnuz, int4, uint4)"},
      {[](json::Value &m) {
         json::Value inputs = json::Value::array();
         inputs.push_back(tensorJson("x", "float32", {2, -3}));
         m.set("inputs", std::move(inputs));
       },
       "'inputs[0].shape[1]' is -3; dimensions must not be negative"},
      {[](json::Value &m) {
         json::Value outputs = json::Value::array();
         json::Value y = tensorJson("y", "float32", {});
         json::Value shape = json::Value::array();
         shape.push_back(json::Value::number(2.5));
         y.set("shape", std::move(shape));
         outputs.push_back(std::move(y));
         m.set("outputs", std::move(outputs));
       },
       "'outputs[0].shape[0]' must be an integer, found number"},
      {[](json::Value &m) {
         json::Value inputs = json::Value::array();
         inputs.push_back(
             tensorJson("x", "float32", {1ll << 40, 1ll << 40, 1ll << 40}));
         m.set("inputs", std::move(inputs));
       },
       "'inputs[0].shape' describes a tensor too large to address"},
      {[](json::Value &m) {
         json::Value inputs = json::Value::array();
         inputs.push_back(tensorJson("x", "float32", {2, 3}));
         inputs.push_back(tensorJson("x", "int64", {}));
         m.set("inputs", std::move(inputs));
       },
       "'inputs[1].name' \"x\" repeats the name of inputs[0]"},
      {[](json::Value &m) {
         json::Value inputs = json::Value::array();
         inputs.push_back(tensorJson("", "float32", {2, 3}));
         m.set("inputs", std::move(inputs));
       },
       "'inputs[0].name' must not be empty"},
      {[](json::Value &m) {
         json::Value inputs = json::Value::array();
         json::Value x = tensorJson("x", "float32", {2, 3});
         x.erase("shape");
         inputs.push_back(std::move(x));
         m.set("inputs", std::move(inputs));
       },
       "missing key 'inputs[0].shape'"},
      {[](json::Value &m) {
         json::Value parameters = json::Value::array();
         json::Value p = tensorJson("p", "float32", {3});
         p.set("offset", json::Value::integer(32));
         p.set("nbytes", json::Value::integer(12));
         parameters.push_back(std::move(p));
         m.set("parameters", std::move(parameters));
       },
       "'parameters[0].offset' is 32, which is not a multiple of 64"},
      {[](json::Value &m) {
         json::Value parameters = json::Value::array();
         json::Value p = tensorJson("p", "float32", {3});
         p.set("offset", json::Value::integer(0));
         p.set("nbytes", json::Value::integer(16));
         parameters.push_back(std::move(p));
         m.set("parameters", std::move(parameters));
       },
       "'parameters[0].nbytes' is 16, but float32[3] takes 12 bytes"},
      {[](json::Value &m) {
         json::Value parameters = json::Value::array();
         json::Value p = tensorJson("p", "float32", {3});
         p.set("nbytes", json::Value::integer(12));
         parameters.push_back(std::move(p));
         m.set("parameters", std::move(parameters));
       },
       "missing key 'parameters[0].offset'"},
      {[](json::Value &m) { m.erase("parameter_file"); },
       "'parameters' lists data (p) but there is no 'parameter_file'"},
  };
  for (const Case &c : cases) {
    json::Value manifest = affineManifest();
    c.edit(manifest);
    EXPECT_EQ(loadError(manifest), at + c.message);
  }
}

TEST_F(ArtifactTest, ParameterFileProblems) {
  json::Value manifest = affineManifest();
  EXPECT_EQ(loadError(manifest, nullptr),
            "cannot open parameter file '" + artifact() +
                "/parameters.bin': No such file or directory");
  std::string shortParameters(8, '\0');
  EXPECT_EQ(loadError(manifest, &shortParameters),
            "parameter file '" + artifact() +
                "/parameters.bin' is too short: it has 8 bytes, but "
                "parameter 'p' needs bytes 0 to 12");
  // Larger files are fine (e.g. padding after the last parameter).
  std::string longer = affineParameters() + std::string(100, '\0');
  EXPECT_EQ(loadError(manifest, &longer), "");
}

TEST_F(ArtifactTest, ProgramLibraryProblems) {
  json::Value manifest = affineManifest();
  std::string parameters = affineParameters();
  EXPECT_EQ(loadError(manifest, &parameters, nullptr),
            "cannot open program library '" + artifact() +
                "/program.so': No such file or directory");
  ASSERT_TRUE(writeFile(artifact() + "/program.so", "not an ELF file"));
  std::string error = loadError();
  EXPECT_EQ(error.rfind("cannot load program library '" + artifact() +
                            "/program.so': ",
                        0),
            0u)
      << error;

  EXPECT_EQ(loadError(manifest, &parameters, LOOM_TEST_PROGRAM_UNDEFINED),
            "cannot load program library '" + artifact() +
                "/program.so': " + artifact() +
                "/program.so: undefined symbol: loom_kernel_from_the_future "
                "(the program calls a function this runtime does not "
                "provide: it needs a runtime built with the loomc that "
                "compiled it)");

  manifest.set("entry", json::Value::string("no_such_entry"));
  EXPECT_EQ(loadError(manifest, &parameters),
            "program library '" + artifact() +
                "/program.so' does not export the entry symbol "
                "'no_such_entry'");
}

TEST_F(ArtifactTest, TargetChecks) {
  json::Value manifest = affineManifest();
  json::Value target = json::Value::object();
  target.set("triple", json::Value::string("aarch64-unknown-linux-gnu"));
  manifest.set("target", target);
#if defined(__x86_64__)
  EXPECT_EQ(loadError(manifest),
            "artifact '" + artifact() +
                "' was compiled for aarch64-unknown-linux-gnu, but this "
                "machine is x86_64: recompile it for this machine");

  // Unknown features are ignored, disabled ones need nothing, and LLVM's
  // "+feature" spelling is understood.
  json::Value features = json::Value::array();
  features.push_back(json::Value::string("frobnicate"));
  features.push_back(json::Value::string("-xop"));
  features.push_back(json::Value::string("+sse2"));
  features.push_back(json::Value::string("sse2"));
  target.set("triple", json::Value::string("x86_64-pc-linux-gnu"));
  target.set("features", features);
  manifest.set("target", target);
  EXPECT_EQ(loadError(manifest), "");

  __builtin_cpu_init();
  if (__builtin_cpu_supports("xop") || __builtin_cpu_supports("fma4"))
    GTEST_SKIP() << "this CPU has xop and fma4";
  features.push_back(json::Value::string("xop"));
  features.push_back(json::Value::string("+fma4"));
  target.set("cpu", json::Value::string("bdver1"));
  target.set("features", features);
  manifest.set("target", target);
  EXPECT_EQ(loadError(manifest),
            "artifact '" + artifact() +
                "' was compiled for CPU features this machine lacks: xop, "
                "fma4 (target cpu 'bdver1'): recompile it for this machine");
#endif
}

TEST_F(ArtifactTest, TargetDevice) {
  // Without "target.device" (the affine manifest) artifacts run on the CPU.
  std::string parameters = affineParameters();
  ASSERT_TRUE(writeArtifact(artifact(), affineManifest(), &parameters));
  char err[1024] = "";
  {
    Program program(loom_program_load(artifact().c_str(), err, sizeof(err)));
    ASSERT_NE(program.get(), nullptr) << err;
    EXPECT_STREQ(loom_program_target_device(program.get()), "cpu");
    EXPECT_STREQ(loom_device_kind(loom_program_device(program.get())), "cpu");
  }

  // Another kind is a plugin: the CPU device loaded as one runs it too.
  json::Value manifest = affineManifest();
  json::Value target = json::Value::object();
  target.set("device", json::Value::string("testcpu"));
  manifest.set("target", target);
  ASSERT_TRUE(writeArtifact(artifact(), manifest, &parameters));
  {
    Program program(loom_program_load(artifact().c_str(), err, sizeof(err)));
    ASSERT_NE(program.get(), nullptr) << err;
    EXPECT_STREQ(loom_device_kind(loom_program_device(program.get())),
                 "testcpu");
    float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {0};
    int64_t count = 0;
    const void *inputs[] = {x};
    void *outputs[] = {y, &count};
    ASSERT_EQ(
        loom_program_run(program.get(), inputs, outputs, err, sizeof(err)),
        LOOM_OK)
        << err;
    EXPECT_EQ(y[1], 5.0f); // 2 * 2 + 1
  }

  // A kind this runtime lacks fails the load (not the manifest).
  target.set("device", json::Value::string("tpu"));
  manifest.set("target", target);
  EXPECT_EQ(loadError(manifest),
            "artifact '" + artifact() +
                "' runs on device 'tpu': no device 'tpu' in this runtime "
                "(libloom_device_tpu.so not found)");
  {
    Program program(loom_program_load_with_flags(
        artifact().c_str(), LOOM_LOAD_MANIFEST_ONLY, err, sizeof(err)));
    ASSERT_NE(program.get(), nullptr) << err;
    EXPECT_STREQ(loom_program_target_device(program.get()), "tpu");
    EXPECT_EQ(loom_program_device(program.get()), nullptr);
  }

  target.set("device", json::Value::string(""));
  manifest.set("target", target);
  EXPECT_NE(loadError(manifest).find(
                "'target.device' must name a device kind (such as \"cpu\"), "
                "found \"\""),
            std::string::npos);
  target.set("device", json::Value::integer(3));
  manifest.set("target", target);
  EXPECT_NE(loadError(manifest).find("'target.device' must be a string"),
            std::string::npos)
      << loadError(manifest);
}

TEST_F(ArtifactTest, ErrorBuffersAreOptional) {
  char err[16];
  std::memset(err, 'x', sizeof(err));
  std::string missing = tmp.file("missing.loom");
  EXPECT_EQ(loom_program_load(missing.c_str(), err, sizeof(err)), nullptr);
  EXPECT_EQ(std::strlen(err), sizeof(err) - 1);
  EXPECT_EQ(loom_program_load(missing.c_str(), nullptr, 100), nullptr);
  EXPECT_EQ(loom_program_load(missing.c_str(), err, 0), nullptr);
}
} // namespace
