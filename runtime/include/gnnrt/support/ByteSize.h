//===- ByteSize.h - Sizes such as 1G, 512M or 4096 --------------*- C++ -*-===//
//
// The one grammar of a size in bytes, read by the trainer's --memory-budget
// and by the compiler for the train setting `memory_budget = "1G"`, so a
// size the language accepts is one the trainer accepts. Header-only: the
// front end (lang/, no gnnrt library) includes it too.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_BYTESIZE_H
#define GNNRT_SUPPORT_BYTESIZE_H

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace gnnrt {

/// What a size looks like, for messages: "a size such as 1G, ...".
constexpr const char *kByteSizeExamples = "1G, 512M or 4096 (bytes)";

/// A positive number of bytes with an optional binary unit: K, M, G or T
/// (powers of 1024), optionally followed by "iB" or "B"; none for bytes.
/// `4096`, `512M`, `1.5GiB`, `2g`. Nothing when `text` is not one.
inline std::optional<int64_t> parseByteSize(const std::string &text) {
  const char *begin = text.c_str();
  char *end = nullptr;
  const double value = std::strtod(begin, &end);
  std::string unit(end);
  for (const char *suffix : {"iB", "B"})
    if (unit.size() > 1 && unit.size() >= std::strlen(suffix) &&
        unit.compare(unit.size() - std::strlen(suffix), std::string::npos,
                     suffix) == 0) {
      unit.resize(unit.size() - std::strlen(suffix));
      break;
    }
  static const std::string kUnits = "KMGT";
  const size_t unitIndex =
      unit.empty() ? std::string::npos
                   : kUnits.find(char(std::toupper((unsigned char)unit[0])));
  const bool validUnit =
      unit.empty() || (unit.size() == 1 && unitIndex != std::string::npos);
  // strtod also reads "inf", "nan", exponents and hex: only digits and a
  // point.
  const size_t numberLength = size_t(end - begin);
  const bool decimal =
      numberLength > 0 && std::strspn(begin, "0123456789.") == numberLength;
  if (!decimal || !validUnit || !std::isfinite(value) || value < 1)
    return std::nullopt;
  const double scale =
      unit.empty() ? 1 : double(int64_t(1) << (10 * (unitIndex + 1)));
  if (value * scale >= 9.2e18)
    return std::nullopt;
  return int64_t(value * scale);
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_BYTESIZE_H
