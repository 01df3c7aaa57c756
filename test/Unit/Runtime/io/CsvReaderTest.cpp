//===- CsvReaderTest.cpp - Number parsing and line reading ----------------===//
//
// The hand-written parsers must agree exactly with the C library on every
// input they accept (floats round-trip bit for bit), reject malformed
// tokens, and the reader must count lines the way an editor does.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/CsvReader.h"

#include "TestUtil.h"
#include "gnnrt/support/Random.h"

#include <charconv>
#include <cmath>
#include <cstring>

using namespace gnnrt;
using namespace gnnrt::test;

TEST(CsvReader, ParseInt64) {
  int64_t v;
  EXPECT_TRUE(parseInt64("0", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parseInt64(" -17 ", v));
  EXPECT_EQ(v, -17);
  EXPECT_TRUE(parseInt64("+9223372036854775807", v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_TRUE(parseInt64("-9223372036854775808", v));
  EXPECT_EQ(v, INT64_MIN);
  for (const char *bad :
       {"", "-", "1.0", "1e3", "12a", "9223372036854775808", "0x10", "nan"})
    EXPECT_FALSE(parseInt64(bad, v)) << bad;
}

TEST(CsvReader, ParseFloatExactCases) {
  float v;
  struct {
    const char *text;
    float value;
  } cases[] = {{"0", 0.0f},
               {"1", 1.0f},
               {"-0.057943", -0.057943f},
               {"1e-3", 1e-3f},
               {"2.5E+2", 250.0f},
               {".5", 0.5f},
               {"5.", 5.0f},
               {"3.4028235e38", 3.4028235e38f},
               {"1e-45", 1e-45f},
               {"0.1256329119205475", 0.1256329119205475f},
               {"16777217", 16777216.0f}};
  for (auto &c : cases) {
    ASSERT_TRUE(parseFloat(c.text, v)) << c.text;
    EXPECT_EQ(v, c.value) << c.text;
  }
  ASSERT_TRUE(parseFloat("NaN", v));
  EXPECT_TRUE(std::isnan(v));
  ASSERT_TRUE(parseFloat("-inf", v));
  EXPECT_EQ(v, -HUGE_VALF);
  for (const char *bad :
       {"", ".", "-", "1.2.3", "1e", "e5", "abc", "1,0", "0x1p3"})
    EXPECT_FALSE(parseFloat(bad, v)) << bad;
}

TEST(CsvReader, ParseFloatRoundTripsShortestForm) {
  // Every float printed in shortest form must parse back to the same bits.
  CounterRng rng(3, 4);
  for (int i = 0; i < 100000; ++i) {
    uint32_t bits = rng.next();
    float f;
    std::memcpy(&f, &bits, 4);
    if (!std::isfinite(f))
      continue;
    char text[64];
    *std::to_chars(text, text + 63, f).ptr = 0;
    float back;
    ASSERT_TRUE(parseFloat(text, back)) << text;
    ASSERT_EQ(std::memcmp(&back, &f, 4), 0) << text;
  }
}

TEST(CsvReader, LinesBlanksAndCarriageReturns) {
  TempDir tmp;
  writeFile(tmp / "t.csv", "1,2\r\n\n  \n3,4\r\n5,6");
  CsvReader in(tmp / "t.csv");
  std::vector<std::string_view> fields;
  ASSERT_TRUE(in.nextLine());
  EXPECT_EQ(in.line(), "1,2");
  EXPECT_EQ(in.lineNumber(), 1);
  ASSERT_TRUE(in.nextLine());
  EXPECT_EQ(in.lineNumber(), 4);
  in.split(fields, 2);
  EXPECT_EQ(in.intField(fields[1]), 4);
  ASSERT_TRUE(in.nextLine());
  EXPECT_EQ(in.line(), "5,6"); // no final newline
  EXPECT_FALSE(in.nextLine());
}

TEST(CsvReader, LongLinesSpanBufferRefills) {
  TempDir tmp;
  // Longer than the 4 MiB buffer, so the buffer must grow mid-line.
  std::string line;
  for (int i = 0; i < 1200000; ++i)
    line += i ? ",0.5" : "0.5";
  writeFile(tmp / "long.csv.gz", line + "\n7\n");
  CsvReader in(tmp / "long.csv.gz");
  std::vector<std::string_view> fields;
  ASSERT_TRUE(in.nextLine());
  in.split(fields, 1200000);
  EXPECT_EQ(in.floatField(fields.back()), 0.5f);
  ASSERT_TRUE(in.nextLine());
  EXPECT_EQ(in.line(), "7");
  EXPECT_EQ(in.lineNumber(), 2);
}

TEST(CsvReader, FieldErrors) {
  TempDir tmp;
  writeFile(tmp / "e.csv", "1,x\n");
  CsvReader in(tmp / "e.csv");
  std::vector<std::string_view> fields;
  ASSERT_TRUE(in.nextLine());
  EXPECT_EQ(dataErrorOf([&] { in.split(fields, 3); }),
            tmp / "e.csv" + ":1: expected 3 columns, found 2");
  in.split(fields, 2);
  EXPECT_EQ(dataErrorOf([&] { in.intField(fields[1]); }),
            tmp / "e.csv" + ":1: expected an integer, found \"x\"");
  EXPECT_EQ(dataErrorOf([&] { in.floatField(fields[1]); }),
            tmp / "e.csv" + ":1: expected a number, found \"x\"");
  EXPECT_EQ(dataErrorOf([&] { CsvReader(tmp / "none.csv"); }),
            tmp / "none.csv" + ": cannot open: No such file or directory");
}
