//===- Json.cpp - A small JSON reader and writer --------------------------===//

#include "loom/runtime/Json.h"
#include <charconv>
#include <cmath>
#include <cstdio>
#include <unordered_set>

using namespace loom::rt;
using namespace loom::rt::json;

const char *json::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "boolean";
  case Kind::Number:
    return "number";
  case Kind::String:
    return "string";
  case Kind::Array:
    return "array";
  case Kind::Object:
    return "object";
  }
  return "value";
}

//===----------------------------------------------------------------------===//
// Value
//===----------------------------------------------------------------------===//

Value Value::boolean(bool value) {
  Value result;
  result.valueKind = Kind::Bool;
  result.boolValue = value;
  return result;
}

Value Value::number(double value) {
  Value result;
  result.valueKind = Kind::Number;
  result.numberValue = value;
  // Integral doubles in int64_t range also answer getInteger().
  if (std::isfinite(value) && std::trunc(value) == value &&
      value >= -9223372036854775808.0 && value < 9223372036854775808.0) {
    result.exactInteger = true;
    result.integerValue = static_cast<int64_t>(value);
  }
  return result;
}

Value Value::integer(int64_t value) {
  Value result;
  result.valueKind = Kind::Number;
  result.exactInteger = true;
  result.integerValue = value;
  result.numberValue = static_cast<double>(value);
  return result;
}

Value Value::string(std::string value) {
  Value result;
  result.valueKind = Kind::String;
  result.stringValue = std::move(value);
  return result;
}

Value Value::array() {
  Value result;
  result.valueKind = Kind::Array;
  return result;
}

Value Value::object() {
  Value result;
  result.valueKind = Kind::Object;
  return result;
}

const Value *Value::find(std::string_view key) const {
  if (valueKind != Kind::Object)
    return nullptr;
  for (const Member &member : members)
    if (member.key == key)
      return &member.value;
  return nullptr;
}

void Value::push_back(Value value) {
  if (valueKind == Kind::Array)
    elements.push_back(std::move(value));
}

void Value::set(std::string_view key, Value value) {
  if (valueKind != Kind::Object)
    return;
  for (Member &member : members) {
    if (member.key == key) {
      member.value = std::move(value);
      return;
    }
  }
  members.push_back(Member{std::string(key), std::move(value)});
}

bool Value::erase(std::string_view key) {
  if (valueKind != Kind::Object)
    return false;
  for (auto it = members.begin(); it != members.end(); ++it) {
    if (it->key == key) {
      members.erase(it);
      return true;
    }
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

std::string ParseError::format() const {
  return "byte " + std::to_string(offset) + " (line " + std::to_string(line) +
         ", column " + std::to_string(column) + "): " + message;
}

namespace {
/// Length of the UTF-8 sequence starting at `s` (at most `n` bytes
/// available), or 0 if it is not well-formed (overlong forms, surrogates
/// and code points above U+10FFFF are rejected).
size_t utf8SequenceLength(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  if (c < 0x80)
    return 1;
  size_t length;
  uint32_t min;
  uint32_t code;
  if ((c & 0xe0) == 0xc0) {
    length = 2;
    min = 0x80;
    code = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    length = 3;
    min = 0x800;
    code = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    length = 4;
    min = 0x10000;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (n < length)
    return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    code = (code << 6) | (s[i] & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
    return 0;
  return length;
}

void appendUtf8(std::string &out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

std::string describeByte(unsigned char c) {
  char buffer[16];
  if (c >= 0x20 && c < 0x7f)
    std::snprintf(buffer, sizeof(buffer), "'%c'", c);
  else
    std::snprintf(buffer, sizeof(buffer), "byte 0x%02x", c);
  return buffer;
}
} // namespace

namespace loom::rt::json {
class Parser {
public:
  Parser(std::string_view text, const ParseOptions &options, ParseError &error)
      : text(text), options(options), error(error) {}

  bool parseDocument(Value &result) {
    // A UTF-8 byte-order mark is tolerated (RFC 8259 section 8.1).
    if (text.substr(0, 3) == "\xef\xbb\xbf")
      pos = 3;
    skipWhitespace();
    if (!parseValue(result, 0))
      return false;
    skipWhitespace();
    if (pos != text.size())
      return fail("unexpected " + describeByte(text[pos]) +
                  " after the JSON value");
    return true;
  }

private:
  bool fail(std::string message) { return failAt(pos, std::move(message)); }

  bool failAt(size_t offset, std::string message) {
    error.offset = offset;
    error.line = 1;
    error.column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++error.line;
        error.column = 1;
      } else {
        ++error.column;
      }
    }
    error.message = std::move(message);
    return false;
  }

  bool atEnd() const { return pos >= text.size(); }
  unsigned char peek() const { return static_cast<unsigned char>(text[pos]); }

  void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' ||
                        peek() == '\r'))
      ++pos;
  }

  enum class Separator { More, Closed, Error };

  /// After an element of an array or object: a ',' (more follow) or the
  /// closing bracket; anything else is an error, reported here.
  Separator parseSeparator(char close, const char *what) {
    skipWhitespace();
    std::string expected = std::string("',' or '") + close + "'";
    if (atEnd()) {
      fail(std::string("unterminated ") + what + ": expected " + expected);
      return Separator::Error;
    }
    char c = static_cast<char>(peek());
    if (c == ',' || c == close) {
      ++pos;
      return c == ',' ? Separator::More : Separator::Closed;
    }
    fail("expected " + expected + " in an " + what + ", found " +
         describeByte(peek()));
    return Separator::Error;
  }

  bool expectedValue() {
    if (atEnd())
      return fail("expected a JSON value, found the end of the input");
    return fail("expected a JSON value, found " + describeByte(peek()));
  }

  bool parseValue(Value &result, unsigned depth) {
    if (atEnd())
      return expectedValue();
    switch (peek()) {
    case '{':
      return parseObject(result, depth + 1);
    case '[':
      return parseArray(result, depth + 1);
    case '"':
      result = Value();
      result.valueKind = Kind::String;
      return parseString(result.stringValue);
    case 't':
      return parseLiteral("true", Value::boolean(true), result);
    case 'f':
      return parseLiteral("false", Value::boolean(false), result);
    case 'n':
      return parseLiteral("null", Value(), result);
    default:
      if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
        return parseNumber(result);
      return expectedValue();
    }
  }

  bool parseLiteral(std::string_view word, Value value, Value &result) {
    if (text.substr(pos, word.size()) != word)
      return expectedValue();
    pos += word.size();
    result = std::move(value);
    return true;
  }

  bool checkDepth(unsigned depth) {
    if (depth > options.maxDepth)
      return fail("nesting is deeper than the limit of " +
                  std::to_string(options.maxDepth) + " levels");
    return true;
  }

  bool parseArray(Value &result, unsigned depth) {
    if (!checkDepth(depth))
      return false;
    result = Value::array();
    ++pos; // '['
    skipWhitespace();
    if (!atEnd() && peek() == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipWhitespace();
      Value element;
      if (!parseValue(element, depth))
        return false;
      result.elements.push_back(std::move(element));
      Separator next = parseSeparator(']', "array");
      if (next == Separator::More)
        continue;
      return next == Separator::Closed;
    }
  }

  bool parseObject(Value &result, unsigned depth) {
    if (!checkDepth(depth))
      return false;
    result = Value::object();
    ++pos; // '{'
    skipWhitespace();
    if (!atEnd() && peek() == '}') {
      ++pos;
      return true;
    }
    std::unordered_set<std::string> keys;
    while (true) {
      skipWhitespace();
      if (atEnd())
        return fail("unterminated object: expected a key");
      if (peek() != '"')
        return fail("expected a string key in an object, found " +
                    describeByte(peek()));
      size_t keyOffset = pos;
      std::string key;
      if (!parseString(key))
        return false;
      // Duplicate keys are ambiguous (RFC 8259 leaves the meaning open).
      if (!keys.insert(key).second)
        return failAt(keyOffset, "duplicate key \"" + key + "\"");
      skipWhitespace();
      if (atEnd() || peek() != ':')
        return fail(atEnd() ? "expected ':' after an object key, found the "
                              "end of the input"
                            : "expected ':' after an object key, found " +
                                  describeByte(peek()));
      ++pos;
      skipWhitespace();
      Value value;
      if (!parseValue(value, depth))
        return false;
      result.members.push_back(Member{std::move(key), std::move(value)});
      Separator next = parseSeparator('}', "object");
      if (next == Separator::More)
        continue;
      return next == Separator::Closed;
    }
  }

  bool parseHex4(uint32_t &code) {
    if (text.size() - pos < 4)
      return fail("incomplete \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos + i];
      uint32_t digit;
      if (c >= '0' && c <= '9')
        digit = c - '0';
      else if (c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        return failAt(pos + i, "invalid hex digit in \\u escape");
      code = code * 16 + digit;
    }
    pos += 4;
    return true;
  }

  bool parseString(std::string &out) {
    size_t start = pos;
    ++pos; // '"'
    while (true) {
      if (atEnd())
        return failAt(start, "unterminated string");
      unsigned char c = peek();
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c < 0x20)
        return fail("control character " + describeByte(c) +
                    " in a string must be escaped");
      if (c == '\\') {
        if (!parseEscape(out))
          return false;
        continue;
      }
      size_t length = utf8SequenceLength(
          reinterpret_cast<const unsigned char *>(text.data()) + pos,
          text.size() - pos);
      if (length == 0)
        return fail("invalid UTF-8 in a string");
      out.append(text.data() + pos, length);
      pos += length;
    }
  }

  bool parseEscape(std::string &out) {
    size_t escapeOffset = pos;
    ++pos; // '\\'
    if (atEnd())
      return failAt(escapeOffset, "unterminated escape sequence");
    char c = text[pos++];
    switch (c) {
    case '"':
      out += '"';
      return true;
    case '\\':
      out += '\\';
      return true;
    case '/':
      out += '/';
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u': {
      uint32_t code;
      if (!parseHex4(code))
        return false;
      if (code >= 0xdc00 && code <= 0xdfff)
        return failAt(escapeOffset, "unpaired low surrogate in \\u escape");
      if (code >= 0xd800 && code <= 0xdbff) {
        // A high surrogate must be followed by an escaped low surrogate.
        uint32_t low;
        if (text.substr(pos, 2) != "\\u")
          return failAt(escapeOffset, "unpaired high surrogate in \\u escape");
        pos += 2;
        if (!parseHex4(low))
          return false;
        if (low < 0xdc00 || low > 0xdfff)
          return failAt(escapeOffset, "unpaired high surrogate in \\u escape");
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
      }
      appendUtf8(out, code);
      return true;
    }
    default:
      return failAt(escapeOffset,
                    "invalid escape sequence '\\" +
                        std::string(1, c >= 0x20 && c < 0x7f ? c : '?') + "'");
    }
  }

  bool parseNumber(Value &result) {
    size_t start = pos;
    auto isDigit = [&] { return !atEnd() && peek() >= '0' && peek() <= '9'; };
    if (peek() == '-')
      ++pos;
    if (!isDigit())
      return fail("expected a digit in a number");
    if (peek() == '0') {
      ++pos;
      if (isDigit())
        return failAt(start, "numbers must not have leading zeros");
    } else {
      while (isDigit())
        ++pos;
    }
    bool integral = true;
    if (!atEnd() && peek() == '.') {
      integral = false;
      ++pos;
      if (!isDigit())
        return fail("expected a digit after the decimal point");
      while (isDigit())
        ++pos;
    }
    if (!atEnd() && (peek() == 'e' || peek() == 'E')) {
      integral = false;
      ++pos;
      if (!atEnd() && (peek() == '+' || peek() == '-'))
        ++pos;
      if (!isDigit())
        return fail("expected a digit in the exponent");
      while (isDigit())
        ++pos;
    }
    const char *first = text.data() + start;
    const char *last = text.data() + pos;
    result = Value();
    result.valueKind = Kind::Number;
    if (integral) {
      int64_t value;
      auto [ptr, ec] = std::from_chars(first, last, value);
      if (ec == std::errc() && ptr == last) {
        result.exactInteger = true;
        result.integerValue = value;
        result.numberValue = static_cast<double>(value);
        return true;
      }
      // Too large for int64_t: still a valid JSON number, as a double.
    }
    // from_chars is locale-independent, unlike strtod.
    double value;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec == std::errc::result_out_of_range) {
      // Underflow to zero is harmless; overflow to infinity is not a number
      // anyone meant.
      if (!isUnderflow(std::string_view(first, last - first))) {
        std::string_view shown(first, last - first);
        if (shown.size() > 40)
          shown = shown.substr(0, 40);
        return failAt(start,
                      "number " + std::string(shown) + " is out of range");
      }
      value = 0.0;
    } else if (ec != std::errc() || ptr != last) {
      return failAt(start, "invalid number");
    }
    result.numberValue = value;
    return true;
  }

  /// Whether an out-of-range number literal is tiny rather than huge: the
  /// decimal exponent of its first significant digit is negative.
  static bool isUnderflow(std::string_view literal) {
    size_t i = literal[0] == '-' ? 1 : 0;
    int64_t magnitude = 0;
    bool found = false;
    for (; i < literal.size() && literal[i] >= '0' && literal[i] <= '9'; ++i) {
      if (!found && literal[i] != '0') {
        found = true;
        magnitude = -1; // Counts the digits after this one below.
      }
      if (found)
        ++magnitude;
    }
    if (i < literal.size() && literal[i] == '.') {
      ++i;
      int64_t position = 0;
      for (; i < literal.size() && literal[i] >= '0' && literal[i] <= '9';
           ++i) {
        ++position;
        if (!found && literal[i] != '0') {
          found = true;
          magnitude = -position;
        }
      }
    }
    if (!found)
      return true; // Zero.
    int64_t exponent = 0;
    if (i < literal.size() && (literal[i] == 'e' || literal[i] == 'E')) {
      ++i;
      bool negative = false;
      if (i < literal.size() && (literal[i] == '+' || literal[i] == '-'))
        negative = literal[i++] == '-';
      for (; i < literal.size(); ++i)
        if (exponent < 1000000000)
          exponent = exponent * 10 + (literal[i] - '0');
      if (negative)
        exponent = -exponent;
    }
    return magnitude + exponent < 0;
  }

  std::string_view text;
  const ParseOptions &options;
  ParseError &error;
  size_t pos = 0;
};
} // namespace loom::rt::json

bool json::parse(std::string_view text, Value &result, ParseError &error,
                 const ParseOptions &options) {
  Parser parser(text, options, error);
  return parser.parseDocument(result);
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

namespace {
void appendQuoted(std::string &out, std::string_view text) {
  out += '"';
  const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = bytes[i];
    switch (c) {
    case '"':
      out += "\\\"";
      ++i;
      continue;
    case '\\':
      out += "\\\\";
      ++i;
      continue;
    case '\n':
      out += "\\n";
      ++i;
      continue;
    case '\r':
      out += "\\r";
      ++i;
      continue;
    case '\t':
      out += "\\t";
      ++i;
      continue;
    case '\b':
      out += "\\b";
      ++i;
      continue;
    case '\f':
      out += "\\f";
      ++i;
      continue;
    default:
      break;
    }
    if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
      ++i;
      continue;
    }
    size_t length = utf8SequenceLength(bytes + i, text.size() - i);
    if (length == 0) {
      out += "\xef\xbf\xbd"; // U+FFFD for a byte that is not UTF-8.
      ++i;
      continue;
    }
    out.append(text.data() + i, length);
    i += length;
  }
  out += '"';
}
} // namespace

std::string json::quote(std::string_view text) {
  std::string out;
  appendQuoted(out, text);
  return out;
}

void Writer::newline() {
  if (indentWidth == 0)
    return;
  out += '\n';
  out.append(stack.size() * indentWidth, ' ');
}

bool Writer::beginValue() {
  if (misused)
    return false;
  if (stack.empty()) {
    if (wroteRoot) {
      misused = true;
      return false;
    }
    wroteRoot = true;
    return true;
  }
  if (stack.back() == Scope::Object) {
    // Object members are written by key(); a value must follow one.
    if (!keyPending) {
      misused = true;
      return false;
    }
    keyPending = false;
    return true;
  }
  if (hasMembers.back())
    out += ',';
  hasMembers.back() = true;
  newline();
  return true;
}

Writer &Writer::key(std::string_view name) {
  if (misused)
    return *this;
  if (stack.empty() || stack.back() != Scope::Object || keyPending) {
    misused = true;
    return *this;
  }
  if (hasMembers.back())
    out += ',';
  hasMembers.back() = true;
  newline();
  appendQuoted(out, name);
  out += indentWidth ? ": " : ":";
  keyPending = true;
  return *this;
}

Writer &Writer::open(char bracket, Scope scope) {
  if (!beginValue())
    return *this;
  out += bracket;
  stack.push_back(scope);
  hasMembers.push_back(false);
  return *this;
}

Writer &Writer::beginObject() { return open('{', Scope::Object); }

Writer &Writer::beginArray() { return open('[', Scope::Array); }

Writer &Writer::close(char bracket, Scope scope) {
  if (misused)
    return *this;
  if (stack.empty() || stack.back() != scope || keyPending) {
    misused = true;
    return *this;
  }
  bool nonEmpty = hasMembers.back();
  stack.pop_back();
  hasMembers.pop_back();
  if (nonEmpty)
    newline();
  out += bracket;
  return *this;
}

Writer &Writer::endObject() { return close('}', Scope::Object); }

Writer &Writer::endArray() { return close(']', Scope::Array); }

Writer &Writer::null() {
  if (beginValue())
    out += "null";
  return *this;
}

Writer &Writer::boolean(bool value) {
  if (beginValue())
    out += value ? "true" : "false";
  return *this;
}

Writer &Writer::integer(int64_t value) {
  if (beginValue())
    out += std::to_string(value);
  return *this;
}

Writer &Writer::unsignedInteger(uint64_t value) {
  if (beginValue())
    out += std::to_string(value);
  return *this;
}

Writer &Writer::number(double value) {
  if (!beginValue())
    return *this;
  if (!std::isfinite(value)) {
    out += "null";
    return *this;
  }
  // "-0" would read back as the integer 0; keep the sign.
  if (value == 0 && std::signbit(value)) {
    out += "-0.0";
    return *this;
  }
  // Shortest text that reads back as the same double, locale-independent.
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) {
    out += "null";
    return *this;
  }
  out.append(buffer, ptr);
  return *this;
}

Writer &Writer::string(std::string_view value) {
  if (beginValue())
    appendQuoted(out, value);
  return *this;
}

Writer &Writer::value(const Value &value) {
  switch (value.kind()) {
  case Kind::Null:
    return null();
  case Kind::Bool:
    return boolean(value.getBool());
  case Kind::Number:
    return value.isInteger() ? integer(value.getInteger())
                             : number(value.getNumber());
  case Kind::String:
    return string(value.getString());
  case Kind::Array:
    beginArray();
    for (const Value &element : value.getArray())
      this->value(element);
    return endArray();
  case Kind::Object:
    beginObject();
    for (const Member &member : value.getObject()) {
      key(member.key);
      this->value(member.value);
    }
    return endObject();
  }
  return *this;
}

std::string json::serialize(const Value &value, unsigned indent) {
  Writer writer(indent);
  writer.value(value);
  std::string text = writer.take();
  if (indent)
    text += '\n';
  return text;
}
