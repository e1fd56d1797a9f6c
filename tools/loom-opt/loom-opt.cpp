//===- loom-opt.cpp - mlir-opt with Loom's dialects and passes ------------===//
//
// mlir-opt's driver with Loom's dialects and passes, and loomc's handling
// of files (loom/Support/Files.h): the whole input is read first and its
// nesting checked (the parser recurses per level); a regular output file is
// replaced only when the run succeeds (so `-o` may name the input, which is
// rewritten in place), a device or FIFO is written in place, and a failed
// write is an error.
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Support/Files.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>

static int run(int argc, char **argv) {
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  loom::registerAllPasses();
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "Loom optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (inputFile == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &message);
  if (!input) {
    llvm::errs() << message << "\n";
    return 1;
  }
  if (std::optional<loom::NestingExcess> deep =
          loom::checkMLIRNesting(input->getBuffer(), loom::kMaxMLIRNesting)) {
    llvm::errs() << input->getBufferIdentifier() << ":" << deep->line << ":"
                 << deep->column << ": error: brackets nest deeper than "
                 << loom::kMaxMLIRNesting
                 << " levels, more than loom-opt reads\n";
    return 1;
  }
  bool processed = true;
  if (llvm::Error error = loom::writeOutputFile(
          outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
            if (failed(mlir::MlirOptMain(os, std::move(input), registry,
                                         config))) {
              processed = false;
              return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                             "nothing written");
            }
            return llvm::Error::success();
          })) {
    // A failed run has said why; the output is left as it was.
    if (!processed) {
      llvm::consumeError(std::move(error));
      return 1;
    }
    llvm::errs() << "loom-opt: error: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  loom::checkStandardOutputAtExit("loom-opt");
  int code = run(argc, argv);
  // Whatever went to standard output must have arrived.
  if (llvm::Error error = loom::checkStandardOutput()) {
    llvm::errs() << "loom-opt: error: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  return code;
}
