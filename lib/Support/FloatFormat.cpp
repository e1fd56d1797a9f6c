//===- FloatFormat.cpp - Readable float literals --------------------------===//

#include "loom/Support/FloatFormat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"

void loom::printShortestFloat(llvm::raw_ostream &os,
                              const llvm::APFloat &value) {
  if (!value.isFinite()) {
    llvm::APInt bits = value.bitcastToAPInt();
    os << "0x"
       << llvm::format_hex_no_prefix(bits.getZExtValue(),
                                     bits.getBitWidth() / 4, true);
    return;
  }
  llvm::SmallString<32> text;
  value.toString(text, /*FormatPrecision=*/0, /*FormatMaxPadding=*/6,
                 /*TruncateZero=*/true);
  // MLIR's lexer needs a '.' before an exponent to read a float.
  size_t exponent = text.find_first_of("eE");
  if (exponent != llvm::StringRef::npos &&
      llvm::StringRef(text).take_front(exponent).find('.') ==
          llvm::StringRef::npos)
    text.insert(text.begin() + exponent, {'.', '0'});
  os << text;
}
