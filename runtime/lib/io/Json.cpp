//===- Json.cpp - nlohmann-json's syntax errors in the runtime's words ----===//
//
// nlohmann-json reports a syntax error as "[json.exception.parse_error.101]
// parse error at line L, column C: syntax error while parsing <context> -
// <what>; last read: '<token>'; expected <tokens>". Users see these inside
// "<file>: corrupt manifest: ..." lines, so only <what> and the byte offset
// are kept, and the lexer's descriptions of broken strings, which a file
// cut short or edited by hand produces, are worded as the runtime words
// them ("unterminated string" rather than "invalid string: missing closing
// quote").
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/Json.h"

#include <utility>

namespace gnnrt {

namespace {

/// <what> of a parse_error's message: after the context's " - ", up to the
/// first "; " (before "last read" and "expected").
std::string whatOf(const nlohmann::json::parse_error &e) {
  std::string message = e.what();
  const size_t dash = message.find(" - ");
  if (dash == std::string::npos)
    return message;
  message.erase(0, dash + 3);
  return message.substr(0, message.find("; "));
}

/// The runtime's words for nlohmann's lexer errors in strings.
std::string reword(const std::string &what) {
  static const std::pair<const char *, const char *> kWords[] = {
      {"invalid string: missing closing quote", "unterminated string"},
      {"invalid string: forbidden character after backslash", "bad escape"},
      {"invalid string: '\\u' must be followed by 4 hex digits",
       "bad \\u escape"},
      {"invalid string: surrogate", "bad surrogate pair"},
      {"invalid string: control character", "control character in string"},
      {"invalid string: ill-formed UTF-8 byte", "invalid UTF-8 in string"},
  };
  for (const auto &[theirs, ours] : kWords)
    if (what.rfind(theirs, 0) == 0)
      return ours;
  return what;
}

} // namespace

Json parseJson(std::string_view text, Json::parser_callback_t callback) {
  try {
    return Json::parse(text, std::move(callback));
  } catch (const nlohmann::json::parse_error &e) {
    // e.byte counts the characters read, the offending one included.
    const size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    throw JsonSyntaxError(reword(whatOf(e)) + " at offset " +
                          std::to_string(offset));
  }
}

std::string quoteJson(std::string_view text) {
  return Json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace gnnrt
