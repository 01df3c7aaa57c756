//===- JsonTest.cpp - JSON through nlohmann-json, the runtime's way -------===//
//
// The parsing itself is nlohmann-json's; what gnnrt/io/Json.h adds is
// tested here: objects keep their file order, syntax errors read
// "<what> at offset <byte>" in the words the runtime's messages use, a
// parser callback sees keys as they are read, and quoting round-trips.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/Json.h"

#include <gtest/gtest.h>

#include <set>

using namespace gnnrt;

namespace {
std::string parseErrorOf(const std::string &text) {
  try {
    (void)parseJson(text);
  } catch (const JsonSyntaxError &e) {
    return e.what();
  }
  return "<no error>";
}
} // namespace

TEST(Json, ParsesEveryKind) {
  Json v = parseJson(
      R"( {"a": [1, -2.5e3, 0.125], "s": "x\"\\\n\u00e9\ud83d\ude00",
           "t": true, "f": false, "n": null, "o": {}} )");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v.begin().key(), "a"); // key order is kept
  const Json &a = v["a"];
  ASSERT_TRUE(a.is_array());
  EXPECT_EQ(a[0].get<double>(), 1);
  EXPECT_EQ(a[1].get<double>(), -2500);
  EXPECT_EQ(a[2].get<double>(), 0.125);
  EXPECT_EQ(v["s"].get<std::string>(), "x\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(v["t"].get<bool>());
  EXPECT_TRUE(v["f"].is_boolean());
  EXPECT_FALSE(v["f"].get<bool>());
  EXPECT_TRUE(v["n"].is_null());
  EXPECT_TRUE(v["o"].is_object());
  EXPECT_FALSE(v.contains("missing"));
}

TEST(Json, Errors) {
  EXPECT_EQ(parseErrorOf(""), "unexpected end of input at offset 0");
  EXPECT_EQ(parseErrorOf("{\"a\" 1}"),
            "unexpected number literal at offset 5");
  EXPECT_EQ(parseErrorOf("[1, 2"), "unexpected end of input at offset 5");
  EXPECT_EQ(parseErrorOf("{1: 2}"), "unexpected number literal at offset 1");
  EXPECT_EQ(parseErrorOf("1x"), "invalid literal at offset 1");
  EXPECT_EQ(parseErrorOf("\"abc"), "unterminated string at offset 4");
  EXPECT_EQ(parseErrorOf("\"\\q\""), "bad escape at offset 2");
  EXPECT_EQ(parseErrorOf("\"\\u12\""), "bad \\u escape at offset 5");
  EXPECT_EQ(parseErrorOf("\"a\x01\""), "control character in string at offset 2");
}

TEST(Json, CallbackSeesKeysAsRead) {
  std::set<std::string> seen;
  std::string repeated;
  (void)parseJson(R"({"a": {"a": 1}, "b": 2, "a": 3})",
                  [&](int depth, Json::parse_event_t event, Json &parsed) {
                    if (event == Json::parse_event_t::key && depth == 1 &&
                        !seen.insert(parsed.get<std::string>()).second)
                      repeated = parsed.get<std::string>();
                    return true;
                  });
  EXPECT_EQ(repeated, "a");
}

TEST(Json, Quote) {
  EXPECT_EQ(quoteJson("c1.w"), "\"c1.w\"");
  EXPECT_EQ(quoteJson("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  // What quoteJson writes, parseJson reads back.
  std::string text = "tab\there \"q\" \x7f \xc3\xa9";
  EXPECT_EQ(parseJson(quoteJson(text)).get<std::string>(), text);
}
