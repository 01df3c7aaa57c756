//===- JsonTest.cpp - The runtime's minimal JSON reader -------------------===//

#include "io/Json.h"

#include <gtest/gtest.h>

using namespace gnnrt;

namespace {
std::string parseErrorOf(const std::string &text) {
  try {
    json::parse(text);
  } catch (const json::ParseError &e) {
    return e.what();
  }
  return "<no error>";
}
} // namespace

TEST(Json, ParsesEveryKind) {
  json::Value v = json::parse(
      R"( {"a": [1, -2.5e3, 0.125], "s": "x\"\\\n\u00e9\ud83d\ude00",
           "t": true, "f": false, "n": null, "o": {}} )");
  ASSERT_TRUE(v.isObject());
  ASSERT_EQ(v.object.size(), 6u);
  EXPECT_EQ(v.object[0].first, "a"); // key order is kept
  const json::Value *a = v.find("a");
  ASSERT_TRUE(a && a->isArray());
  EXPECT_EQ(a->array[0].number, 1);
  EXPECT_EQ(a->array[1].number, -2500);
  EXPECT_EQ(a->array[2].number, 0.125);
  EXPECT_EQ(v.find("s")->string, "x\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(v.find("t")->boolean);
  EXPECT_EQ(v.find("f")->kind, json::Value::Kind::Bool);
  EXPECT_FALSE(v.find("f")->boolean);
  EXPECT_EQ(v.find("n")->kind, json::Value::Kind::Null);
  EXPECT_TRUE(v.find("o")->isObject());
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(Json, Errors) {
  EXPECT_EQ(parseErrorOf(""), "unexpected end of input at offset 0");
  EXPECT_EQ(parseErrorOf("{\"a\" 1}"), "expected ':' at offset 5");
  EXPECT_EQ(parseErrorOf("[1, 2"), "expected ']' at offset 5");
  EXPECT_EQ(parseErrorOf("{1: 2}"), "expected a string key at offset 1");
  EXPECT_EQ(parseErrorOf("1x"), "unexpected trailing characters at offset 1");
  EXPECT_EQ(parseErrorOf("+1"), "expected a value at offset 0");
  EXPECT_EQ(parseErrorOf("\"abc"), "unterminated string at offset 4");
  EXPECT_EQ(parseErrorOf("\"\\q\""), "bad escape at offset 3");
  EXPECT_EQ(parseErrorOf(std::string(100, '[')),
            "nesting too deep at offset 65");
}

TEST(Json, Quote) {
  EXPECT_EQ(json::quote("c1.w"), "\"c1.w\"");
  EXPECT_EQ(json::quote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  // What quote writes, parse reads back.
  std::string text = "tab\there \"q\" \x7f \xc3\xa9";
  EXPECT_EQ(json::parse(json::quote(text)).string, text);
}
