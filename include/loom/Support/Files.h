//===- Files.h - Reading inputs and writing outputs safely ------*- C++ -*-===//
//
// What loomc and loom-opt promise about files (docs/UserGuide.md, "Files
// and limits"): an output never replaces an input; a regular output file is
// written whole or not at all (a temporary beside it, renamed over it); an
// existing output that is not a regular file (a character device such as
// /dev/null, a FIFO) is written in place, never replaced; a failed write is
// an error naming the file; the small JSON inputs are read only from
// regular files of bounded size and nesting; MLIR text is checked for
// nesting the recursive parser could not survive.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SUPPORT_FILES_H
#define LOOM_SUPPORT_FILES_H

#include "loom/Support/Limits.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace loom {

/// Writes `path` (`-` for standard output) with `write`, whole or not at
/// all: a regular file (or a new path) through a temporary beside it that
/// replaces it only when everything was written (a symbolic link keeps
/// pointing where it did, at the new contents); an existing file that is not
/// a regular file (a device, a FIFO) is opened and written in place. A
/// failed write, flush or close is an error "cannot write 'PATH': why". An
/// error from `write` is returned as is and leaves the target untouched.
llvm::Error
writeOutputFile(llvm::StringRef path,
                llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write);

/// Where an output named `path` goes: the file or directory a symbolic link
/// points to (so that replacing it keeps the link and replaces what it
/// points to), else `path` itself.
std::string resolveOutputPath(llvm::StringRef path);

/// Flushes standard output and returns the error of any write to it since
/// the last check ("cannot write standard output: why"), clearing it so
/// that exiting does not abort.
llvm::Error checkStandardOutput();

/// Also checks standard output when the process exits through exit() (as
/// `--help` and `--version` do): a write that failed then prints
/// "TOOL: error: cannot write standard output: why" and exits with 1.
/// `tool` must outlive the process (a string literal).
void checkStandardOutputAtExit(const char *tool);

/// An error when `output` (given by `outputFlag`, e.g. "-o") and `input`
/// (given by `inputFlag`, "" for the positional input) name the same file
/// (same device and inode, through any link), or when `output` is an
/// existing directory that holds `input`: writing the output would destroy
/// the input. `-` and paths that do not exist never clash.
llvm::Error checkOutputIsNotInput(llvm::StringRef output,
                                  llvm::StringRef outputFlag,
                                  llvm::StringRef input,
                                  llvm::StringRef inputFlag);

/// An error "FLAG: cannot write 'PATH': directory 'DIR': No such file or
/// directory" (or "'DIR' is not a directory") when the directory `path` is
/// to be written into is missing; `flag` is the message's prefix ("" for
/// none). `-` is fine.
llvm::Error checkOutputDirectory(llvm::StringRef path, llvm::StringRef flag);

/// Reads `path`, which must be a regular file of at most `maxBytes` bytes
/// (`/dev/zero`, a FIFO or a directory is an error, not an endless read).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path, uint64_t maxBytes);

/// Where text nests too deeply: the 1-based line and column of the opening
/// bracket that goes one level beyond the limit.
struct NestingExcess {
  unsigned line = 0, column = 0;
};

/// Checks that JSON text nests arrays and objects at most `maxDepth` deep
/// (string contents skipped). llvm::json::parse recurses per level.
std::optional<NestingExcess> checkJSONNesting(llvm::StringRef text,
                                              unsigned maxDepth);

/// Checks that MLIR text nests ( [ { < at most `maxDepth` deep, outside
/// string literals and `//` comments (a `->` is an arrow, not a closing
/// bracket; a closing bracket closes only its own kind). The MLIR parser,
/// verifier and printer recurse per level. Bytecode is not checked.
std::optional<NestingExcess> checkMLIRNesting(llvm::StringRef text,
                                              unsigned maxDepth);

} // namespace loom

#endif // LOOM_SUPPORT_FILES_H
