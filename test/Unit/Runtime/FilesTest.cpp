//===- FilesTest.cpp - Reading the files users name -----------------------===//
//
// Every file the runtime reads goes through openRegularFile: FIFOs (which
// may never deliver) and devices (which never end) are refused without
// blocking, and /proc files, which report a size of 0, are read whole.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "loom/runtime/Support.h"
#include "gtest/gtest.h"
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;
using loom::rt::test::TempDir;

TEST(Files, OnlyRegularFilesAreRead) {
  TempDir dir;
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string contents, error;
  // No writer: a blocking open would never return.
  EXPECT_FALSE(readFileToString(fifo, 1 << 20, contents, error));
  EXPECT_EQ(error, "'" + fifo + "' is not a regular file");
  EXPECT_FALSE(readFileToString("/dev/zero", 1 << 20, contents, error));
  EXPECT_EQ(error, "'/dev/zero' is not a regular file");
  EXPECT_FALSE(readFileToString(dir.path(), 1 << 20, contents, error));
  EXPECT_EQ(error, "cannot read '" + dir.path() + "': Is a directory");
  uint64_t size = 0;
  EXPECT_EQ(openRegularFile(dir.file("none"), size, error), -1);
  EXPECT_EQ(error, "cannot open '" + dir.file("none") +
                       "': No such file or directory");
}

TEST(Files, ProcFilesAreReadWhole) {
  std::string contents, error;
  ASSERT_TRUE(readFileToString("/proc/self/stat", 4096, contents, error))
      << error;
  EXPECT_EQ(contents.substr(0, contents.find(' ')), std::to_string(getpid()));
  // The limit holds for them too.
  EXPECT_FALSE(readFileToString("/proc/self/stat", 8, contents, error));
  EXPECT_EQ(error, "'/proc/self/stat' is more than the limit of 8 bytes");
  // An empty regular file is empty.
  TempDir dir;
  ASSERT_TRUE(loom::rt::test::writeFile(dir.file("empty"), ""));
  EXPECT_TRUE(readFileToString(dir.file("empty"), 8, contents, error));
  EXPECT_EQ(contents, "");
}
