//===- loom-mlir-fuzz.cpp - libFuzzer target for MLIR text input ----------===//
//
// Feeds arbitrary bytes to what loom-opt and loomc do with a .mlir input:
// the nesting check (loom/Support/Files.h), then the parser into a context
// with their dialects, which verifies the module, then the printer; a module
// of Loom's ops must parse again as printed. Any crash, sanitizer report,
// leak or out-of-memory is a bug: bad input must end in a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Support/Files.h"
#include "loom/Support/Limits.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

/// Registered once: the registry is the same for every input.
static const mlir::DialectRegistry &dialects() {
  static const mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    loom::registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

/// The attribute and type storage allocators are shared by this binary's
/// instrumented code, which poisons the slabs it starts, and libMLIR's
/// uninstrumented code, which never unpoisons what it allocates from them:
/// manual poisoning would report false use-after-poison errors.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A copy: the lexer relies on the NUL after the text that every file
  // buffer has (and the fuzzer's bytes lack).
  std::string text(reinterpret_cast<const char *>(data), size);
  if (loom::checkMLIRNesting(text, loom::kMaxMLIRNesting))
    return 0;
  mlir::MLIRContext context(dialects(), mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // Verifies after parsing, as loom-opt and loomc do.
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (!module)
    return 0;
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  // What loom-opt prints of Loom's own ops it must read back (loomc and the
  // tests pipe it); upstream ops' round trips are upstream's business.
  bool onlyLoom = true;
  module->walk([&](mlir::Operation *op) {
    llvm::StringRef dialect = op->getName().getDialectNamespace();
    if (dialect != "nn" && dialect != "dist" && dialect != "func" &&
        dialect != "builtin")
      onlyLoom = false;
  });
  if (onlyLoom && !mlir::parseSourceString<mlir::ModuleOp>(printed, config,
                                                           "printed.mlir")) {
    llvm::errs() << "loom-mlir-fuzz: the printed module does not parse:\n"
                 << printed << "\n";
    abort();
  }
  return 0;
}
