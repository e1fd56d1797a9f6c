//===- JsonTest.cpp - The runtime's JSON reader and writer ----------------===//

#include "loom/runtime/Json.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace loom::rt;

namespace {
json::Value parseOk(std::string_view text) {
  json::Value value;
  json::ParseError error;
  EXPECT_TRUE(json::parse(text, value, error))
      << "'" << text << "': " << error.format();
  return value;
}

json::ParseError parseFails(std::string_view text,
                            json::ParseOptions options = json::ParseOptions()) {
  json::Value value;
  json::ParseError error;
  EXPECT_FALSE(json::parse(text, value, error, options))
      << "'" << text << "' parsed";
  return error;
}

TEST(Json, ParsesEveryKind) {
  json::Value v = parseOk(R"( {"n": null, "t": true, "f": false, "i": -42,
      "d": 2.5, "s": "hi", "a": [1, [2], {}], "o": {"k": []}} )");
  ASSERT_TRUE(v.isObject());
  EXPECT_EQ(v.getObject().size(), 8u);
  EXPECT_TRUE(v.find("n")->isNull());
  EXPECT_TRUE(v.find("t")->getBool());
  EXPECT_FALSE(v.find("f")->getBool());
  EXPECT_TRUE(v.find("i")->isInteger());
  EXPECT_EQ(v.find("i")->getInteger(), -42);
  EXPECT_FALSE(v.find("d")->isInteger());
  EXPECT_EQ(v.find("d")->getNumber(), 2.5);
  EXPECT_EQ(v.find("s")->getString(), "hi");
  ASSERT_EQ(v.find("a")->getArray().size(), 3u);
  EXPECT_TRUE(v.find("a")->getArray()[1].isArray());
  EXPECT_TRUE(v.find("a")->getArray()[2].isObject());
  EXPECT_TRUE(v.find("o")->find("k")->isArray());
  EXPECT_EQ(v.find("missing"), nullptr);
  // Members keep document order.
  EXPECT_EQ(v.getObject()[0].key, "n");
  EXPECT_EQ(v.getObject()[7].key, "o");
}

TEST(Json, IntegersAreExact) {
  EXPECT_EQ(parseOk("9223372036854775807").getInteger(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parseOk("-9223372036854775808").getInteger(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parseOk("9007199254740993").getInteger(), 9007199254740993);
  // Beyond int64_t: still a number, no longer an integer.
  json::Value big = parseOk("9223372036854775808");
  EXPECT_TRUE(big.isNumber());
  EXPECT_FALSE(big.isInteger());
  EXPECT_EQ(big.getNumber(), 9223372036854775808.0);
  // A fraction or exponent makes a double even when the value is integral.
  EXPECT_FALSE(parseOk("1.0").isInteger());
  EXPECT_FALSE(parseOk("1e2").isInteger());
  EXPECT_EQ(parseOk("1e2").getNumber(), 100.0);
  EXPECT_EQ(parseOk("-0").getInteger(), 0);
}

TEST(Json, Doubles) {
  EXPECT_EQ(parseOk("0.1").getNumber(), 0.1);
  EXPECT_EQ(parseOk("-1.5E-3").getNumber(), -1.5e-3);
  EXPECT_EQ(parseOk("1e+300").getNumber(), 1e300);
  EXPECT_EQ(parseOk("4.9e-324").getNumber(), 4.9e-324);
  // Underflow is harmless and becomes 0; overflow is an error.
  EXPECT_EQ(parseOk("1e-400").getNumber(), 0.0);
  EXPECT_EQ(parseOk("0.0000e-999999999999").getNumber(), 0.0);
  EXPECT_EQ(parseFails("1e400").message, "number 1e400 is out of range");
  EXPECT_EQ(parseFails("-123.5e99999").message,
            "number -123.5e99999 is out of range");
}

TEST(Json, Strings) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\b\f\n\r\t")").getString(),
            "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(parseOk(R"("\u00e9\u20AC")").getString(), "\xc3\xa9\xe2\x82\xac");
  // A surrogate pair is one code point (U+1F600).
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").getString(), "\xf0\x9f\x98\x80");
  EXPECT_EQ(parseOk("\"caf\xc3\xa9\"").getString(), "caf\xc3\xa9");
  EXPECT_EQ(parseOk(R"("\u0000")").getString(), std::string(1, '\0'));
  EXPECT_EQ(parseOk("\"\"").getString(), "");
}

TEST(Json, ByteOrderMarkAndWhitespace) {
  EXPECT_TRUE(parseOk("\xef\xbb\xbf{}").isObject());
  EXPECT_TRUE(parseOk(" \t\r\n[ ]\n").isArray());
}

TEST(Json, ErrorsHaveOffsets) {
  json::ParseError error = parseFails("{\n  \"a\": 1,\n  \"b\" 2\n}");
  EXPECT_EQ(error.offset, 18u);
  EXPECT_EQ(error.line, 3u);
  EXPECT_EQ(error.column, 7u);
  EXPECT_EQ(error.message, "expected ':' after an object key, found '2'");
  EXPECT_EQ(error.format(), "byte 18 (line 3, column 7): expected ':' after "
                            "an object key, found '2'");
}

TEST(Json, SyntaxErrors) {
  struct Case {
    const char *text;
    size_t offset;
    const char *message;
  };
  const Case cases[] = {
      {"", 0, "expected a JSON value, found the end of the input"},
      {"   ", 3, "expected a JSON value, found the end of the input"},
      {"[1,]", 3, "expected a JSON value, found ']'"},
      {"{\"a\":1,}", 7, "expected a string key in an object, found '}'"},
      {"{'a':1}", 1, "expected a string key in an object, found '''"},
      {"[1 2]", 3, "expected ',' or ']' in an array, found '2'"},
      {"[1", 2, "unterminated array: expected ',' or ']'"},
      {"{\"a\":1", 6, "unterminated object: expected ',' or '}'"},
      {"01", 0, "numbers must not have leading zeros"},
      {"-", 1, "expected a digit in a number"},
      {"1.", 2, "expected a digit after the decimal point"},
      {"1e", 2, "expected a digit in the exponent"},
      {".5", 0, "expected a JSON value, found '.'"},
      {"+1", 0, "expected a JSON value, found '+'"},
      {"NaN", 0, "expected a JSON value, found 'N'"},
      {"Infinity", 0, "expected a JSON value, found 'I'"},
      {"tru", 0, "expected a JSON value, found 't'"},
      {"nul", 0, "expected a JSON value, found 'n'"},
      {"\"abc", 0, "unterminated string"},
      {"\"a\tb\"", 2,
       "control character byte 0x09 in a string must be "
       "escaped"},
      {"\"\\x\"", 1, "invalid escape sequence '\\x'"},
      {"\"\\u12g4\"", 5, "invalid hex digit in \\u escape"},
      {"\"\\u12\"", 3, "incomplete \\u escape"},
      {"\"\\udc00\"", 1, "unpaired low surrogate in \\u escape"},
      {"\"\\ud800\"", 1, "unpaired high surrogate in \\u escape"},
      {"\"\\ud800\\u0041\"", 1, "unpaired high surrogate in \\u escape"},
      {"\"\xff\"", 1, "invalid UTF-8 in a string"},
      {"\"\xc0\xaf\"", 1, "invalid UTF-8 in a string"},     // overlong
      {"\"\xed\xa0\x80\"", 1, "invalid UTF-8 in a string"}, // surrogate
      {"\"\xe2\x82\"", 1, "invalid UTF-8 in a string"},     // truncated
      {"{\"a\":1,\"a\":2}", 7, "duplicate key \"a\""},
      {"{} x", 3, "unexpected 'x' after the JSON value"},
      {"[] // comment", 3, "unexpected '/' after the JSON value"},
      {"1 2", 2, "unexpected '2' after the JSON value"},
      {"[\x01]", 1, "expected a JSON value, found byte 0x01"},
  };
  for (const Case &c : cases) {
    json::ParseError error = parseFails(c.text);
    EXPECT_EQ(error.offset, c.offset) << "'" << c.text << "'";
    EXPECT_EQ(error.message, c.message) << "'" << c.text << "'";
  }
  // Embedded NUL bytes are data, not terminators.
  json::ParseError error = parseFails(std::string_view("[1]\0", 4));
  EXPECT_EQ(error.message, "unexpected byte 0x00 after the JSON value");
  EXPECT_EQ(parseFails(std::string_view("\"a\0\"", 4)).message,
            "control character byte 0x00 in a string must be escaped");
}

TEST(Json, DepthIsBounded) {
  json::ParseOptions options;
  options.maxDepth = 64;
  std::string ok = std::string(64, '[') + std::string(64, ']');
  json::Value value;
  json::ParseError error;
  EXPECT_TRUE(json::parse(ok, value, error, options));
  std::string deep = std::string(65, '[') + std::string(65, ']');
  error = parseFails(deep, options);
  EXPECT_EQ(error.offset, 64u);
  EXPECT_EQ(error.message, "nesting is deeper than the limit of 64 levels");
  // Far deeper input fails the same way instead of exhausting the stack.
  std::string hostile(1000000, '[');
  EXPECT_EQ(parseFails(hostile).offset, 64u);
  std::string objects;
  for (int i = 0; i < 100000; ++i)
    objects += "{\"a\":";
  EXPECT_EQ(parseFails(objects).message,
            "nesting is deeper than the limit of 64 levels");
}

TEST(Json, ValueEditing) {
  json::Value object = json::Value::object();
  object.set("a", json::Value::integer(1));
  object.set("b", json::Value::string("x"));
  object.set("a", json::Value::boolean(true)); // Replaces in place.
  ASSERT_EQ(object.getObject().size(), 2u);
  EXPECT_EQ(object.getObject()[0].key, "a");
  EXPECT_TRUE(object.find("a")->getBool());
  EXPECT_TRUE(object.erase("a"));
  EXPECT_FALSE(object.erase("a"));
  EXPECT_EQ(object.getObject().size(), 1u);

  // Kind-mismatched edits are ignored rather than corrupting the value.
  json::Value number = json::Value::integer(3);
  number.push_back(json::Value());
  number.set("k", json::Value());
  EXPECT_TRUE(number.isInteger());
  EXPECT_EQ(number.find("k"), nullptr);

  EXPECT_TRUE(json::Value::number(3.0).isInteger());
  EXPECT_FALSE(json::Value::number(3.5).isInteger());
  EXPECT_FALSE(json::Value::number(1e300).isInteger());
}

TEST(Json, WriterCompactAndPretty) {
  json::Writer compact;
  compact.beginObject()
      .key("name")
      .string("x")
      .key("shape")
      .beginArray()
      .integer(32)
      .integer(16)
      .endArray()
      .key("empty")
      .beginObject()
      .endObject()
      .key("ok")
      .boolean(true)
      .key("none")
      .null()
      .endObject();
  EXPECT_TRUE(compact.complete());
  EXPECT_EQ(compact.str(), R"({"name":"x","shape":[32,16],"empty":{},)"
                           R"("ok":true,"none":null})");

  json::Writer pretty(2);
  pretty.beginObject().key("a").beginArray().integer(1).endArray().key("b");
  pretty.beginArray().endArray().endObject();
  EXPECT_EQ(pretty.str(), "{\n  \"a\": [\n    1\n  ],\n  \"b\": []\n}");
}

TEST(Json, WriterEscapesAndNumbers) {
  EXPECT_EQ(json::quote("a\"b\\c\n\x01\x1f/"),
            "\"a\\\"b\\\\c\\n\\u0001\\u001f/\"");
  // Valid UTF-8 passes; other bytes become U+FFFD.
  EXPECT_EQ(json::quote("\xc3\xa9\xff"), "\"\xc3\xa9\xef\xbf\xbd\"");

  json::Writer writer;
  writer.beginArray()
      .number(0.1)
      .number(1e300)
      .number(5e-324)
      .number(-0.0)
      .number(std::nan(""))
      .number(std::numeric_limits<double>::infinity())
      .integer(std::numeric_limits<int64_t>::min())
      .unsignedInteger(std::numeric_limits<uint64_t>::max())
      .endArray();
  EXPECT_EQ(writer.str(), "[0.1,1e+300,5e-324,-0.0,null,null,"
                          "-9223372036854775808,18446744073709551615]");
}

TEST(Json, WriterRecordsMisuse) {
  {
    json::Writer writer;
    writer.beginObject().integer(1); // A value where a key is due.
    EXPECT_FALSE(writer.ok());
  }
  {
    json::Writer writer;
    writer.beginArray().endObject();
    EXPECT_FALSE(writer.ok());
  }
  {
    json::Writer writer;
    writer.integer(1).integer(2); // Two roots.
    EXPECT_FALSE(writer.ok());
  }
  {
    json::Writer writer;
    writer.beginObject().key("a").key("b");
    EXPECT_FALSE(writer.ok());
  }
  {
    json::Writer writer;
    writer.beginArray();
    EXPECT_TRUE(writer.ok());
    EXPECT_FALSE(writer.complete());
  }
}

TEST(Json, RoundTrip) {
  const char *text = R"({"format": "loom-artifact", "v": [1, -2.5, 1e-07,
      true, null, "\u00e9\n"], "nested": {"deep": [[[]]], "x": {}}})";
  json::Value value = parseOk(text);
  for (unsigned indent : {0u, 2u}) {
    std::string written = json::serialize(value, indent);
    json::Value again = parseOk(written);
    EXPECT_EQ(json::serialize(again, indent), written);
  }
  EXPECT_EQ(json::serialize(value),
            R"({"format":"loom-artifact","v":[1,-2.5,1e-07,true,null,)"
            R"("é\n"],"nested":{"deep":[[[]]],"x":{}}})");
}
} // namespace
