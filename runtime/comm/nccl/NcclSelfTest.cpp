//===- NcclSelfTest.cpp - loom-nccl-selftest ------------------------------===//
//
// Checks libloom_comm_nccl.so on the GPUs of this machine, through the
// plugin's loom_comm_backend_ops exactly as the runtime calls them:
//  - a group of one rank on one GPU, always;
//  - a group of one rank per GPU (one thread each) when several are visible.
// Every collective runs on float32, float16 and int32 data (SUM, MEAN, MAX
// and MIN for the reductions) with host, device, pinned, managed, mixed and
// in-place buffers, on the plugin's stream and on the caller's, and the
// results are compared with values computed here (NcclSelfTestCases.cpp).
// It prints the versions and devices first, one PASS or FAIL line per
// collective, type and operator (with the largest error), and a summary;
// the exit status is 0 when everything passed.
//
// Without a GPU, --expect-no-device checks what can be checked: that the
// plugin loads, its table, its argument errors, and that group_create fails
// with a message rather than crashing.
//
//===----------------------------------------------------------------------===//

#include "NcclSelfTest.h"

#include <nccl.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <limits.h>
#include <thread>
#include <unistd.h>

using namespace nccltest;

namespace {

const char *const kUsage =
    "usage: loom-nccl-selftest [--plugin PATH] [--ranks N] [--large-mib M] "
    "[--timeout S] [--expect-no-device]\n"
    "  --plugin PATH        the plugin (default: "
    "<this binary>/../lib/libloom_comm_nccl.so)\n"
    "  --ranks N            GPUs (threads) of the multi-rank group; 1 skips "
    "it (default: all visible, at most 8)\n"
    "  --large-mib M        size of the large all-reduce, 0 for none "
    "(default 48)\n"
    "  --timeout S          give up after S seconds (default 300)\n"
    "  --expect-no-device   no GPU here: check loading and errors only\n";

void onTimeout(int) {
  const char message[] = "FAIL timed out (a collective or the NCCL set-up "
                         "hangs; rerun with NCCL_DEBUG=INFO)\n";
  ssize_t ignored = write(STDOUT_FILENO, message, sizeof(message) - 1);
  (void)ignored;
  _exit(1);
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

std::string defaultPluginPath() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0)
    return "libloom_comm_nccl.so";
  self[n] = '\0';
  std::string path(self);
  size_t slash = path.rfind('/');
  path.resize(slash == std::string::npos ? 0 : slash);
  return path + "/../lib/libloom_comm_nccl.so";
}

bool loadPlugin(const std::string &path) {
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fail("dlopen %s: %s", path.c_str(), dlerror());
    return false;
  }
  auto entry = reinterpret_cast<loom_comm_backend_entry>(
      dlsym(library, "loom_comm_backend_nccl"));
  if (!entry) {
    fail("dlsym loom_comm_backend_nccl: %s", dlerror());
    return false;
  }
  ops = entry();
  if (!ops) {
    fail("loom_comm_backend_nccl() returned NULL");
    return false;
  }
  if (ops->abi_version != LOOM_COMM_BACKEND_ABI_VERSION || !ops->name ||
      strcmp(ops->name, "nccl") != 0 || !ops->group_create ||
      !ops->group_destroy || !ops->all_reduce || !ops->all_gather ||
      !ops->reduce_scatter || !ops->all_to_all || !ops->broadcast) {
    fail("the backend table: abi %d (want %d), name %s, or a NULL function",
         ops->abi_version, LOOM_COMM_BACKEND_ABI_VERSION,
         ops->name ? ops->name : "(null)");
    ops = nullptr;
    return false;
  }
  pass("plugin: %s, name \"%s\", abi %d, every function present", path.c_str(),
       ops->name, ops->abi_version);
  return true;
}

void printVersions() {
  int nccl = 0;
  Dl_info where;
  const char *ncclPath =
      dladdr(reinterpret_cast<void *>(&ncclGetVersion), &where) &&
              where.dli_fname
          ? where.dli_fname
          : "?";
  if (ncclGetVersion(&nccl) == ncclSuccess)
    printf("NCCL %d.%d.%d (%s; headers %d.%d.%d)\n", nccl / 10000,
           nccl / 100 % 100, nccl % 100, ncclPath, NCCL_MAJOR, NCCL_MINOR,
           NCCL_PATCH);
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  printf("CUDA runtime %d.%d, driver %d.%d\n", runtime / 1000,
         runtime % 1000 / 10, driver / 1000, driver % 1000 / 10);
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  if (visible)
    printf("CUDA_VISIBLE_DEVICES=%s\n", visible);
  fflush(stdout);
}

/// One rank of a team: sets up its group, runs the suite, tears down.
void runMember(Member &member, int device) {
  Team *team = member.team;
  Outcome setup;
  ++setup.cases;
  if (device >= 0) {
    cudaError_t error = cudaSetDevice(device);
    if (error != cudaSuccess)
      setup.error(
          format("cudaSetDevice(%d): %s", device, cudaGetErrorString(error)));
  }
  loom_comm_bootstrap bootstrap = {member.rank, team->size, teamBroadcast,
                                   &member};
  char err[512] = "";
  int status = ops->group_create(&bootstrap, &member.group, err, sizeof(err));
  if (status != 0)
    setup.error(format("group_create: status %d: %s", status, err));
  int current = -1;
  cudaGetDevice(&current);
  report(member,
         format("group_create: %d rank%s (rank 0 on device %d)", team->size,
                team->size == 1 ? "" : "s", current),
         setup);
  // Every rank learns whether all set up, through the outcomes.
  bool ok = true;
  for (const Outcome &o : team->outcomes)
    ok = ok && o.bad == 0;
  team->barrier();
  if (!ok) {
    ops->group_destroy(member.group);
    return;
  }
  runSuite(member);
  ops->group_destroy(member.group);
}

void runTeam(int size, bool pinDevices) {
  Team team;
  team.size = size;
  team.outcomes.resize(size_t(size));
  std::vector<Member> members;
  for (int r = 0; r < size; ++r)
    members.push_back({&team, r, nullptr});
  if (size == 1) {
    runMember(members[0], -1);
    return;
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back(runMember, std::ref(members[size_t(r)]),
                         pinDevices ? r : -1);
  for (std::thread &t : threads)
    t.join();
}

/// Without a device: the argument errors, and group_create's failure.
void checkWithoutDevice() {
  char err[512] = "";
  void *group = nullptr;
  int s = ops->group_create(nullptr, &group, err, sizeof(err));
  if (s == LOOM_ERROR_INVALID_ARGUMENT && strstr(err, "nccl: group_create:"))
    pass("group_create without a bootstrap: %s", err);
  else
    fail("group_create without a bootstrap: status %d, \"%s\"", s, err);
  loom_comm_bootstrap bad = {1, 1, nullptr, nullptr};
  s = ops->group_create(&bad, &group, err, sizeof(err));
  if (s == LOOM_ERROR_INVALID_ARGUMENT)
    pass("group_create for rank 1 of 1: %s", err);
  else
    fail("group_create for rank 1 of 1: status %d, \"%s\"", s, err);
  loom_comm_bootstrap noBroadcast = {0, 2, nullptr, nullptr};
  s = ops->group_create(&noBroadcast, &group, err, sizeof(err));
  if (s == LOOM_ERROR_INVALID_ARGUMENT)
    pass("group_create of 2 without a broadcast: %s", err);
  else
    fail("group_create of 2 without a broadcast: status %d, \"%s\"", s, err);

  float data[4] = {0};
  int statuses[] = {
      ops->all_reduce(nullptr, data, data, 4, LOOM_DTYPE_FLOAT32,
                      LOOM_REDUCE_SUM, nullptr, err, sizeof(err)),
      ops->all_gather(nullptr, data, data, 4, nullptr, err, sizeof(err)),
      ops->reduce_scatter(nullptr, data, data, 1, LOOM_DTYPE_FLOAT32,
                          LOOM_REDUCE_SUM, nullptr, err, sizeof(err)),
      ops->all_to_all(nullptr, data, data, 4, nullptr, err, sizeof(err)),
      ops->broadcast(nullptr, data, data, 4, 0, nullptr, err, sizeof(err)),
  };
  bool allInvalid = true;
  for (int status : statuses)
    allInvalid = allInvalid && status == LOOM_ERROR_INVALID_ARGUMENT;
  if (allInvalid)
    pass("every collective on a NULL group: %s", err);
  else
    fail("a collective on a NULL group did not return "
         "LOOM_ERROR_INVALID_ARGUMENT");
  ops->group_destroy(nullptr);

  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaSuccess && count > 0) {
    printf("note: %d CUDA device%s visible after all; not checking "
           "group_create's failure\n",
           count, count == 1 ? " is" : "s are");
    return;
  }
  loom_comm_bootstrap one = {0, 1, nullptr, nullptr};
  err[0] = '\0';
  s = ops->group_create(&one, &group, err, sizeof(err));
  if (s != 0 && !group && strstr(err, "nccl: group_create: "))
    pass("group_create without a device fails cleanly: status %d: %s", s, err);
  else
    fail("group_create without a device: status %d, group %p, \"%s\"", s, group,
         err);
}

} // namespace

int main(int argc, char **argv) {
  std::string plugin;
  int ranks = 0;
  int timeout = 300;
  bool expectNoDevice = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--plugin" && hasValue) {
      plugin = argv[++i];
    } else if (arg == "--ranks" && hasValue) {
      ranks = atoi(argv[++i]);
    } else if (arg == "--large-mib" && hasValue) {
      largeMebibytes = atoi(argv[++i]);
    } else if (arg == "--timeout" && hasValue) {
      timeout = atoi(argv[++i]);
    } else if (arg == "--expect-no-device") {
      expectNoDevice = true;
    } else if (arg == "--help" || arg == "-h") {
      fputs(kUsage, stdout);
      return 0;
    } else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  if (timeout > 0) {
    signal(SIGALRM, onTimeout);
    alarm(unsigned(timeout));
  }
  if (plugin.empty())
    plugin = defaultPluginPath();

  printf("loom-nccl-selftest\n");
  printVersions();
  if (!loadPlugin(plugin)) {
    printf("summary: %d passed, %d failed\n", passed, failed);
    return 1;
  }

  if (expectNoDevice) {
    checkWithoutDevice();
    printf("summary: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
  }

  int devices = 0;
  cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    fail("no CUDA device: %s",
         error != cudaSuccess ? cudaGetErrorString(error) : "none visible");
    printf("summary: %d passed, %d failed\n", passed, failed);
    return 1;
  }
  for (int d = 0; d < devices; ++d) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d) == cudaSuccess)
      printf("device %d: %s, sm_%d%d, %.1f GiB\n", d, prop.name, prop.major,
             prop.minor, double(prop.totalGlobalMem) / double(1ull << 30));
  }
  fflush(stdout);

  printf("== one rank\n");
  fflush(stdout);
  runTeam(1, false);

  int teamSize = ranks > 0 ? ranks : (devices < 8 ? devices : 8);
  if (teamSize > devices)
    teamSize = devices;
  if (teamSize > 1) {
    // One thread per GPU: the plugin takes each thread's current device,
    // which a launcher's local rank would override.
    for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                             "SLURM_LOCALID", "LOCAL_RANK"})
      unsetenv(name);
    printf("== %d ranks, one thread per GPU\n", teamSize);
    fflush(stdout);
    runTeam(teamSize, true);
  } else {
    printf("== no multi-rank group: %s\n",
           devices == 1 ? "one GPU is visible" : "--ranks 1");
  }
  printf("summary: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
