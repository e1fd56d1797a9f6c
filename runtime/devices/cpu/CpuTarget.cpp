//===- CpuTarget.cpp - Checking an artifact's target against the host -----===//

#include "devices/cpu/CpuTarget.h"

using namespace loom::rt;

std::string_view loom::rt::hostArchitecture() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__i386__)
  return "i386";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
  return "powerpc64le";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "";
#endif
}

std::string loom::rt::canonicalArchitecture(std::string_view triple) {
  std::string_view arch = triple.substr(0, triple.find('-'));
  if (arch == "amd64" || arch == "x86-64")
    return "x86_64";
  if (arch == "arm64")
    return "aarch64";
  if (arch == "i486" || arch == "i586" || arch == "i686")
    return "i386";
  if (arch == "ppc64le")
    return "powerpc64le";
  return std::string(arch);
}

namespace {
/// 1 if the host has `feature`, 0 if it lacks it, -1 if the runtime cannot
/// tell. __builtin_cpu_supports needs literal names, hence the table.
int hostHasFeature(std::string_view feature) {
#if defined(__x86_64__) || defined(__i386__)
#define LOOM_FEATURE(NAME)                                                     \
  if (feature == NAME)                                                         \
    return __builtin_cpu_supports(NAME) ? 1 : 0;
  __builtin_cpu_init();
  LOOM_FEATURE("cmov")
  LOOM_FEATURE("mmx")
  LOOM_FEATURE("popcnt")
  LOOM_FEATURE("sse")
  LOOM_FEATURE("sse2")
  LOOM_FEATURE("sse3")
  LOOM_FEATURE("ssse3")
  LOOM_FEATURE("sse4.1")
  LOOM_FEATURE("sse4.2")
  LOOM_FEATURE("avx")
  LOOM_FEATURE("avx2")
  LOOM_FEATURE("fma")
  LOOM_FEATURE("bmi")
  LOOM_FEATURE("bmi2")
  LOOM_FEATURE("aes")
  LOOM_FEATURE("pclmul")
  LOOM_FEATURE("avx512f")
  LOOM_FEATURE("avx512vl")
  LOOM_FEATURE("avx512bw")
  LOOM_FEATURE("avx512dq")
  LOOM_FEATURE("avx512cd")
  LOOM_FEATURE("avx512vbmi")
  LOOM_FEATURE("avx512ifma")
  LOOM_FEATURE("avx512vpopcntdq")
  LOOM_FEATURE("avx512vbmi2")
  LOOM_FEATURE("avx512vnni")
  LOOM_FEATURE("avx512bitalg")
  LOOM_FEATURE("avx512bf16")
  LOOM_FEATURE("avx512fp16")
  LOOM_FEATURE("avxvnni")
  LOOM_FEATURE("f16c")
  LOOM_FEATURE("movbe")
  LOOM_FEATURE("lzcnt")
  LOOM_FEATURE("adx")
  LOOM_FEATURE("sha")
  LOOM_FEATURE("vaes")
  LOOM_FEATURE("xsave")
  LOOM_FEATURE("gfni")
  LOOM_FEATURE("vpclmulqdq")
  // AMD extensions; fma4 and xop existed only before Zen, so tests can name
  // a feature the machine lacks.
  LOOM_FEATURE("sse4a")
  LOOM_FEATURE("fma4")
  LOOM_FEATURE("xop")
#undef LOOM_FEATURE
#endif
  (void)feature;
  return -1;
}
} // namespace

std::vector<std::string>
loom::rt::missingCpuFeatures(const std::vector<std::string> &features) {
  std::vector<std::string> missing;
  for (const std::string &entry : features) {
    std::string_view feature = entry;
    if (!feature.empty() && feature[0] == '-')
      continue; // A disabled feature needs nothing.
    if (!feature.empty() && feature[0] == '+')
      feature.remove_prefix(1);
    if (hostHasFeature(feature) == 0)
      missing.emplace_back(feature);
  }
  return missing;
}
