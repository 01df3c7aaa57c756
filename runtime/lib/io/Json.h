//===- Json.h - A minimal JSON reader and string quoting --------*- C++ -*-===//
//
// Internal to gnnrt. The runtime reads one kind of JSON, the header of a
// safetensors file, and writes JSON lines of metrics; a full JSON library
// would be a dependency for a few hundred bytes of text. The reader parses
// RFC 8259 JSON into a tree (objects keep their key order); numbers are
// doubles, which holds every byte offset below 2^53 exactly.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_IO_JSON_H
#define GNNRT_LIB_IO_JSON_H

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gnnrt::json {

/// A syntax error; what() says what was expected and at which byte offset.
class ParseError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;

  bool isObject() const { return kind == Kind::Object; }
  bool isArray() const { return kind == Kind::Array; }
  bool isString() const { return kind == Kind::String; }
  bool isNumber() const { return kind == Kind::Number; }
  /// The member `key` of an object, or null if absent (or not an object).
  const Value *find(std::string_view key) const;
};

/// Parses `text`, which must hold exactly one JSON value (surrounding
/// whitespace allowed). Throws ParseError.
Value parse(std::string_view text);

/// `text` as a JSON string literal, quotes included.
std::string quote(std::string_view text);

} // namespace gnnrt::json

#endif // GNNRT_LIB_IO_JSON_H
