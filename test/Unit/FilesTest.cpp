//===- FilesTest.cpp - Safe outputs, bounded inputs, nesting checks -------===//

#include "loom/Support/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <string>

using namespace loom;

namespace {

std::string depthOf(llvm::StringRef text, unsigned cap) {
  std::optional<NestingExcess> excess = checkMLIRNesting(text, cap);
  if (!excess)
    return "ok";
  return std::to_string(excess->line) + ":" + std::to_string(excess->column);
}

TEST(Nesting, MLIRCountsOnlyBrackets) {
  EXPECT_EQ(depthOf("[[[1]]]", 3), "ok");
  EXPECT_EQ(depthOf("[[[[1]]]]", 3), "1:4");
  EXPECT_EQ(depthOf("{\n  (\n   <[x]>)}", 3), "3:5");
  // Strings and comments hold no brackets.
  EXPECT_EQ(depthOf("\"[[[[[\" [1]", 2), "ok");
  EXPECT_EQ(depthOf("\"\\\"[[[[\" [1]", 2), "ok");
  EXPECT_EQ(depthOf("// [[[[[\n[1]", 2), "ok");
  // An arrow closes nothing: nested function types still count.
  EXPECT_EQ(depthOf("{ (i32) -> { (i32) -> { x } } }", 3), "ok");
  EXPECT_EQ(depthOf("{ (i32) -> { (i32) -> { (x) } } }", 3), "1:25");
  // A '>' that closes no '<' is an operator; a '<' left open ends with its
  // enclosure.
  EXPECT_EQ(depthOf("affine_set<(d0) : (d0 - 1 >= 0)>", 3), "ok");
  EXPECT_EQ(depthOf("(a < b) (a < b) (a < b)", 2), "ok");
  EXPECT_EQ(depthOf(std::string(100000, '[') + std::string(100000, ']'), 512),
            "1:513");
}

TEST(Nesting, JSON) {
  EXPECT_FALSE(checkJSONNesting("{\"a\": [[1], {\"b\": 2}]}", 3));
  std::optional<NestingExcess> deep = checkJSONNesting("{\"a\":\n [[[1]]]}", 3);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->line, 2u);
  EXPECT_EQ(deep->column, 4u);
  EXPECT_FALSE(checkJSONNesting("{\"[[[[[\\\"[[[[\": 1}", 1));
}

class FilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("loom-files", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string file(llvm::StringRef name) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
  std::string contents(llvm::StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : "<unreadable>";
  }
  llvm::SmallString<128> dir;
};

llvm::Error writeText(llvm::StringRef path, llvm::StringRef text) {
  return writeOutputFile(path, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
}

TEST_F(FilesTest, OutputIsWholeOrUntouched) {
  std::string out = file("out.txt");
  ASSERT_FALSE(llvm::errorToBool(writeText(out, "first")));
  EXPECT_EQ(contents(out), "first");
  // A failing writer leaves the file as it was, and no temporary behind.
  llvm::Error failed = writeOutputFile(out, [](llvm::raw_ostream &os) {
    os << "partial";
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "boom");
  });
  EXPECT_EQ(llvm::toString(std::move(failed)), "boom");
  EXPECT_EQ(contents(out), "first");
  std::error_code ec;
  int entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1);
  // A directory is no output.
  EXPECT_EQ(llvm::toString(writeText(dir, "x")),
            "cannot write '" + dir.str().str() + "': it is a directory");
}

TEST_F(FilesTest, InputsAreNotOutputs) {
  std::string in = file("in.onnx"), other = file("other.mlir");
  ASSERT_FALSE(llvm::errorToBool(writeText(in, "model")));
  EXPECT_EQ(llvm::toString(checkOutputIsNotInput(in, "-o", in, "")),
            "-o '" + in + "' is the input '" + in +
                "': refusing to overwrite it");
  EXPECT_FALSE(llvm::errorToBool(checkOutputIsNotInput(other, "-o", in, "")));
  EXPECT_FALSE(llvm::errorToBool(checkOutputIsNotInput("-", "-o", in, "")));
  ASSERT_FALSE(llvm::sys::fs::create_link(in, file("link.mlir")));
  EXPECT_TRUE(llvm::errorToBool(
      checkOutputIsNotInput(file("link.mlir"), "-o", in, "--cluster")));
  // A directory output holding the input.
  EXPECT_TRUE(llvm::errorToBool(checkOutputIsNotInput(dir, "-o", in, "")));
}

TEST_F(FilesTest, RegularFilesOnly) {
  std::string small = file("small.json");
  ASSERT_FALSE(llvm::errorToBool(writeText(small, "{}")));
  auto read = readRegularFile(small, 16);
  ASSERT_TRUE(!!read);
  EXPECT_EQ((*read)->getBuffer(), "{}");
  EXPECT_EQ(llvm::toString(readRegularFile(small, 1).takeError()),
            "it has 2 bytes, more than the limit of 1");
  EXPECT_EQ(llvm::toString(readRegularFile(dir, 16).takeError()),
            "it is a directory");
  EXPECT_EQ(llvm::toString(readRegularFile("/dev/zero", 16).takeError()),
            "it is not a regular file");
}

} // namespace
