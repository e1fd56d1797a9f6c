//===- NpyTest.cpp - Reading and writing .npy files -----------------------===//

#include "loom/runtime/Npy.h"
#include "RuntimeTestUtils.h"
#include "gtest/gtest.h"
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::test;

namespace {
const loom_dtype allDTypes[] = {
    LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_FLOAT32,
    LOOM_DTYPE_FLOAT64, LOOM_DTYPE_INT8,     LOOM_DTYPE_INT16,
    LOOM_DTYPE_INT32,   LOOM_DTYPE_INT64,    LOOM_DTYPE_UINT8,
    LOOM_DTYPE_BOOL,
};

/// A .npy file with the given header dict, version and data, built by hand
/// the way numpy lays it out.
std::string npyFile(const std::string &dict, const std::string &data = "",
                    int major = 1) {
  std::string header = dict + "\n";
  std::string file = "\x93NUMPY";
  file += static_cast<char>(major);
  file += '\0';
  size_t length = header.size();
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    file += static_cast<char>((length >> (8 * i)) & 0xff);
  return file + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string bytes;
  for (float v : values)
    bytes.append(reinterpret_cast<const char *>(&v), sizeof(v));
  return bytes;
}

bool parse(const std::string &file, NpyArray &array, std::string &error) {
  return parseNpy(file.data(), file.size(), "t.npy", array, error);
}

std::string parseError(const std::string &file) {
  NpyArray array;
  std::string error;
  EXPECT_FALSE(parse(file, array, error));
  return error;
}

TEST(Npy, RoundTripsEveryDTypeAndShape) {
  TempDir dir;
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {1}, {5}, {2, 3}, {0, 4}, {2, 1, 3}};
  for (loom_dtype dtype : allDTypes) {
    for (const std::vector<int64_t> &shape : shapes) {
      size_t nbytes = 0;
      ASSERT_TRUE(checkedByteSize(dtype, shape.data(), shape.size(), nbytes));
      std::string data(nbytes, '\0');
      for (size_t i = 0; i < nbytes; ++i)
        data[i] = static_cast<char>(dtype == LOOM_DTYPE_BOOL ? i % 2 : i * 7);
      std::string path = dir.file("a.npy");
      std::string error;
      ASSERT_TRUE(writeNpyFile(path, dtype, shape.data(), shape.size(),
                               data.data(), error))
          << error;
      std::string file = readFile(path);
      // Version 1.0, header padded so that the data starts 64-aligned.
      EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
      EXPECT_EQ((file.size() - nbytes) % 64, 0u);
      EXPECT_EQ(file[file.size() - nbytes - 1], '\n');

      NpyArray array;
      ASSERT_TRUE(readNpy(path, array, error)) << error;
      EXPECT_EQ(array.dtype, dtype);
      EXPECT_EQ(array.shape, shape);
      ASSERT_EQ(array.nbytes, nbytes);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(array.data.data()) % LOOM_ALIGNMENT,
                0u);
      EXPECT_EQ(std::memcmp(array.data.data(), data.data(), nbytes), 0)
          << loom_dtype_name(dtype) << formatTensorType(dtype, shape);
    }
  }
}

TEST(Npy, HeaderIsNumpys) {
  const int64_t shape[] = {2, 3};
  std::string header = encodeNpyHeader(LOOM_DTYPE_FLOAT32, shape, 2);
  ASSERT_EQ(header.size(), 128u);
  EXPECT_EQ(header.substr(10, 62),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   ");
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(static_cast<unsigned char>(header[8]) + 256 * header[9], 118);

  const int64_t one[] = {7};
  EXPECT_NE(encodeNpyHeader(LOOM_DTYPE_BOOL, one, 1)
                .find("{'descr': '|b1', 'fortran_order': False, "
                      "'shape': (7,), }"),
            std::string::npos);
  EXPECT_NE(encodeNpyHeader(LOOM_DTYPE_INT64, nullptr, 0).find("'shape': ()"),
            std::string::npos);
  EXPECT_EQ(encodeNpyHeader(LOOM_DTYPE_INVALID, nullptr, 0), "");
}

TEST(Npy, HugeRankUsesVersion2) {
  std::vector<int64_t> shape(64, 1);
  std::string header = encodeNpyHeader(LOOM_DTYPE_INT8, shape.data(), 64);
  EXPECT_EQ(header[6], '\x01'); // 64 dims still fit a 1.0 header.
  EXPECT_EQ(header.size() % 64, 0u);
}

TEST(Npy, DescrSpellings) {
  struct Case {
    const char *descr;
    loom_dtype dtype;
  };
  const Case cases[] = {
      {"<f2", LOOM_DTYPE_FLOAT16},  {"<f4", LOOM_DTYPE_FLOAT32},
      {"=f4", LOOM_DTYPE_FLOAT32},  {"f4", LOOM_DTYPE_FLOAT32},
      {"<f8", LOOM_DTYPE_FLOAT64},  {"|i1", LOOM_DTYPE_INT8},
      {"<i1", LOOM_DTYPE_INT8},     {">i1", LOOM_DTYPE_INT8},
      {"<i2", LOOM_DTYPE_INT16},    {"<i4", LOOM_DTYPE_INT32},
      {"<i8", LOOM_DTYPE_INT64},    {"|u1", LOOM_DTYPE_UINT8},
      {"<u1", LOOM_DTYPE_UINT8},    {"|b1", LOOM_DTYPE_BOOL},
      {"<b1", LOOM_DTYPE_BOOL},     {"|V2", LOOM_DTYPE_BFLOAT16},
      {"<V2", LOOM_DTYPE_BFLOAT16}, {"<u2", LOOM_DTYPE_UINT16},
      {"<u4", LOOM_DTYPE_UINT32},   {"<u8", LOOM_DTYPE_UINT64},
      {"|V1", LOOM_DTYPE_UINT8},
  };
  for (const Case &c : cases) {
    loom_dtype dtype = LOOM_DTYPE_INVALID;
    std::string error;
    EXPECT_TRUE(dtypeFromNpyDescr(c.descr, "t.npy", dtype, error))
        << c.descr << ": " << error;
    EXPECT_EQ(dtype, c.dtype) << c.descr;
  }
  for (loom_dtype dtype : allDTypes) {
    loom_dtype back = LOOM_DTYPE_INVALID;
    std::string error;
    EXPECT_TRUE(dtypeFromNpyDescr(npyDescr(dtype), "t.npy", back, error));
    EXPECT_EQ(back, dtype);
  }
}

TEST(Npy, ReadsVersions2And3AndPythonSpellings) {
  std::string data = floats({1, 2});
  for (int major : {2, 3}) {
    NpyArray array;
    std::string error;
    ASSERT_TRUE(parse(npyFile("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (2,), }",
                              data, major),
                      array, error))
        << error;
    EXPECT_EQ(array.shape, std::vector<int64_t>{2});
  }
  // Key order, double quotes, Python 2 longs, no trailing comma, and
  // Fortran order where it is the same layout.
  NpyArray array;
  std::string error;
  ASSERT_TRUE(parse(npyFile("{\"shape\": (1L, 2L), \"fortran_order\": True,"
                            "\"descr\": \"<f4\"}   ",
                            data),
                    array, error))
      << error;
  EXPECT_EQ(array.shape, (std::vector<int64_t>{1, 2}));
  float values[2];
  std::memcpy(values, array.data.data(), sizeof(values));
  EXPECT_EQ(values[1], 2.0f);
  // Extra data after the array is ignored, as numpy does.
  ASSERT_TRUE(parse(npyFile("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (), }",
                            data),
                    array, error));
  EXPECT_EQ(array.nbytes, 4u);
}

TEST(Npy, BoolsAreNormalised) {
  NpyArray array;
  std::string error;
  ASSERT_TRUE(parse(npyFile("{'descr': '|b1', 'fortran_order': False, "
                            "'shape': (3,), }",
                            std::string("\x00\x02\xff", 3)),
                    array, error));
  const auto *bytes = static_cast<const unsigned char *>(array.data.data());
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 1);
  EXPECT_EQ(bytes[2], 1);
}

TEST(Npy, Rejections) {
  const std::string f4 = "'descr': '<f4', 'fortran_order': False, ";
  struct Case {
    std::string file;
    const char *message;
  };
  const Case cases[] = {
      {"", "'t.npy' is not a valid .npy file: it does not start with the "
           ".npy magic \"\\x93NUMPY\""},
      {"hello world, not numpy",
       "'t.npy' is not a valid .npy file: it does not start with the .npy "
       "magic \"\\x93NUMPY\""},
      {std::string("PK\x03\x04rest", 8),
       "'t.npy' is a .npz archive, not a .npy file: save each array with "
       "np.save"},
      {"\x93NUMPY\x01",
       "'t.npy' is not a valid .npy file: the file ends inside the header"},
      {std::string("\x93NUMPY\x04\x00\x10\x00", 10),
       "'t.npy' is not a valid .npy file: unsupported format version 4.0 "
       "(supported: 1.0, 2.0, 3.0)"},
      {std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 18),
       "'t.npy' is not a valid .npy file: the file ends inside the header"},
      {std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12),
       "'t.npy' is not a valid .npy file: the header is 2147483647 bytes, "
       "more than the limit of 1048576"},
      {npyFile("{" + f4 + "'shape': (2, 3), }", floats({1, 2, 3})),
       "'t.npy' is truncated: its header describes float32[2,3] (24 data "
       "bytes), but only 12 follow"},
      {npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }"),
       "'t.npy' holds big-endian data ('>f4'), which is not supported: save "
       "it little-endian, e.g. np.save(path, "
       "a.astype(a.dtype.newbyteorder('<')))"},
      {npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"),
       "'t.npy' holds dtype '<c8', which is not supported (supported: <f2 "
       "<f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1, |V2 for bfloat16 and |V1 "
       "or |u1 for the 8-bit floats)"},
      {npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"),
       "'t.npy' holds dtype '|O', which is not supported (supported: <f2 "
       "<f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1, |V2 for bfloat16 and |V1 "
       "or |u1 for the 8-bit floats); object "
       "arrays (pickled Python objects) are never read"},
      {npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, "
               "'shape': (1,), }"),
       "'t.npy' holds a structured array, which is not supported: save each "
       "field as its own array"},
      {npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
               floats({1, 2, 3, 4, 5, 6})),
       "'t.npy' is in Fortran (column-major) order, which is not supported: "
       "save it in C order, e.g. np.save(path, np.ascontiguousarray(a))"},
      {npyFile("{" + f4 + "}"),
       "'t.npy' is not a valid .npy file: the header has no 'shape' key"},
      {npyFile("{'fortran_order': False, 'shape': ()}"),
       "'t.npy' is not a valid .npy file: the header has no 'descr' key"},
      {npyFile("{" + f4 + "'shape': (-1,), }"),
       "'t.npy' is not a valid .npy file: 'shape' holds a negative or huge "
       "dimension"},
      {npyFile("{" + f4 + "'shape': (99999999999999999999,), }"),
       "'t.npy' is not a valid .npy file: 'shape' holds a negative or huge "
       "dimension"},
      {npyFile("{" + f4 + "'shape': ('a',), }"),
       "'t.npy' is not a valid .npy file: 'shape' holds something other than "
       "an integer"},
      {npyFile("{" + f4 + "'shape': 3, }"),
       "'t.npy' is not a valid .npy file: 'shape' is not a tuple"},
      {npyFile("{" + f4 + "'shape': (4294967296, 4294967296, 4), }"),
       "'t.npy' is not a valid .npy file: the array described by the header "
       "is too large"},
      {npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (), }"),
       "'t.npy' is not a valid .npy file: 'fortran_order' is not True or "
       "False"},
      {npyFile("['descr']"), "'t.npy' is not a valid .npy file: malformed "
                             "header (the header is not a dict at header "
                             "byte 0)"},
      {npyFile("{" + f4 + "'shape': (1,) "),
       "'t.npy' is not a valid .npy file: malformed header (expected ',' or "
       "'}' at header byte 56)"},
      {npyFile("{" + f4 + "'shape': (1,), } trailing"),
       "'t.npy' is not a valid .npy file: malformed header (unexpected text "
       "after the dict at header byte 58)"},
      {npyFile("{" + f4 + "'descr': '<f4', 'shape': (), }"),
       "'t.npy' is not a valid .npy file: malformed header (duplicate key "
       "'descr' at header byte 55)"},
      {npyFile("{" + f4 + "'shape': ((((((((((1,),),),),),),),),),), }"),
       "'t.npy' is not a valid .npy file: malformed header (nested too "
       "deeply at header byte 58)"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(parseError(c.file), c.message) << c.file;

  std::string manyDims = "{" + f4 + "'shape': (";
  for (int i = 0; i < 65; ++i)
    manyDims += "1, ";
  EXPECT_EQ(parseError(npyFile(manyDims + "), }")),
            "'t.npy' is not a valid .npy file: malformed header (more than 64 "
            "dimensions at header byte 243)");
}

TEST(Npy, ReadNpyNamesTheFile) {
  TempDir dir;
  NpyArray array;
  std::string error;
  EXPECT_FALSE(readNpy(dir.file("missing.npy"), array, error));
  EXPECT_EQ(error, "cannot read '" + dir.file("missing.npy") +
                       "': No such file or directory");
  EXPECT_FALSE(readNpy(dir.path(), array, error));
  EXPECT_EQ(error, "cannot read '" + dir.path() + "': Is a directory");

  // Truncated data is caught from the file size before reading.
  std::string file =
      npyFile("{'descr': '<i8', 'fortran_order': False, 'shape': (1000000,), "
              "}",
              std::string(16, '\0'));
  ASSERT_TRUE(writeFile(dir.file("short.npy"), file));
  EXPECT_FALSE(readNpy(dir.file("short.npy"), array, error));
  EXPECT_EQ(error, "'" + dir.file("short.npy") +
                       "' is truncated: its header describes "
                       "int64[1000000] (8000000 data bytes), but only 16 "
                       "follow");

  // A header shorter than the 12-byte preamble buffer still reads.
  ASSERT_TRUE(writeFile(dir.file("tiny.npy"), npyFile("{'descr':'|u1',"
                                                      "'fortran_order':False,"
                                                      "'shape':()}",
                                                      "\x2a")));
  ASSERT_TRUE(readNpy(dir.file("tiny.npy"), array, error)) << error;
  EXPECT_EQ(*static_cast<unsigned char *>(array.data.data()), 42);
}

TEST(Npy, RefusesPipesAndDevices) {
  // A pipe may never deliver and a device never end: only regular files
  // are read, and a FIFO without a writer does not block the open.
  TempDir dir;
  std::string fifo = dir.file("fifo.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  NpyArray array;
  std::string error;
  EXPECT_FALSE(readNpy(fifo, array, error));
  EXPECT_EQ(error, "'" + fifo + "' is not a regular file");
  EXPECT_FALSE(readNpy("/dev/null", array, error));
  EXPECT_EQ(error, "'/dev/null' is not a regular file");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
  EXPECT_FALSE(readNpy(path, array, error));
  EXPECT_EQ(error, "'" + path + "' is not a regular file");
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(Npy, WriteErrorsNameTheFile) {
  TempDir dir;
  std::string error;
  const int64_t shape[] = {1};
  float value = 1;
  std::string path = dir.file("no/such/dir/out.npy");
  EXPECT_FALSE(writeNpyFile(path, LOOM_DTYPE_FLOAT32, shape, 1, &value, error));
  EXPECT_EQ(error, "cannot write '" + path + "': No such file or directory");
  const int64_t negative[] = {-1};
  EXPECT_FALSE(writeNpyFile(dir.file("a.npy"), LOOM_DTYPE_FLOAT32, negative, 1,
                            &value, error));
  EXPECT_EQ(error, "cannot write '" + dir.file("a.npy") +
                       "': invalid dtype or shape float32[-1]");
  int fd = ::open("/dev/full", O_WRONLY);
  if (fd >= 0) {
    EXPECT_FALSE(
        writeNpy(fd, "full.npy", LOOM_DTYPE_FLOAT32, shape, 1, &value, error));
    EXPECT_EQ(error, "cannot write 'full.npy': No space left on device");
    ::close(fd);
  }
}
} // namespace
