//===- Json.cpp - A minimal JSON reader and string quoting ----------------===//
//
// A recursive-descent parser over a string_view. Nesting is bounded so that
// a hostile header cannot overflow the stack.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace gnnrt::json {

const Value *Value::find(std::string_view key) const {
  for (const auto &[name, value] : object)
    if (name == key)
      return &value;
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 64;

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  Value parseDocument() {
    Value v = parseValue(0);
    skipSpace();
    if (pos != text.size())
      fail("unexpected trailing characters");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw ParseError(what + " at offset " + std::to_string(pos));
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }

  bool consumeWord(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  Value parseValue(int depth) {
    if (depth > kMaxDepth)
      fail("nesting too deep");
    skipSpace();
    if (pos >= text.size())
      fail("unexpected end of input");
    Value v;
    char c = text[pos];
    if (c == '{') {
      ++pos;
      v.kind = Value::Kind::Object;
      if (consume('}'))
        return v;
      do {
        skipSpace();
        if (pos >= text.size() || text[pos] != '"')
          fail("expected a string key");
        std::string key = parseString();
        expect(':');
        v.object.emplace_back(std::move(key), parseValue(depth + 1));
      } while (consume(','));
      expect('}');
    } else if (c == '[') {
      ++pos;
      v.kind = Value::Kind::Array;
      if (consume(']'))
        return v;
      do
        v.array.push_back(parseValue(depth + 1));
      while (consume(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Value::Kind::String;
      v.string = parseString();
    } else if (consumeWord("true") || consumeWord("false")) {
      v.kind = Value::Kind::Bool;
      v.boolean = c == 't';
    } else if (consumeWord("null")) {
      v.kind = Value::Kind::Null;
    } else {
      v.kind = Value::Kind::Number;
      v.number = parseNumber();
    }
    return v;
  }

  double parseNumber() {
    // Check the RFC grammar first: strtod alone would also accept hex,
    // "inf" or a leading '+'.
    size_t start = pos;
    auto digits = [&] {
      size_t first = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      return pos > first;
    };
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    if (!digits())
      fail("expected a value");
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      if (!digits())
        fail("expected digits after '.'");
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!digits())
        fail("expected exponent digits");
    }
    std::string token(text.substr(start, pos - start));
    return std::strtod(token.c_str(), nullptr);
  }

  unsigned parseHex4() {
    if (pos + 4 > text.size())
      fail("truncated \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text[pos++];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= unsigned(h - '0');
      else if (h >= 'a' && h <= 'f')
        code |= unsigned(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        code |= unsigned(h - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return code;
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  std::string parseString() {
    ++pos; // the opening quote
    std::string out;
    while (true) {
      if (pos >= text.size())
        fail("unterminated string");
      char c = text[pos++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        fail("unterminated string");
      char e = text[pos++];
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t code = parseHex4();
        // A UTF-16 surrogate pair encodes one code point above U+FFFF.
        if (code >= 0xD800 && code < 0xDC00 && consumeWord("\\u")) {
          uint32_t low = parseHex4();
          if (low < 0xDC00 || low >= 0xE000)
            fail("bad surrogate pair");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, code);
        break;
      }
      default:
        fail("bad escape");
      }
    }
  }

  std::string_view text;
  size_t pos = 0;
};

} // namespace

Value parse(std::string_view text) { return Parser(text).parseDocument(); }

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(c));
        out += escaped;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

} // namespace gnnrt::json
