//===- ArtifactChecksTest.cpp - CRC-32 and the signature check ------------===//
//
// The checks the loader makes beyond the manifest (core/ArtifactChecks.h):
// the CRC-32 the artifact's `files` record, and the manifest against the
// signature a program exports, including signatures no loomc would write.
//
//===----------------------------------------------------------------------===//

#include "core/ArtifactChecks.h"
#include "core/Manifest.h"
#include "loom/runtime/Support.h"
#include "gtest/gtest.h"
#include <string>

using namespace loom::rt;

TEST(ArtifactChecks, Crc32IsZlibs) {
  // zlib.crc32(b"123456789") and of nothing.
  EXPECT_EQ(crc32(0, "123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32(0, "", 0), 0u);
  // Continuing a CRC gives the CRC of the concatenation, at every split
  // (the eight-byte steps and the byte tail must agree).
  std::string text = "The quick brown fox jumps over the lazy dog, twice.";
  uint32_t whole = crc32(0, text.data(), text.size());
  for (size_t split = 0; split <= text.size(); ++split)
    EXPECT_EQ(crc32(crc32(0, text.data(), split), text.data() + split,
                    text.size() - split),
              whole);
}

namespace {
Manifest affine() {
  std::string text = R"({"format": "loom-artifact", "format_version": 1,
    "runtime_abi": 1, "library": "program.so", "entry": "loom_entry",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 3]}],
    "outputs": [{"name": "n", "dtype": "int64", "shape": []}]})";
  Manifest manifest;
  std::string error;
  loom_status status = LOOM_OK;
  EXPECT_TRUE(parseManifest(text, "m.json", "a.loom", manifest, error, status))
      << error;
  return manifest;
}

std::string check(const std::string &signature) {
  std::string error;
  if (checkSignatureText(affine(), signature, "a.loom/program.so",
                         "loom_entry_signature", error))
    return "";
  return error;
}
} // namespace

TEST(ArtifactChecks, SignatureMatches) {
  EXPECT_EQ(check(R"({"version": 1, "parameters": [],
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 3], "nbytes": 24}],
    "outputs": [{"name": "n", "dtype": "int64", "shape": [], "nbytes": 8}]})"),
            "");
}

TEST(ArtifactChecks, SignatureDisagrees) {
  EXPECT_EQ(check(R"({"version": 1, "parameters": [],
    "inputs": [{"name": "x", "dtype": "float32", "shape": [3, 2], "nbytes": 24}],
    "outputs": [{"name": "n", "dtype": "int64", "shape": [], "nbytes": 8}]})"),
            "the manifest does not match the compiled program: input 'x' is "
            "float32[2,3] (24 bytes) in the manifest, but 'a.loom/program.so' "
            "was compiled for float32[3,2] (24 bytes)");
  EXPECT_EQ(check(R"({"version": 1, "parameters": [], "inputs": [],
    "outputs": []})"),
            "the manifest does not match the compiled program: the manifest "
            "lists 1 inputs, but 'a.loom/program.so' was compiled for 0");
}

TEST(ArtifactChecks, MalformedSignatures) {
  const std::string prefix =
      "the signature 'loom_entry_signature' of 'a.loom/program.so' is "
      "malformed: ";
  EXPECT_EQ(check(""), prefix + "invalid JSON at byte 0 (line 1, column 1): "
                                "expected a JSON value, found the end of the "
                                "input");
  EXPECT_EQ(check("[]"), prefix + "it has no 'version'");
  EXPECT_EQ(check(R"({"version": 2})"),
            prefix + "it has version 2; this runtime reads version 1");
  EXPECT_EQ(check(R"({"version": 1, "parameters": {}})"),
            prefix + "'parameters' is not a list");
  EXPECT_EQ(check(R"({"version": 1, "parameters": [], "inputs": [7]})"),
            prefix + "an entry of 'inputs' lacks its name, dtype, shape or "
                     "nbytes");
  EXPECT_EQ(check(R"({"version": 1, "parameters": [], "inputs": [
    {"name": "x", "dtype": "float32", "shape": ["2"], "nbytes": 24}]})"),
            prefix + "the shape of 'x' is not a list of integers");
}
