//===- DeviceTest.cpp - The device layer and its conformance suite --------===//
//
// DeviceConformance holds every device kind to Device.h: memory, copies in
// every direction, fills, stream order, events, executables and their
// errors. It runs on the built-in CPU device and on the same device loaded
// as a plugin (libloom_device_testcpu.so, TestPlugins.c); a GPU device adds
// itself with its kind and a test executable of its own. The other tests
// cover looking kinds up and what only the CPU device does.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Device.h"
#include "RuntimeTestUtils.h"
#include "loom/runtime/DeviceBackend.h"
#include "loom/runtime/Kernels.h"
#include "gtest/gtest.h"
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A device kind under test, and what it runs.
struct DeviceKind {
  const char *kind;
  /// An executable for it exporting the entries of TestProgram.c.
  const char *program;
  /// One it cannot load: it imports a symbol the runtime lacks.
  const char *undefinedProgram;
};

std::ostream &operator<<(std::ostream &os, const DeviceKind &kind) {
  return os << kind.kind;
}

/// Frees a handle when it goes out of scope.
template <typename T, void (*Free)(T *)> struct Owned {
  T *ptr = nullptr;
  Owned() = default;
  Owned(const Owned &) = delete;
  Owned &operator=(const Owned &) = delete;
  ~Owned() { Free(ptr); }
  T **out() { return &ptr; }
  T *get() const { return ptr; }
};
using Buffer = Owned<loom_buffer, loom_buffer_free>;
using Stream = Owned<loom_stream, loom_stream_free>;
using Event = Owned<loom_event, loom_event_free>;
using Executable = Owned<loom_executable, loom_executable_free>;
using Device = Owned<loom_device, loom_device_free>;

class DeviceConformance : public ::testing::TestWithParam<DeviceKind> {
protected:
  void SetUp() override {
    ASSERT_EQ(
        loom_device_create(GetParam().kind, 0, device.out(), err, sizeof(err)),
        LOOM_OK)
        << err;
  }

  /// A buffer of `bytes` on the device, or a failed assertion.
  loom_buffer *allocate(Buffer &buffer, size_t bytes) {
    EXPECT_EQ(loom_buffer_allocate(device.get(), bytes, buffer.out(), err,
                                   sizeof(err)),
              LOOM_OK)
        << err;
    return buffer.get();
  }

  /// The parameters that load GetParam().program with entry `entry`.
  loom_executable_params params(const char *entry,
                                const char *path = nullptr) const {
    loom_executable_params result{};
    result.path = path ? path : GetParam().program;
    result.entry = entry;
    result.artifact = "test.loom";
    return result;
  }

  Device device;
  char err[2048] = "";
};

std::vector<uint8_t> pattern(size_t bytes, uint8_t seed) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i)
    data[i] = static_cast<uint8_t>(seed + i * 7);
  return data;
}

} // namespace

TEST_P(DeviceConformance, Properties) {
  const loom_device_properties *properties =
      loom_device_get_properties(device.get());
  ASSERT_NE(properties, nullptr);
  EXPECT_STREQ(properties->kind, GetParam().kind);
  EXPECT_STREQ(loom_device_kind(device.get()), GetParam().kind);
  EXPECT_EQ(properties->ordinal, 0);
  EXPECT_EQ(loom_device_ordinal(device.get()), 0);
  ASSERT_NE(properties->name, nullptr);
  EXPECT_STRNE(properties->name, "");
  EXPECT_GE(properties->compute_units, 1);
  EXPECT_GE(properties->alignment, uint32_t(LOOM_ALIGNMENT));
  EXPECT_EQ(properties->alignment & (properties->alignment - 1), 0u);

  int32_t count = 0;
  ASSERT_EQ(loom_device_count(GetParam().kind, &count, err, sizeof(err)),
            LOOM_OK)
      << err;
  EXPECT_GE(count, 1);
  loom_device *missing = nullptr;
  EXPECT_EQ(
      loom_device_create(GetParam().kind, count, &missing, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(missing, nullptr);
  EXPECT_NE(std::string(err).find("does not exist"), std::string::npos) << err;
  EXPECT_EQ(loom_device_create(GetParam().kind, -1, &missing, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
}

TEST_P(DeviceConformance, AllocateAndFree) {
  uint32_t alignment = loom_device_get_properties(device.get())->alignment;
  std::vector<void *> seen;
  for (size_t bytes : {size_t(0), size_t(0), size_t(1), size_t(63), size_t(64),
                       size_t(1) << 20}) {
    Buffer buffer;
    ASSERT_EQ(loom_buffer_allocate(device.get(), bytes, buffer.out(), err,
                                   sizeof(err)),
              LOOM_OK)
        << err;
    void *data = loom_buffer_data(buffer.get());
    ASSERT_NE(data, nullptr) << bytes << " bytes";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % alignment, 0u);
    EXPECT_EQ(loom_buffer_size(buffer.get()), bytes);
    EXPECT_EQ(loom_buffer_device(buffer.get()), device.get());
  }
  // Zero-byte buffers alive at once have distinct addresses.
  Buffer a, b;
  allocate(a, 0);
  allocate(b, 0);
  EXPECT_NE(loom_buffer_data(a.get()), loom_buffer_data(b.get()));

  loom_buffer *none = nullptr;
  EXPECT_EQ(loom_buffer_allocate(nullptr, 8, &none, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_buffer_allocate(device.get(), 8, nullptr, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_buffer_data(nullptr), nullptr);
  EXPECT_EQ(loom_buffer_size(nullptr), 0u);
  loom_buffer_free(nullptr);
}

TEST_P(DeviceConformance, CopiesInEveryDirection) {
  const size_t bytes = 4096;
  std::vector<uint8_t> input = pattern(bytes, 3), output(bytes, 0);
  for (bool onStream : {false, true}) {
    SCOPED_TRACE(onStream ? "on a stream" : "without a stream");
    Stream stream;
    if (onStream)
      ASSERT_EQ(
          loom_stream_create(device.get(), stream.out(), err, sizeof(err)),
          LOOM_OK)
          << err;
    Buffer a, b;
    allocate(a, bytes);
    allocate(b, bytes + 128);
    // Host to device, device to device at offsets, device to host.
    ASSERT_EQ(loom_buffer_write(stream.get(), a.get(), 0, input.data(), bytes,
                                err, sizeof(err)),
              LOOM_OK)
        << err;
    ASSERT_EQ(loom_buffer_copy(stream.get(), a.get(), 16, b.get(), 128,
                               bytes - 16, err, sizeof(err)),
              LOOM_OK)
        << err;
    ASSERT_EQ(loom_buffer_read(stream.get(), b.get(), 128, output.data(),
                               bytes - 16, err, sizeof(err)),
              LOOM_OK)
        << err;
    if (onStream)
      ASSERT_EQ(loom_stream_synchronize(stream.get(), err, sizeof(err)),
                LOOM_OK);
    EXPECT_EQ(std::memcmp(output.data(), input.data() + 16, bytes - 16), 0);

    // Overlapping ranges of one buffer copy as memmove does.
    ASSERT_EQ(loom_buffer_copy(stream.get(), a.get(), 0, a.get(), 8, 256, err,
                               sizeof(err)),
              LOOM_OK)
        << err;
    ASSERT_EQ(loom_buffer_read(stream.get(), a.get(), 8, output.data(), 256,
                               err, sizeof(err)),
              LOOM_OK);
    if (onStream)
      loom_stream_synchronize(stream.get(), err, sizeof(err));
    EXPECT_EQ(std::memcmp(output.data(), input.data(), 256), 0);

    // Nothing to move is fine, even at the end of a buffer.
    EXPECT_EQ(loom_buffer_write(stream.get(), a.get(), bytes, nullptr, 0, err,
                                sizeof(err)),
              LOOM_OK);
  }
}

TEST_P(DeviceConformance, CopyErrors) {
  Buffer a, b;
  allocate(a, 64);
  allocate(b, 64);
  uint8_t host[128] = {0};
  EXPECT_EQ(loom_buffer_write(nullptr, a.get(), 32, host, 33, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("outside the buffer of 64"),
            std::string::npos)
      << err;
  EXPECT_EQ(
      loom_buffer_read(nullptr, a.get(), SIZE_MAX, host, 2, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      loom_buffer_copy(nullptr, a.get(), 1, b.get(), 0, 64, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_buffer_write(nullptr, nullptr, 0, host, 1, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_buffer_read(nullptr, a.get(), 0, nullptr, 1, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);

  // Streams and buffers of another device (another handle) do not mix.
  Device other;
  ASSERT_EQ(
      loom_device_create(GetParam().kind, 0, other.out(), err, sizeof(err)),
      LOOM_OK);
  Stream foreign;
  ASSERT_EQ(loom_stream_create(other.get(), foreign.out(), err, sizeof(err)),
            LOOM_OK);
  EXPECT_EQ(
      loom_buffer_write(foreign.get(), a.get(), 0, host, 8, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("another device"), std::string::npos) << err;
  Buffer elsewhere;
  ASSERT_EQ(
      loom_buffer_allocate(other.get(), 64, elsewhere.out(), err, sizeof(err)),
      LOOM_OK);
  EXPECT_EQ(loom_buffer_copy(nullptr, elsewhere.get(), 0, a.get(), 0, 8, err,
                             sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("different devices"), std::string::npos)
      << err;
}

TEST_P(DeviceConformance, Fill) {
  const size_t bytes = 256;
  Buffer buffer;
  allocate(buffer, bytes);
  std::vector<uint8_t> output(bytes);
  const uint8_t byte = 0xab;
  const uint16_t half = 0x1234;
  const uint32_t word = 0xdeadbeef;
  ASSERT_EQ(loom_buffer_fill(nullptr, buffer.get(), 0, bytes, &byte, 1, err,
                             sizeof(err)),
            LOOM_OK)
      << err;
  ASSERT_EQ(loom_buffer_fill(nullptr, buffer.get(), 8, 16, &half, 2, err,
                             sizeof(err)),
            LOOM_OK)
      << err;
  ASSERT_EQ(loom_buffer_fill(nullptr, buffer.get(), 64, 64, &word, 4, err,
                             sizeof(err)),
            LOOM_OK)
      << err;
  ASSERT_EQ(loom_buffer_read(nullptr, buffer.get(), 0, output.data(), bytes,
                             err, sizeof(err)),
            LOOM_OK);
  for (size_t i = 0; i < bytes; ++i) {
    uint8_t want = byte;
    if (i >= 8 && i < 24)
      std::memcpy(&want, reinterpret_cast<const uint8_t *>(&half) + i % 2, 1);
    if (i >= 64 && i < 128)
      std::memcpy(&want, reinterpret_cast<const uint8_t *>(&word) + i % 4, 1);
    ASSERT_EQ(output[i], want) << "byte " << i;
  }
  EXPECT_EQ(loom_buffer_fill(nullptr, buffer.get(), 0, 12, &word, 3, err,
                             sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("1, 2 or 4 bytes"), std::string::npos) << err;
  EXPECT_EQ(
      loom_buffer_fill(nullptr, buffer.get(), 2, 8, &word, 4, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_buffer_fill(nullptr, buffer.get(), 0, bytes + 4, &word, 4, err,
                             sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_buffer_fill(nullptr, buffer.get(), 0, 4, nullptr, 4, err,
                             sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
}

TEST_P(DeviceConformance, StreamsRunInOrder) {
  // Each step reads what the one before wrote, all queued before the one
  // synchronisation.
  const size_t bytes = 1 << 16;
  std::vector<uint8_t> input = pattern(bytes, 11), first(bytes), last(bytes);
  Stream stream;
  ASSERT_EQ(loom_stream_create(device.get(), stream.out(), err, sizeof(err)),
            LOOM_OK)
      << err;
  Buffer a, b, c;
  allocate(a, bytes);
  allocate(b, bytes);
  allocate(c, bytes);
  const uint32_t word = 0x01020304;
  loom_stream *s = stream.get();
  ASSERT_EQ(
      loom_buffer_write(s, a.get(), 0, input.data(), bytes, err, sizeof(err)),
      LOOM_OK);
  ASSERT_EQ(
      loom_buffer_copy(s, a.get(), 0, b.get(), 0, bytes, err, sizeof(err)),
      LOOM_OK);
  ASSERT_EQ(loom_buffer_fill(s, a.get(), 0, bytes, &word, 4, err, sizeof(err)),
            LOOM_OK);
  ASSERT_EQ(
      loom_buffer_copy(s, a.get(), 0, c.get(), 0, bytes, err, sizeof(err)),
      LOOM_OK);
  ASSERT_EQ(
      loom_buffer_read(s, b.get(), 0, first.data(), bytes, err, sizeof(err)),
      LOOM_OK);
  ASSERT_EQ(
      loom_buffer_read(s, c.get(), 0, last.data(), bytes, err, sizeof(err)),
      LOOM_OK);
  ASSERT_EQ(loom_stream_synchronize(s, err, sizeof(err)), LOOM_OK) << err;
  EXPECT_EQ(first, input);
  for (size_t i = 0; i < bytes; i += 4)
    ASSERT_EQ(std::memcmp(&last[i], &word, 4), 0) << "byte " << i;
  EXPECT_EQ(loom_stream_synchronize(nullptr, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_stream_native(nullptr), nullptr);
  loom_stream_free(nullptr);
}

TEST_P(DeviceConformance, Events) {
  Stream stream;
  ASSERT_EQ(loom_stream_create(device.get(), stream.out(), err, sizeof(err)),
            LOOM_OK);
  Event start, end;
  ASSERT_EQ(loom_event_create(device.get(), start.out(), err, sizeof(err)),
            LOOM_OK)
      << err;
  ASSERT_EQ(loom_event_create(device.get(), end.out(), err, sizeof(err)),
            LOOM_OK);
  double ms = -1;
  // Never recorded: no time, but waiting for it is waiting for nothing.
  EXPECT_EQ(
      loom_event_elapsed_ms(start.get(), end.get(), &ms, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_stream_wait_event(stream.get(), start.get(), err, sizeof(err)),
            LOOM_OK);
  EXPECT_EQ(loom_event_synchronize(start.get(), err, sizeof(err)), LOOM_OK);

  const size_t bytes = size_t(16) << 20;
  Buffer buffer;
  allocate(buffer, bytes);
  const uint8_t zero = 0;
  ASSERT_EQ(loom_event_record(start.get(), stream.get(), err, sizeof(err)),
            LOOM_OK)
      << err;
  ASSERT_EQ(loom_buffer_fill(stream.get(), buffer.get(), 0, bytes, &zero, 1,
                             err, sizeof(err)),
            LOOM_OK);
  ASSERT_EQ(loom_event_record(end.get(), stream.get(), err, sizeof(err)),
            LOOM_OK);
  ASSERT_EQ(loom_event_synchronize(end.get(), err, sizeof(err)), LOOM_OK);
  ASSERT_EQ(
      loom_event_elapsed_ms(start.get(), end.get(), &ms, err, sizeof(err)),
      LOOM_OK)
      << err;
  EXPECT_GE(ms, 0.0);
  double back = 0;
  ASSERT_EQ(
      loom_event_elapsed_ms(end.get(), start.get(), &back, err, sizeof(err)),
      LOOM_OK);
  EXPECT_LE(back, 0.0);

  // Another stream waits for the event, then its own work follows.
  Stream other;
  ASSERT_EQ(loom_stream_create(device.get(), other.out(), err, sizeof(err)),
            LOOM_OK);
  ASSERT_EQ(loom_stream_wait_event(other.get(), end.get(), err, sizeof(err)),
            LOOM_OK);
  uint8_t first = 1;
  ASSERT_EQ(loom_buffer_read(other.get(), buffer.get(), bytes - 1, &first, 1,
                             err, sizeof(err)),
            LOOM_OK);
  ASSERT_EQ(loom_stream_synchronize(other.get(), err, sizeof(err)), LOOM_OK);
  EXPECT_EQ(first, 0);
  // Recorded without a stream: after everything given so far.
  EXPECT_EQ(loom_event_record(start.get(), nullptr, err, sizeof(err)), LOOM_OK);

  Device elsewhere;
  ASSERT_EQ(
      loom_device_create(GetParam().kind, 0, elsewhere.out(), err, sizeof(err)),
      LOOM_OK);
  Event foreign;
  ASSERT_EQ(loom_event_create(elsewhere.get(), foreign.out(), err, sizeof(err)),
            LOOM_OK);
  EXPECT_EQ(
      loom_event_elapsed_ms(start.get(), foreign.get(), &ms, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      loom_stream_wait_event(stream.get(), foreign.get(), err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_event_record(nullptr, nullptr, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  loom_event_free(nullptr);
}

TEST_P(DeviceConformance, ExecutablesLookUpAndLaunch) {
  loom_executable_params scalar = params("loom_entry_scalar");
  ASSERT_EQ(loom_executable_check(device.get(), &scalar, err, sizeof(err)),
            LOOM_OK)
      << err;
  Executable executable;
  ASSERT_EQ(loom_executable_load(device.get(), &scalar, executable.out(), err,
                                 sizeof(err)),
            LOOM_OK)
      << err;
  void *address = nullptr;
  EXPECT_EQ(loom_executable_lookup(executable.get(), "loom_entry", &address,
                                   err, sizeof(err)),
            LOOM_OK)
      << err;
  EXPECT_NE(address, nullptr);
  EXPECT_EQ(loom_executable_lookup(executable.get(), "no_such_symbol", &address,
                                   err, sizeof(err)),
            LOOM_ERROR_FORMAT);
  EXPECT_EQ(address, nullptr);
  EXPECT_NE(std::string(err).find("does not export 'no_such_symbol'"),
            std::string::npos)
      << err;

  // The scalar entry: r = 2 s, with device buffers for its four tensors.
  Stream stream;
  ASSERT_EQ(loom_stream_create(device.get(), stream.out(), err, sizeof(err)),
            LOOM_OK);
  Buffer s, e, r, empty;
  allocate(s, sizeof(double));
  allocate(e, 0);
  allocate(r, sizeof(double));
  allocate(empty, 0);
  for (loom_stream *on : {static_cast<loom_stream *>(nullptr), stream.get()}) {
    const double input = on ? 2.5 : -4.0;
    double output = 0;
    ASSERT_EQ(loom_buffer_write(on, s.get(), 0, &input, sizeof(input), err,
                                sizeof(err)),
              LOOM_OK);
    void *buffers[4] = {loom_buffer_data(s.get()), loom_buffer_data(e.get()),
                        loom_buffer_data(r.get()),
                        loom_buffer_data(empty.get())};
    ASSERT_EQ(loom_executable_launch(executable.get(), on, buffers, 4, err,
                                     sizeof(err)),
              LOOM_OK)
        << err;
    ASSERT_EQ(loom_buffer_read(on, r.get(), 0, &output, sizeof(output), err,
                               sizeof(err)),
              LOOM_OK);
    if (on)
      ASSERT_EQ(loom_stream_synchronize(on, err, sizeof(err)), LOOM_OK);
    EXPECT_EQ(output, 2 * input);
  }
  EXPECT_EQ(loom_executable_launch(executable.get(), nullptr, nullptr, 4, err,
                                   sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      loom_executable_launch(nullptr, nullptr, nullptr, 0, err, sizeof(err)),
      LOOM_ERROR_INVALID_ARGUMENT);
  loom_executable_free(nullptr);
}

TEST_P(DeviceConformance, ExecutableLoadErrors) {
  Executable executable;
  // A missing file.
  std::string missing = "/nonexistent/dir/program.so";
  loom_executable_params absent = params("loom_entry", missing.c_str());
  EXPECT_EQ(loom_executable_load(device.get(), &absent, executable.out(), err,
                                 sizeof(err)),
            LOOM_ERROR_IO);
  EXPECT_EQ(executable.get(), nullptr);
  EXPECT_NE(std::string(err).find(missing), std::string::npos) << err;
  EXPECT_NE(std::string(err).find("No such file or directory"),
            std::string::npos)
      << err;

  // An entry the file does not export.
  loom_executable_params wrongEntry = params("loom_entry_v2");
  EXPECT_EQ(loom_executable_load(device.get(), &wrongEntry, executable.out(),
                                 err, sizeof(err)),
            LOOM_ERROR_FORMAT);
  EXPECT_NE(
      std::string(err).find("does not export the entry symbol 'loom_entry_v2'"),
      std::string::npos)
      << err;

  // A file that needs a symbol the runtime lacks.
  loom_executable_params undefined =
      params("loom_entry", GetParam().undefinedProgram);
  EXPECT_EQ(loom_executable_load(device.get(), &undefined, executable.out(),
                                 err, sizeof(err)),
            LOOM_ERROR_IO);
  EXPECT_NE(std::string(err).find("loom_kernel_from_the_future"),
            std::string::npos)
      << err;

  // No file or entry at all.
  loom_executable_params nothing{};
  EXPECT_EQ(loom_executable_load(device.get(), &nothing, executable.out(), err,
                                 sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_executable_load(device.get(), nullptr, executable.out(), err,
                                 sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
}

TEST_P(DeviceConformance, TargetChecks) {
  // No device runs code for another architecture.
  loom_executable_params foreign = params("loom_entry");
  foreign.target_triple = "sparcv9-sun-solaris";
  EXPECT_EQ(loom_executable_check(device.get(), &foreign, err, sizeof(err)),
            LOOM_ERROR_INCOMPATIBLE);
  EXPECT_NE(std::string(err).find("'test.loom' was compiled for "
                                  "sparcv9-sun-solaris"),
            std::string::npos)
      << err;
  Executable executable;
  EXPECT_EQ(loom_executable_load(device.get(), &foreign, executable.out(), err,
                                 sizeof(err)),
            LOOM_ERROR_INCOMPATIBLE);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, DeviceConformance,
    ::testing::Values(
        DeviceKind{"cpu", LOOM_TEST_PROGRAM, LOOM_TEST_PROGRAM_UNDEFINED},
        DeviceKind{"testcpu", LOOM_TEST_PROGRAM, LOOM_TEST_PROGRAM_UNDEFINED}),
    [](const ::testing::TestParamInfo<DeviceKind> &info) {
      return std::string(info.param.kind);
    });

//===----------------------------------------------------------------------===//
// Kinds
//===----------------------------------------------------------------------===//

TEST(DeviceKinds, UnknownKindsAreRefused) {
  char err[1024] = "";
  loom_device *device = nullptr;
  EXPECT_EQ(loom_device_create("tpu", 0, &device, err, sizeof(err)),
            LOOM_ERROR_UNSUPPORTED);
  EXPECT_EQ(device, nullptr);
  EXPECT_STREQ(err, "loom_device_create: no device 'tpu' in this runtime "
                    "(libloom_device_tpu.so not found)");
  int32_t count = 7;
  EXPECT_EQ(loom_device_count("tpu", &count, err, sizeof(err)),
            LOOM_ERROR_UNSUPPORTED);
  EXPECT_EQ(count, 0);
  EXPECT_STREQ(err, "loom_device_count: no device 'tpu' in this runtime "
                    "(libloom_device_tpu.so not found)");
  EXPECT_EQ(loom_device_create("../cpu", 0, &device, err, sizeof(err)),
            LOOM_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(err).find("no device '../cpu' in this runtime"),
            std::string::npos)
      << err;
  EXPECT_EQ(loom_device_create(nullptr, 0, &device, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_device_create("cpu", 0, nullptr, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_device_get_properties(nullptr), nullptr);
  loom_device_free(nullptr);
}

TEST(DeviceKinds, PluginsOfAnotherAbiAreRefused) {
  char err[1024] = "";
  loom_device *device = nullptr;
  EXPECT_EQ(loom_device_create("testold", 0, &device, err, sizeof(err)),
            LOOM_ERROR_INCOMPATIBLE);
  EXPECT_EQ(device, nullptr);
  std::string message = err;
  EXPECT_NE(message.find("libloom_device_testold.so' implements device ABI " +
                         std::to_string(LOOM_DEVICE_ABI_VERSION - 1) +
                         ", but this runtime needs " +
                         std::to_string(LOOM_DEVICE_ABI_VERSION) +
                         ": rebuild the plugin with this runtime"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// The CPU device
//===----------------------------------------------------------------------===//

TEST(CpuDevice, HostMemoryAndInlineStreams) {
  char err[1024] = "";
  Device device;
  ASSERT_EQ(loom_device_create("cpu", 0, device.out(), err, sizeof(err)),
            LOOM_OK);
  const loom_device_properties *properties =
      loom_device_get_properties(device.get());
  EXPECT_EQ(properties->host_memory, 1);
  EXPECT_GT(properties->memory_bytes, 0u);
  EXPECT_NE(std::string(properties->name).find("CPU"), std::string::npos);
  // The host reads and writes buffers directly; communicator backends get
  // no stream to order after (CommBackend.h).
  Buffer buffer;
  ASSERT_EQ(
      loom_buffer_allocate(device.get(), 8, buffer.out(), err, sizeof(err)),
      LOOM_OK);
  std::memcpy(loom_buffer_data(buffer.get()), "abcdefg", 8);
  char text[8] = "";
  ASSERT_EQ(
      loom_buffer_read(nullptr, buffer.get(), 0, text, 8, err, sizeof(err)),
      LOOM_OK);
  EXPECT_STREQ(text, "abcdefg");
  Stream stream;
  ASSERT_EQ(loom_stream_create(device.get(), stream.out(), err, sizeof(err)),
            LOOM_OK);
  EXPECT_EQ(loom_stream_native(stream.get()), nullptr);
  EXPECT_EQ(loom_device_cpu()->abi_version, LOOM_DEVICE_ABI_VERSION);
}

TEST(CpuDevice, FeatureChecks) {
  // xop existed only on pre-Zen AMD CPUs; features the device cannot test
  // and disabled ones need nothing.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("xop"))
    GTEST_SKIP() << "this CPU has xop";
  char err[1024] = "";
  Device device;
  ASSERT_EQ(loom_device_create("cpu", 0, device.out(), err, sizeof(err)),
            LOOM_OK);
  const char *features[] = {"+sse2", "-avx512f", "frobnicate", "xop"};
  loom_executable_params old{};
  old.path = LOOM_TEST_PROGRAM;
  old.entry = "loom_entry";
  old.artifact = "test.loom";
  old.target_cpu = "bdver1";
  old.target_features = features;
  old.num_target_features = 4;
  EXPECT_EQ(loom_executable_check(device.get(), &old, err, sizeof(err)),
            LOOM_ERROR_INCOMPATIBLE);
  EXPECT_STREQ(err, "artifact 'test.loom' was compiled for CPU features this "
                    "machine lacks: xop (target cpu 'bdver1'): recompile it "
                    "for this machine");
  old.num_target_features = 3;
  EXPECT_EQ(loom_executable_check(device.get(), &old, err, sizeof(err)),
            LOOM_OK)
      << err;
}

TEST(CpuDevice, UpdatedParametersDropTheirPackedWeights) {
  // The GEMM for a constant B keeps B packed, by address, until the device
  // hears that it changed: without the hook the second product would still
  // use the old weights.
  char err[1024] = "";
  Device device;
  ASSERT_EQ(loom_device_create("cpu", 0, device.out(), err, sizeof(err)),
            LOOM_OK);
  const int64_t k = 64; // deep enough for the packed kernel
  std::vector<float> a(3 * k, 1.0f), b(k * 2, 1.0f), c(3 * 2, 0.0f);
  loom::rt::MemRefDesc<float, 2> da{a.data(), a.data(), 0, {3, k}, {k, 1}};
  loom::rt::MemRefDesc<float, 2> db{b.data(), b.data(), 0, {k, 2}, {2, 1}};
  loom::rt::MemRefDesc<float, 2> dc{c.data(), c.data(), 0, {3, 2}, {2, 1}};
  _mlir_ciface_loom_kernel_gemm_const_b_f32(&da, &db, &dc, 0, 0);
  EXPECT_EQ(c[0], 64.0f);
  std::fill(b.begin(), b.end(), 5.0f);
  loom_device_buffer_updated(device.get(), b.data(), b.size() * sizeof(float));
  _mlir_ciface_loom_kernel_gemm_const_b_f32(&da, &db, &dc, 0, 0);
  EXPECT_EQ(c[0], 320.0f);
  // Before the memory goes away.
  loom_device_buffer_updated(device.get(), b.data(), b.size() * sizeof(float));
  loom_device_buffer_updated(nullptr, b.data(), 4);
}
