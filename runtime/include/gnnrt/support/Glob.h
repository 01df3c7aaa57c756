//===- Glob.h - Shell-style patterns over dotted names ----------*- C++ -*-===//
//
// The one meaning of a train block's parameter pattern
// (`group("convs*", ...)`): `*` matches any run of characters, dots
// included, so "c*" takes c1.w and c2.b; `?` matches one character; every
// other character matches itself. Header-only: the front end (lang/, no
// gnnrt library) checks the patterns against the model's parameter names
// with it, and the trainer assigns the parameters with it, so a pattern
// matches the same parameters in both.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_GLOB_H
#define GNNRT_SUPPORT_GLOB_H

#include <cstddef>
#include <string>

namespace gnnrt {

/// Whether all of `name` matches `pattern`.
inline bool globMatch(const std::string &pattern, const std::string &name) {
  // Iterative matching with one backtrack point (the last `*`): linear in
  // practice, and no recursion on long patterns.
  size_t p = 0, n = 0, star = std::string::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() &&
               (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

} // namespace gnnrt

#endif // GNNRT_SUPPORT_GLOB_H
