//===- Files.cpp - Reading inputs and writing outputs safely --------------===//

#include "loom/Support/Files.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cstdlib>

using namespace loom;
using llvm::StringRef;
namespace fs = llvm::sys::fs;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::Error cannotWrite(StringRef path, std::error_code ec) {
  return makeError("cannot write '" + path + "': " + ec.message());
}

/// The error a stream met (clearing it: a raw_fd_ostream destroyed with an
/// error pending aborts the process).
static std::error_code takeStreamError(llvm::raw_fd_ostream &os) {
  std::error_code ec = os.error();
  os.clear_error();
  return ec;
}

llvm::Error loom::checkStandardOutput() {
  llvm::raw_fd_ostream &out = llvm::outs();
  out.flush();
  if (!out.has_error())
    return llvm::Error::success();
  std::error_code ec = takeStreamError(out);
  return makeError("cannot write standard output: " + ec.message());
}

static const char *exitingTool = nullptr;

void loom::checkStandardOutputAtExit(const char *tool) {
  exitingTool = tool;
  // Constructed first, so that the handler runs before its destructor
  // (which would abort on a pending error).
  (void)llvm::outs();
  static bool installed = false;
  if (installed)
    return;
  installed = true;
  std::atexit([] {
    if (llvm::Error error = checkStandardOutput()) {
      llvm::errs() << exitingTool
                   << ": error: " << llvm::toString(std::move(error)) << "\n";
      llvm::errs().flush();
      std::_Exit(1);
    }
  });
}

/// Writes into an existing file that is not a regular file (a device, a
/// FIFO): replacing it with a renamed temporary would destroy it.
static llvm::Error
writeInPlace(StringRef path,
             llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, fs::OF_None);
  if (ec) {
    os.clear_error();
    return cannotWrite(path, ec);
  }
  llvm::Error written = write(os);
  os.close();
  ec = takeStreamError(os);
  if (written)
    return written;
  if (ec)
    return cannotWrite(path, ec);
  return llvm::Error::success();
}

std::string loom::resolveOutputPath(StringRef path) {
  fs::file_status linkStatus;
  llvm::SmallString<256> real;
  if (!fs::status(path, linkStatus, /*Follow=*/false) &&
      linkStatus.type() == fs::file_type::symlink_file &&
      !fs::real_path(path, real))
    return std::string(real);
  return path.str();
}

llvm::Error loom::writeOutputFile(
    StringRef path,
    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  if (path == "-") {
    if (llvm::Error error = write(llvm::outs()))
      return error;
    return checkStandardOutput();
  }
  llvm::SmallString<256> target(path);
  fs::file_status status;
  std::optional<fs::perms> keepPerms;
  if (!fs::status(path, status, /*Follow=*/true)) {
    if (status.type() == fs::file_type::directory_file)
      return makeError("cannot write '" + path + "': it is a directory");
    if (status.type() != fs::file_type::regular_file)
      return writeInPlace(path, write);
    keepPerms = status.permissions();
    // Through a symbolic link: replace the file it points to, keep the link.
    target = resolveOutputPath(path);
  }
  llvm::Expected<fs::TempFile> temp = fs::TempFile::create(
      target + ".tmp-%%%%%%", fs::all_read | fs::all_write);
  if (!temp) {
    std::error_code ec = llvm::errorToErrorCode(temp.takeError());
    return cannotWrite(path, ec);
  }
  auto discard = [&] { llvm::consumeError(temp->discard()); };
  if (keepPerms)
    (void)fs::setPermissions(temp->FD, *keepPerms);
  llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
  llvm::Error written = write(os);
  os.flush();
  std::error_code ec = takeStreamError(os);
  if (written) {
    discard();
    return written;
  }
  if (ec) {
    discard();
    return cannotWrite(path, ec);
  }
  // keep() renames, or removes the temporary when it cannot.
  if (llvm::Error kept = temp->keep(target))
    return cannotWrite(path, llvm::errorToErrorCode(std::move(kept)));
  return llvm::Error::success();
}

llvm::Error loom::checkOutputIsNotInput(StringRef output, StringRef outputFlag,
                                        StringRef input, StringRef inputFlag) {
  if (output.empty() || input.empty() || output == "-" || input == "-")
    return llvm::Error::success();
  std::string what = inputFlag.empty() ? std::string("the input")
                                       : ("the " + inputFlag + " input").str();
  bool same = false;
  if (!fs::equivalent(output, input, same) && same)
    return makeError(outputFlag + " '" + output + "' is " + what + " '" +
                     input + "': refusing to overwrite it");
  // An artifact replaces the whole directory it is written to.
  if (fs::is_directory(output)) {
    llvm::SmallString<256> realOutput, realInput;
    if (!fs::real_path(output, realOutput) &&
        !fs::real_path(input, realInput) &&
        StringRef(realInput).starts_with((realOutput + "/").str()))
      return makeError(outputFlag + " '" + output + "' holds " + what + " '" +
                       input + "': refusing to replace it");
  }
  return llvm::Error::success();
}

llvm::Error loom::checkOutputDirectory(StringRef path, StringRef flag) {
  if (path.empty() || path == "-")
    return llvm::Error::success();
  StringRef dir = llvm::sys::path::parent_path(path.rtrim('/'));
  if (dir.empty())
    return llvm::Error::success();
  std::string prefix = flag.empty() ? std::string() : (flag + ": ").str();
  fs::file_status status;
  if (std::error_code ec = fs::status(dir, status))
    return makeError(prefix + "cannot write '" + path + "': directory '" + dir +
                     "': " + ec.message());
  if (status.type() != fs::file_type::directory_file)
    return makeError(prefix + "cannot write '" + path + "': '" + dir +
                     "' is not a directory");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
loom::readRegularFile(StringRef path, uint64_t maxBytes) {
  // Checked before opening: opening a FIFO blocks until a writer comes.
  fs::file_status status;
  if (std::error_code ec = fs::status(path, status))
    return llvm::errorCodeToError(ec);
  auto checkKind = [&]() -> llvm::Error {
    if (status.type() == fs::file_type::directory_file)
      return makeError("it is a directory");
    if (status.type() != fs::file_type::regular_file)
      return makeError("it is not a regular file");
    if (status.getSize() > maxBytes)
      return makeError("it has " + llvm::Twine(status.getSize()) +
                       " bytes, more than the limit of " +
                       llvm::Twine(maxBytes));
    return llvm::Error::success();
  };
  if (llvm::Error error = checkKind())
    return std::move(error);
  llvm::Expected<fs::file_t> fd = fs::openNativeFileForRead(path);
  if (!fd)
    return fd.takeError();
  auto close = llvm::make_scope_exit([&] { fs::closeFile(*fd); });
  // The file read is the one checked, even if the path changed since.
  if (std::error_code ec = fs::status(*fd, status))
    return llvm::errorCodeToError(ec);
  if (llvm::Error error = checkKind())
    return std::move(error);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getOpenFile(*fd, path, status.getSize(),
                                      /*RequiresNullTerminator=*/true,
                                      /*IsVolatile=*/true);
  if (!buffer)
    return llvm::errorCodeToError(buffer.getError());
  return std::move(*buffer);
}

static NestingExcess positionOf(StringRef text, size_t offset) {
  StringRef before = text.take_front(offset);
  NestingExcess where;
  where.line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  where.column =
      offset - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
  return where;
}

/// Skips the string literal that starts at `text[i]` (a '"'); returns the
/// index after it. MLIR strings end at a newline too (an error there).
static size_t skipString(StringRef text, size_t i, bool endsAtNewline) {
  for (++i; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\')
      ++i;
    else if (c == '"')
      return i + 1;
    else if (endsAtNewline && c == '\n')
      return i;
  }
  return text.size();
}

std::optional<NestingExcess> loom::checkJSONNesting(StringRef text,
                                                    unsigned maxDepth) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i, /*endsAtNewline=*/false);
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return positionOf(text, i);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++i;
  }
  return std::nullopt;
}

std::optional<NestingExcess> loom::checkMLIRNesting(StringRef text,
                                                    unsigned maxDepth) {
  // MLIR bytecode is binary: its bytes are no brackets.
  if (text.starts_with("ML\xefR"))
    return std::nullopt;
  llvm::SmallVector<char, 64> open;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i, /*endsAtNewline=*/true);
      continue;
    }
    if (c == '/' && text.substr(i).starts_with("//")) {
      size_t end = text.find('\n', i);
      i = end == StringRef::npos ? text.size() : end;
      continue;
    }
    if (c == '-' && text.substr(i).starts_with("->")) {
      i += 2;
      continue;
    }
    switch (c) {
    case '(':
    case '[':
    case '{':
    case '<':
      open.push_back(c);
      if (open.size() > maxDepth)
        return positionOf(text, i);
      break;
    case '>':
      // A '>' that closes no '<' is an operator (`>=` in an integer set).
      if (!open.empty() && open.back() == '<')
        open.pop_back();
      break;
    case ')':
    case ']':
    case '}': {
      char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      // A '<' left open inside is no bracket: it ends with its enclosure.
      while (!open.empty() && open.back() == '<')
        open.pop_back();
      if (!open.empty() && open.back() == opener)
        open.pop_back();
      break;
    }
    default:
      break;
    }
    ++i;
  }
  return std::nullopt;
}
