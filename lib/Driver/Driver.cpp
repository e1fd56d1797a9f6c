//===- Driver.cpp - The loomc compiler driver -----------------------------===//

#include "loom/Driver/Driver.h"
#include "loom/CostModel/CostReport.h"
#include "loom/InitAll.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace loom;
using namespace loom::driver;

OwningOpRef<ModuleOp> loom::driver::loadInput(MLIRContext &context,
                                              llvm::SourceMgr &sourceMgr,
                                              const Options &options) {
  // File-level problems are reported at the file itself.
  Location fileLoc = FileLineColLoc::get(&context, options.inputFile, 0, 0);
  StringRef ext = llvm::sys::path::extension(options.inputFile);
  if (options.inputFile != "-" && ext != ".mlir") {
    emitError(fileLoc) << "cannot read '" << options.inputFile
                       << "': loomc reads nn-dialect modules (.mlir)";
    return nullptr;
  }
  std::string message;
  auto file = openInputFile(options.inputFile, &message);
  if (!file) {
    emitError(fileLoc) << message;
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

LogicalResult loom::driver::runPipeline(ModuleOp module,
                                        const Options &options) {
  PassManager pm(module->getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  return pm.run(module);
}

LogicalResult loom::driver::emit(ModuleOp module, const Options &options,
                                 llvm::raw_ostream &os) {
  switch (options.emit) {
  case EmitKind::NN:
    module.print(os);
    os << '\n';
    return success();
  case EmitKind::Cost: {
    CostSummary summary = printCostReport(module, os, /*perOp=*/true);
    if (summary.numPriced == 0 && summary.numUnpriced == 0)
      os << "no functions to price\n";
    return success();
  }
  }
  llvm_unreachable("unknown emit kind");
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

namespace {
llvm::cl::OptionCategory inputCategory("Input");
llvm::cl::OptionCategory outputCategory("Output");

struct CommandLine {
  llvm::cl::opt<std::string> input{
      llvm::cl::Positional, llvm::cl::desc("<input.mlir>"), llvm::cl::init("-"),
      llvm::cl::cat(inputCategory)};
  llvm::cl::opt<std::string> output{
      "o", llvm::cl::desc("Output file (default: standard output)"),
      llvm::cl::value_desc("file"), llvm::cl::init("-"),
      llvm::cl::cat(outputCategory)};
  llvm::cl::opt<EmitKind> emit{
      "emit", llvm::cl::desc("What to write"), llvm::cl::init(EmitKind::NN),
      llvm::cl::values(
          clEnumValN(EmitKind::NN, "nn", "the verified, simplified nn module"),
          clEnumValN(EmitKind::Cost, "cost",
                     "FLOPs and bytes per op and per function")),
      llvm::cl::cat(outputCategory)};

  Options toOptions() const {
    Options options;
    options.inputFile = input;
    options.outputFile = output;
    options.emit = emit;
    return options;
  }
};

void printVersion(llvm::raw_ostream &os) {
  os << "loomc " LOOM_VERSION " (MLIR " LLVM_VERSION_STRING ")\n";
}
} // namespace

int loom::driver::loomcMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  CommandLine cl;
  llvm::cl::HideUnrelatedOptions({&inputCategory, &outputCategory});
  llvm::cl::SetVersionPrinter(printVersion);
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv,
          "loomc: compile a model into a distributed training program\n",
          &llvm::errs()))
    return 1;
  Options options = cl.toOptions();

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Diagnostics print as `file:line:col: error: ...` with the source line.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = loadInput(context, sourceMgr, options);
  if (!module || failed(runPipeline(*module, options)))
    return 1;

  // llvm::writeToOutput writes a temporary beside the target and renames it
  // at the end, so a failure never leaves a partial or clobbered output.
  LogicalResult emitted = success();
  if (llvm::Error error = llvm::writeToOutput(
          options.outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
            emitted = emit(*module, options, os);
            if (failed(emitted))
              return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                             "nothing written");
            return llvm::Error::success();
          })) {
    llvm::errs() << "loomc: error: cannot write '" << options.outputFile
                 << "': " << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}
