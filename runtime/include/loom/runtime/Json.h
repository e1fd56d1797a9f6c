//===- Json.h - A small JSON reader and writer ------------------*- C++ -*-===//
//
// The runtime reads manifests and will write metrics and checkpoint
// manifests; it is built without exceptions, so it cannot use libraries that
// report errors by throwing. The parser is strict RFC 8259 (no comments, no
// trailing commas, UTF-8 validated, duplicate keys rejected), bounds its
// nesting depth, and reports errors with a byte offset, line and column.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_JSON_H
#define LOOM_RUNTIME_JSON_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::rt::json {

enum class Kind { Null, Bool, Number, String, Array, Object };

/// "null", "boolean", "number", "string", "array", "object".
const char *kindName(Kind kind);

struct Member;

/// A JSON value. Objects keep their members in document order.
class Value {
public:
  /// null.
  Value() = default;

  static Value boolean(bool value);
  static Value number(double value);
  static Value integer(int64_t value);
  static Value string(std::string value);
  static Value array();
  static Value object();

  Kind kind() const { return valueKind; }
  bool isNull() const { return valueKind == Kind::Null; }
  bool isBool() const { return valueKind == Kind::Bool; }
  bool isNumber() const { return valueKind == Kind::Number; }
  bool isString() const { return valueKind == Kind::String; }
  bool isArray() const { return valueKind == Kind::Array; }
  bool isObject() const { return valueKind == Kind::Object; }
  /// A number written without fraction or exponent that fits in int64_t
  /// (or built with integer()).
  bool isInteger() const { return valueKind == Kind::Number && exactInteger; }

  bool getBool() const { return boolValue; }
  double getNumber() const { return numberValue; }
  int64_t getInteger() const { return integerValue; }
  const std::string &getString() const { return stringValue; }
  const std::vector<Value> &getArray() const { return elements; }
  std::vector<Value> &getArray() { return elements; }
  const std::vector<Member> &getObject() const { return members; }

  /// The member named `key` of an object, or null when absent or not an
  /// object.
  const Value *find(std::string_view key) const;

  /// Appends to an array (no effect on other kinds).
  void push_back(Value value);
  /// Sets member `key` of an object, replacing an existing one in place (no
  /// effect on other kinds).
  void set(std::string_view key, Value value);
  /// Removes member `key` of an object; false if there was none.
  bool erase(std::string_view key);

private:
  Kind valueKind = Kind::Null;
  bool boolValue = false;
  bool exactInteger = false;
  double numberValue = 0;
  int64_t integerValue = 0;
  std::string stringValue;
  std::vector<Value> elements;
  std::vector<Member> members;

  friend class Parser;
};

struct Member {
  std::string key;
  Value value;
};

struct ParseError {
  /// Byte offset of the problem in the input, and its 1-based line and
  /// column (in bytes).
  size_t offset = 0;
  size_t line = 0;
  size_t column = 0;
  std::string message;

  /// "byte 12 (line 2, column 5): expected ':' after an object key".
  std::string format() const;
};

struct ParseOptions {
  /// Deepest nesting of arrays and objects accepted.
  unsigned maxDepth = 64;
};

/// Parses `text` as one JSON value (surrounding whitespace and a leading
/// UTF-8 byte-order mark allowed). On failure returns false and fills
/// `error`; `result` is then unspecified.
bool parse(std::string_view text, Value &result, ParseError &error,
           const ParseOptions &options = ParseOptions());

/// Streams JSON text into a string. Strings are escaped (invalid UTF-8 is
/// replaced by U+FFFD so the output is always valid JSON); non-finite
/// numbers, which JSON cannot express, are written as null. Misuse (a value
/// where a key is due, unbalanced ends) is recorded and makes ok() false
/// instead of producing broken output silently.
class Writer {
public:
  /// `indent` spaces per level; 0 writes everything on one line.
  explicit Writer(unsigned indent = 0) : indentWidth(indent) {}

  Writer &beginObject();
  Writer &endObject();
  Writer &beginArray();
  Writer &endArray();
  /// The key of the next object member.
  Writer &key(std::string_view name);

  Writer &null();
  Writer &boolean(bool value);
  Writer &integer(int64_t value);
  Writer &unsignedInteger(uint64_t value);
  Writer &number(double value);
  Writer &string(std::string_view value);
  /// Writes a whole value tree.
  Writer &value(const Value &value);

  /// True while every call so far was well-formed.
  bool ok() const { return !misused; }
  /// True when ok() and every object and array has been closed.
  bool complete() const { return ok() && stack.empty() && wroteRoot; }
  const std::string &str() const { return out; }
  std::string take() { return std::move(out); }

private:
  enum class Scope : unsigned char { Object, Array };
  bool beginValue();
  Writer &open(char bracket, Scope scope);
  Writer &close(char bracket, Scope scope);
  void newline();

  std::string out;
  std::vector<Scope> stack;
  std::vector<bool> hasMembers;
  unsigned indentWidth;
  bool keyPending = false;
  bool wroteRoot = false;
  bool misused = false;
};

/// `value` as JSON text; `indent` as for Writer. Pretty output ends in a
/// newline.
std::string serialize(const Value &value, unsigned indent = 0);

/// `text` as a JSON string literal, quotes included.
std::string quote(std::string_view text);

} // namespace loom::rt::json

#endif // LOOM_RUNTIME_JSON_H
