//===- Json.h - JSON through nlohmann-json, the runtime's way ---*- C++ -*-===//
//
// The runtime reads and writes JSON (partition manifests, safetensors
// headers, the metrics log) with nlohmann-json (Debian's
// nlohmann-json3-dev). This header adds what the library does not do the
// runtime's way: ordered objects (keys keep their file order, so what is
// written is what was read), and syntax errors as a short "<what> at offset
// <byte>" that the caller prefixes with the file, as every data error is.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_IO_JSON_H
#define GNNRT_IO_JSON_H

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gnnrt {

/// A JSON value whose objects keep their keys in insertion (file) order.
using Json = nlohmann::ordered_json;

/// A syntax error: what() says what was wrong and at which byte offset,
/// e.g. "unterminated string at offset 40".
class JsonSyntaxError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Parses `text`, which must hold exactly one JSON value (surrounding
/// whitespace allowed). `callback`, if given, is nlohmann's parser callback
/// (it sees every key and value as it is read, e.g. to reject repeated
/// keys, which the library otherwise merges). Throws JsonSyntaxError.
Json parseJson(std::string_view text,
               Json::parser_callback_t callback = nullptr);

/// `text` as a JSON string literal, quotes included (bytes that are not
/// UTF-8 become U+FFFD).
std::string quoteJson(std::string_view text);

} // namespace gnnrt

#endif // GNNRT_IO_JSON_H
