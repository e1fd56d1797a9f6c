//===- Link.cpp - Link a CPU program into a shared object -----------------===//

#include "LLVMCodegen.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace mlir;

FailureOr<std::string> loom::cpu::linkSharedObject(StringRef object,
                                                   Location loc) {
  std::string linker;
  for (const char *candidate : {"cc", "gcc", "clang", "clang-19"})
    if (auto path = llvm::sys::findProgramByName(candidate)) {
      linker = *path;
      break;
    }
  if (linker.empty())
    return emitError(loc) << "no C compiler driver (cc, gcc or clang) on "
                             "PATH to link the program";
  // The object and the library live in a directory of their own while the
  // linker runs; the artifact writer gets the library's bytes.
  SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("loomc", dir))
    return emitError(loc) << "cannot create a temporary directory to link "
                             "the program: "
                          << ec.message();
  auto inDir = [&](StringRef name) {
    SmallString<128> p(dir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  std::string objectPath = inDir("program.o"), library = inDir("program.so"),
              log = inDir("link.log");
  auto cleanUp =
      llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
    if (!ec) {
      os << object;
      os.close();
      ec = os.error();
    }
    // A stream destroyed with its error pending aborts the process.
    os.clear_error();
    if (ec)
      return emitError(loc)
             << "cannot write '" << objectPath << "': " << ec.message();
  }
  SmallVector<StringRef> args{linker,  "-shared",  "-o",
                              library, objectPath, "-lm"};
  std::string error;
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, 0, &error);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().str();
  if (rc != 0)
    return emitError(loc) << "linking the program with " << linker << " failed"
                          << (error.empty() ? "" : ": ") << error << "\n"
                          << output;
  auto bytes = llvm::MemoryBuffer::getFile(library, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return emitError(loc) << "cannot read the linked program '" << library
                          << "': " << bytes.getError().message();
  return (*bytes)->getBuffer().str();
}
