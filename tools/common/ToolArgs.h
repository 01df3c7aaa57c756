//===- ToolArgs.h - command lines of the gnn-* tools ------------*- C++ -*-===//
//
// What gnn-data and gnn-partition share: "--name value" / "--name=value"
// options and bare flags, checked against the lists a command accepts, and
// the usage error they report.
//
//===----------------------------------------------------------------------===//

#ifndef GNNC_TOOLS_COMMON_TOOLARGS_H
#define GNNC_TOOLS_COMMON_TOOLARGS_H

#include "gnnrt/support/Stopwatch.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gnntools {

/// A command-line problem: printed like a data error, plus a usage hint.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using gnnrt::secondsSince;

/// Options of one command; bare flags map to "".
class Args {
public:
  Args(int argc, char **argv, int first, const std::vector<std::string> &flags,
       const std::vector<std::string> &valued) {
    for (int i = first; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg.rfind("--", 0) != 0) {
        positional.push_back(arg);
        continue;
      }
      std::string name = arg, value;
      size_t eq = arg.find('=');
      bool inlineValue = eq != std::string::npos;
      if (inlineValue) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
      }
      if (std::find(flags.begin(), flags.end(), name) != flags.end()) {
        if (inlineValue)
          throw UsageError("option '" + name + "' takes no value");
        values[name] = "";
      } else if (std::find(valued.begin(), valued.end(), name) !=
                 valued.end()) {
        if (!inlineValue) {
          if (i + 1 >= argc)
            throw UsageError("option '" + name + "' needs a value");
          value = argv[++i];
        }
        values[name] = value;
      } else {
        throw UsageError("unknown option '" + name + "'");
      }
    }
  }

  bool has(const std::string &name) const { return values.count(name) != 0; }
  std::string get(const std::string &name, const std::string &def = "") const {
    auto it = values.find(name);
    return it == values.end() ? def : it->second;
  }
  std::string required(const std::string &name) const {
    if (!has(name))
      throw UsageError("missing required option '" + name + "'");
    return get(name);
  }
  /// The option as an integer (`def` if absent).
  int64_t integer(const std::string &name, int64_t def) const {
    if (!has(name))
      return def;
    long long v;
    if (!parseInteger(get(name), v))
      throw UsageError("option '" + name + "' expects an integer, found '" +
                       get(name) + "'");
    return v;
  }
  /// The option as an integer of at least `min` (`def` if absent).
  int64_t integer(const std::string &name, int64_t def, int64_t min) const {
    if (!has(name))
      return def;
    long long v;
    if (!parseInteger(get(name), v) || v < min)
      throw UsageError("option '" + name + "' expects an integer >= " +
                       std::to_string(min) + ", found '" + get(name) + "'");
    return v;
  }
  double real(const std::string &name, double def) const {
    return has(name) ? parseReal(name, get(name)) : def;
  }
  static double parseReal(const std::string &name, const std::string &text) {
    char *end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !std::isfinite(v))
      throw UsageError("option '" + name + "' expects a number, found '" +
                       text + "'");
    return v;
  }

  std::vector<std::string> positional;

private:
  static bool parseInteger(const std::string &text, long long &v) {
    char *end = nullptr;
    errno = 0;
    v = std::strtoll(text.c_str(), &end, 10);
    return !text.empty() && !*end && !errno;
  }

  std::map<std::string, std::string> values;
};

} // namespace gnntools

#endif // GNNC_TOOLS_COMMON_TOOLARGS_H
