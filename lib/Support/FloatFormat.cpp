//===- FloatFormat.cpp - Readable float literals --------------------------===//

#include "loom/Support/FloatFormat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include <cstdio>

using namespace mlir;
using llvm::APFloat;

void loom::printShortestFloat(llvm::raw_ostream &os,
                              const llvm::APFloat &value) {
  if (!value.isFinite()) {
    llvm::APInt bits = value.bitcastToAPInt();
    os << "0x"
       << llvm::format_hex_no_prefix(bits.getZExtValue(),
                                     bits.getBitWidth() / 4, true);
    return;
  }
  // APFloat's natural precision prints 300 as 300 but 0.9 as
  // 0.90000000000000002, and its shorter precisions truncate: take the
  // shorter of it and the fewest correctly rounded digits that read back to
  // the same value.
  llvm::SmallString<32> text;
  value.toString(text, /*FormatPrecision=*/0, /*FormatMaxPadding=*/6,
                 /*TruncateZero=*/true);
  bool losesInfo = false;
  APFloat wide = value;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  for (int digits = 1; !losesInfo && digits <= 17; ++digits) {
    char buffer[40];
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits,
                  wide.convertToDouble());
    APFloat back(value.getSemantics());
    llvm::Expected<APFloat::opStatus> status =
        back.convertFromString(buffer, APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      continue;
    }
    if (!back.bitwiseIsEqual(value))
      continue;
    // 1e-08 -> 1E-8 and 1e+12 -> 1E+12, as APFloat spells exponents.
    llvm::StringRef mantissa = buffer, exponent;
    std::tie(mantissa, exponent) = mantissa.split('e');
    std::string fewest = mantissa.str();
    if (!exponent.empty()) {
      bool negative = exponent.consume_front("-");
      exponent.consume_front("+");
      exponent = exponent.ltrim('0');
      fewest += (negative ? "E-" : "E+") + exponent.str();
    }
    if (fewest.size() < text.size())
      text = fewest;
    break;
  }
  // MLIR's lexer needs a '.' before an exponent to read a float.
  size_t exponent = text.find_first_of("eE");
  if (exponent != llvm::StringRef::npos &&
      llvm::StringRef(text).take_front(exponent).find('.') ==
          llvm::StringRef::npos)
    text.insert(text.begin() + exponent, {'.', '0'});
  os << text;
}

FailureOr<APFloat> loom::parseF64(AsmParser &parser) {
  // An untyped literal parses as i64 or f64, with its sign.
  Attribute number;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(number))
    return failure();
  if (auto integer = dyn_cast<IntegerAttr>(number))
    return APFloat(double(integer.getValue().getSExtValue()));
  if (auto real = dyn_cast<FloatAttr>(number))
    return APFloat(real.getValueAsDouble());
  return parser.emitError(loc, "expected a number, got ") << number;
}

void loom::printF64(AsmPrinter &printer, const APFloat &value) {
  printShortestFloat(printer.getStream(), value);
}
