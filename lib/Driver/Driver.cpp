//===- Driver.cpp - The loomc compiler driver -----------------------------===//

#include "loom/Driver/Driver.h"
#include "loom/CostModel/CostReport.h"
#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "loom/InitAll.h"
#include "loom/Target/CPUTarget.h"
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

LoadResult loom::driver::loadInput(MLIRContext &context,
                                   llvm::SourceMgr &sourceMgr,
                                   const Options &options) {
  LoadResult result;
  // File-level problems are reported at the file itself.
  Location fileLoc = FileLineColLoc::get(&context, options.inputFile, 0, 0);
  StringRef ext = llvm::sys::path::extension(options.inputFile);
  if (ext == ".onnx") {
    onnx_import::ImportOptions importOptions;
    for (const std::string &spec : options.inputShapes) {
      std::string error;
      if (failed(onnx_import::parseInputShape(spec, importOptions, error))) {
        emitError(fileLoc) << error;
        return result;
      }
    }
    onnx_import::ImportResult imported =
        onnx_import::importModelFile(context, options.inputFile, importOptions);
    result.module = std::move(imported.module);
    if (imported.status == onnx_import::ImportStatus::Unsupported)
      result.code = ExitCode::Unsupported;
    return result;
  }
  if (!options.inputShapes.empty()) {
    emitError(fileLoc) << "--input-shape applies to ONNX models only";
    return result;
  }
  if (options.inputFile != "-" && ext != ".mlir") {
    emitError(fileLoc) << "cannot read '" << options.inputFile
                       << "': loomc reads ONNX models (.onnx) and nn-dialect "
                          "modules (.mlir)";
    return result;
  }
  std::string message;
  auto file = openInputFile(options.inputFile, &message);
  if (!file) {
    emitError(fileLoc) << message;
    return result;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  result.module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  return result;
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
  case EmitKind::NN: {
    OpPrintingFlags flags;
    if (options.elideWeights)
      flags.elideLargeElementsAttrs(16).elideLargeResourceString(64);
    module.print(os, flags);
    os << '\n';
    return success();
  }
  case EmitKind::Linalg:
  case EmitKind::LLVM:
    if (failed(
            cpu::lowerToLLVMDialect(module, options.emit == EmitKind::Linalg)))
      return failure();
    module.print(os, OpPrintingFlags().elideLargeElementsAttrs(16));
    os << '\n';
    return success();
  case EmitKind::Artifact:
    emitError(module.getLoc()) << "artifacts are directories; use -o";
    return failure();
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
      llvm::cl::Positional, llvm::cl::desc("<model.onnx | input.mlir>"),
      llvm::cl::init("-"), llvm::cl::cat(inputCategory)};
  llvm::cl::list<std::string> inputShapes{
      "input-shape",
      llvm::cl::desc("Fix the dimensions of an ONNX model input "
                     "(repeatable; ? leaves a dimension unknown)"),
      llvm::cl::value_desc("NAME=2x64"), llvm::cl::cat(inputCategory)};
  llvm::cl::opt<bool> listOperators{
      "list-onnx-operators",
      llvm::cl::desc("Print the ONNX operators loomc imports and exit"),
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
                     "FLOPs and bytes per op and per function"),
          clEnumValN(EmitKind::Linalg, "linalg",
                     "the module lowered to linalg on tensors, fused"),
          clEnumValN(EmitKind::LLVM, "llvm",
                     "the module lowered to the LLVM dialect"),
          clEnumValN(EmitKind::Artifact, "artifact",
                     "a .loom directory for loomrun (default for -o X.loom)")),
      llvm::cl::cat(outputCategory)};
  llvm::cl::opt<bool> elideWeights{
      "elide-weights",
      llvm::cl::desc("Print large constants and weights as placeholders "
                     "(readable, but not parseable back)"),
      llvm::cl::cat(outputCategory)};

  llvm::cl::opt<std::string> cpu{
      "cpu",
      llvm::cl::desc("CPU to compile artifacts for: native (default) or an "
                     "LLVM CPU name such as x86-64-v3"),
      llvm::cl::init("native"), llvm::cl::cat(outputCategory)};

  Options toOptions() const {
    Options options;
    options.inputFile = input;
    options.outputFile = output;
    options.emit = emit;
    // `-o model.loom` builds an artifact unless --emit says otherwise.
    if (emit.getNumOccurrences() == 0 &&
        llvm::sys::path::extension(StringRef(output).rtrim('/')) == ".loom")
      options.emit = EmitKind::Artifact;
    options.cpu = cpu;
    options.elideWeights = elideWeights;
    options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
    return options;
  }
};

/// Prints diagnostics located in a model file (line 0) or at a named part
/// of it; leaves the others to the source manager's handler.
LogicalResult printModelDiagnostic(Diagnostic &diag) {
  Location loc = diag.getLocation();
  std::string name;
  if (auto named = dyn_cast<NameLoc>(loc)) {
    name = named.getName().str();
    loc = named.getChildLoc();
  }
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file || file.getLine() != 0)
    return failure();
  auto print = [&](Diagnostic &d) {
    llvm::errs() << file.getFilename().getValue() << ": ";
    static const char *severity[] = {"note", "warning", "error", "remark"};
    llvm::errs() << severity[static_cast<int>(d.getSeverity())] << ": ";
    if (!name.empty())
      llvm::errs() << name << ": ";
    llvm::errs() << d.str() << "\n";
  };
  print(diag);
  for (Diagnostic &note : diag.getNotes())
    print(note);
  return success();
}

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
    return ExitCode::Failure;
  if (cl.listOperators) {
    for (StringRef op : onnx_import::supportedOperators())
      llvm::outs() << op << "\n";
    return ExitCode::Success;
  }
  Options options = cl.toOptions();

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Diagnostics in .mlir input print as `file:line:col: error: ...` with the
  // source line; those about a model file (or a node in it) as
  // `model.onnx: error: node 'n' (Op): ...`.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler sourceDiagnostics(sourceMgr, &context);
  ScopedDiagnosticHandler modelDiagnostics(&context, printModelDiagnostic);
  LoadResult loaded = loadInput(context, sourceMgr, options);
  if (!loaded.module)
    return loaded.code;
  OwningOpRef<ModuleOp> module = std::move(loaded.module);
  if (failed(runPipeline(*module, options)))
    return ExitCode::Failure;

  if (options.emit == EmitKind::Artifact) {
    if (options.outputFile == "-") {
      llvm::errs() << "loomc: error: --emit=artifact writes a directory; "
                      "name it with -o MODEL.loom\n";
      return ExitCode::Failure;
    }
    cpu::CompileOptions compileOptions;
    compileOptions.cpu = options.cpu;
    compileOptions.modelName =
        llvm::sys::path::filename(options.inputFile).str();
    if (failed(
            cpu::compileArtifact(*module, options.outputFile, compileOptions)))
      return ExitCode::Failure;
    return ExitCode::Success;
  }

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
    return ExitCode::Failure;
  }
  return ExitCode::Success;
}
