//===- Naming.cpp - identifiers and source positions for emitters ---------===//
//
// Locations are walked structurally: a NameLoc wraps the position of the
// expression that defined the variable, a CallSiteLoc pairs a stdlib
// position with its call site, and a FusedLoc (from CSE or fusion) is
// described by its first member that has a file position.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Common/Naming.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;

std::string gnn::target::describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return describeLocation(name.getChildLoc());
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}",
                         llvm::sys::path::filename(file.getFilename()),
                         file.getLine(), file.getColumn())
        .str();
  if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    std::string callee = describeLocation(call.getCallee());
    std::string caller = describeLocation(call.getCaller());
    if (callee.empty())
      return caller;
    return caller.empty() ? callee : callee + " <- " + caller;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (std::string s = describeLocation(l); !s.empty())
        return s;
  return "";
}

std::string gnn::target::sourceName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return sourceName(call.getCallee());
  return "";
}

std::string gnn::target::identifierFrom(llvm::StringRef s) {
  std::string id;
  for (char c : s)
    id += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (id.empty() || llvm::isDigit(id.front()))
    id = "v_" + id;
  return id;
}
