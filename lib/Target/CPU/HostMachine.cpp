//===- HostMachine.cpp - The CPU an artifact is compiled for --------------===//

#include "HostMachine.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace loom::cpu;

FailureOr<HostMachine> loom::cpu::makeHostMachine(StringRef cpuOption,
                                                  Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  HostMachine host;
  host.triple = llvm::sys::getDefaultTargetTriple();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(host.triple, error);
  if (!target)
    return emitError(loc) << "no LLVM target for " << host.triple << ": "
                          << error;
  std::string featureString;
  if (cpuOption == "native") {
    host.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    SmallVector<std::string> parts;
    for (auto &f : features)
      parts.push_back((f.second ? "+" : "-") + f.first().str());
    llvm::sort(parts);
    featureString = llvm::join(parts, ",");
  } else {
    host.cpu = cpuOption.str();
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(host.triple, host.cpu, featureString));
  if (!sti || !sti->isCPUStringValid(host.cpu))
    return emitError(loc) << "unknown CPU '" << host.cpu
                          << "' for --cpu (try 'native', 'x86-64-v3' or "
                             "'skylake-avx512')";
  // Every enabled feature the runtime can test before running the program
  // (runtime/devices/cpu/CpuTarget.cpp): instructions from any of them may
  // appear in the code (AVX512-FP16 conversions, F16C, BMI ...), and a
  // machine without one must be refused rather than die of SIGILL.
  for (const char *checked : {"popcnt",      "sse3",       "ssse3",
                              "sse4.1",      "sse4.2",     "avx",
                              "avx2",        "fma",        "f16c",
                              "bmi",         "bmi2",       "lzcnt",
                              "movbe",       "adx",        "aes",
                              "pclmul",      "sha",        "xsave",
                              "gfni",        "vaes",       "vpclmulqdq",
                              "avxvnni",     "avx512f",    "avx512vl",
                              "avx512bw",    "avx512dq",   "avx512cd",
                              "avx512vbmi",  "avx512ifma", "avx512vpopcntdq",
                              "avx512vbmi2", "avx512vnni", "avx512bitalg",
                              "avx512bf16",  "avx512fp16"})
    if (sti->checkFeatures(std::string("+") + checked))
      host.features.push_back(checked);
  llvm::TargetOptions options;
  host.machine.reset(target->createTargetMachine(
      host.triple, host.cpu, featureString, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!host.machine)
    return emitError(loc) << "cannot create a target machine for "
                          << host.triple;
  return host;
}
