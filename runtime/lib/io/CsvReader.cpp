//===- CsvReader.cpp - Streaming numeric csv(.gz) reader ------------------===//
//
// Implementation of CsvReader and the hand-written number parsers. The
// parsers handle the common short forms ("0", "17", "-0.0579") with integer
// arithmetic only and defer anything whose correct rounding needs more care
// to std::from_chars, so speed never costs exactness.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/CsvReader.h"

#include "gnnrt/support/Error.h"

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <zlib.h>

namespace gnnrt {

static std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool parseInt64(std::string_view token, int64_t &value) {
  token = trim(token);
  const char *p = token.data(), *e = p + token.size();
  bool negative = false;
  if (p < e && (*p == '-' || *p == '+'))
    negative = *p++ == '-';
  if (p == e)
    return false;
  // Accumulate as a negative number so INT64_MIN parses too.
  int64_t acc = 0;
  for (; p < e; ++p) {
    unsigned digit = unsigned(*p - '0');
    if (digit > 9)
      return false;
    if (acc < (INT64_MIN + int64_t(digit)) / 10)
      return false;
    acc = acc * 10 - int64_t(digit);
  }
  if (!negative) {
    if (acc == INT64_MIN)
      return false;
    acc = -acc;
  }
  value = acc;
  return true;
}

static bool equalsIgnoreCase(std::string_view s, const char *word) {
  size_t n = std::strlen(word);
  if (s.size() != n)
    return false;
  for (size_t i = 0; i < n; ++i)
    if ((s[i] | 0x20) != word[i])
      return false;
  return true;
}

bool parseFloat(std::string_view token, float &value) {
  token = trim(token);
  std::string_view body = token;
  bool negative = false;
  if (!body.empty() && (body.front() == '-' || body.front() == '+')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (equalsIgnoreCase(body, "nan")) {
    value = std::numeric_limits<float>::quiet_NaN();
    return true;
  }
  if (equalsIgnoreCase(body, "inf") || equalsIgnoreCase(body, "infinity")) {
    value = negative ? -HUGE_VALF : HUGE_VALF;
    return true;
  }

  // Fast path: mantissa < 2^24 and |exponent| <= 10 make both the mantissa
  // and the power of ten exact floats, so one multiply or divide is the
  // correctly rounded result.
  const char *p = body.data(), *e = p + body.size();
  uint64_t mantissa = 0;
  int exponent = 0;
  bool anyDigit = false, exact = true;
  auto addDigit = [&](unsigned digit) {
    if (mantissa > (uint64_t(1) << 59)) // would overflow; not fast anyway
      exact = false;
    else
      mantissa = mantissa * 10 + digit;
  };
  for (; p < e && unsigned(*p - '0') <= 9; ++p) {
    anyDigit = true;
    addDigit(unsigned(*p - '0'));
  }
  if (p < e && *p == '.') {
    for (++p; p < e && unsigned(*p - '0') <= 9; ++p) {
      anyDigit = true;
      addDigit(unsigned(*p - '0'));
      --exponent;
    }
  }
  if (!anyDigit)
    return false;
  if (p < e && (*p == 'e' || *p == 'E')) {
    int64_t expValue;
    std::string_view expText(p + 1, size_t(e - p - 1));
    if (expText.empty() || expText.front() == ' ' ||
        !parseInt64(expText, expValue))
      return false;
    if (expValue > 1000 || expValue < -1000)
      exact = false;
    else
      exponent += int(expValue);
    p = e;
  }
  if (p != e)
    return false;
  if (exact && mantissa < (1u << 24) && exponent >= -10 && exponent <= 10) {
    static const float kPow10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                   1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    float f = float(mantissa);
    f = exponent < 0 ? f / kPow10[-exponent] : f * kPow10[exponent];
    value = negative ? -f : f;
    return true;
  }
  // from_chars rejects a leading '+', which `body` no longer has.
  float f;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), f);
  if (ptr != body.data() + body.size())
    return false;
  if (ec == std::errc::result_out_of_range)
    f = std::strtof(std::string(body).c_str(), nullptr); // +-inf or 0
  else if (ec != std::errc())
    return false;
  value = negative ? -f : f;
  return true;
}

std::string quoteToken(std::string_view token) {
  if (token.size() > 40)
    return "\"" + std::string(token.substr(0, 37)) + "...\"";
  return "\"" + std::string(token) + "\"";
}

CsvReader::CsvReader(std::string path) : file(std::move(path)) {
  gz = gzopen(file.c_str(), "rb");
  if (!gz)
    throwDataError(file, 0,
                   std::string("cannot open: ") + std::strerror(errno));
  gzbuffer(static_cast<gzFile>(gz), 1 << 18);
  buffer.resize(1 << 22);
}

CsvReader::~CsvReader() {
  if (gz)
    gzclose(static_cast<gzFile>(gz));
}

bool CsvReader::fill() {
  if (begin > 0) {
    std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    end -= begin;
    begin = 0;
  }
  if (end == buffer.size())
    buffer.resize(buffer.size() * 2); // a line longer than the buffer
  size_t room = std::min(buffer.size() - end, size_t(INT_MAX));
  int n = gzread(static_cast<gzFile>(gz), buffer.data() + end, unsigned(room));
  // A gzip stream cut short (a copy interrupted, a full disk) makes gzread
  // return the bytes it could inflate and note Z_BUF_ERROR, "unexpected end
  // of file": taken as the end, it would read as a shorter, valid file.
  int code = Z_OK;
  const char *msg = gzerror(static_cast<gzFile>(gz), &code);
  if (n < 0 || (code != Z_OK && code != Z_STREAM_END))
    throwDataError(file, 0,
                   code == Z_BUF_ERROR
                       ? "the compressed file is truncated (the gzip "
                         "stream ends early)"
                       : std::string("read error: ") + msg);
  if (n == 0)
    eof = true;
  end += size_t(n);
  return n > 0;
}

bool CsvReader::nextLine() {
  for (;;) {
    size_t scanned = 0;
    std::string_view text;
    for (;;) {
      const char *start = buffer.data() + begin;
      const void *nl =
          std::memchr(start + scanned, '\n', end - begin - scanned);
      if (nl) {
        size_t len = size_t(static_cast<const char *>(nl) - start);
        text = std::string_view(start, len);
        begin += len + 1;
        break;
      }
      if (eof) {
        if (begin == end)
          return false;
        text = std::string_view(start, end - begin);
        begin = end;
        break;
      }
      scanned = end - begin;
      fill();
    }
    ++lineNo;
    if (!text.empty() && text.back() == '\r')
      text.remove_suffix(1);
    if (!trim(text).empty()) {
      current = text;
      return true;
    }
  }
}

void CsvReader::split(std::vector<std::string_view> &fields, size_t expected) {
  fields.clear();
  std::string_view rest = current;
  for (;;) {
    size_t comma = rest.find(',');
    fields.push_back(rest.substr(0, comma));
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  if (expected && fields.size() != expected)
    fail("expected " + std::to_string(expected) + " column" +
         (expected == 1 ? "" : "s") + ", found " +
         std::to_string(fields.size()));
}

void CsvReader::fail(const std::string &message) const {
  throwDataError(file, lineNo, message);
}

int64_t CsvReader::intField(std::string_view token) const {
  int64_t value;
  if (!parseInt64(token, value))
    fail("expected an integer, found " + quoteToken(token));
  return value;
}

float CsvReader::floatField(std::string_view token) const {
  float value;
  if (!parseFloat(token, value))
    fail("expected a number, found " + quoteToken(token));
  return value;
}

} // namespace gnnrt
