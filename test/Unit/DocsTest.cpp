//===- DocsTest.cpp - Every op has a generated reference entry ------------===//

#include "TestUtils.h"
#include "gtest/gtest.h"
#include <fstream>
#include <sstream>

namespace {
std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expectEntries(llvm::StringRef ns, const std::string &file) {
  auto context = loom::test::makeContext();
  std::string doc = readFile(std::string(LOOM_DOC_DIR) + "/" + file);
  ASSERT_FALSE(doc.empty()) << "cannot read " << file;
  for (const std::string &op : loom::test::registeredOps(*context, ns))
    EXPECT_NE(doc.find("### `" + op + "`"), std::string::npos)
        << op << " has no entry in " << file;
}

TEST(Docs, EveryNNOpIsDocumented) { expectEntries("nn", "NNDialect.md"); }
TEST(Docs, EveryDistOpIsDocumented) { expectEntries("dist", "DistDialect.md"); }
} // namespace
