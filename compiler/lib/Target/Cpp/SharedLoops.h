//===- SharedLoops.h - loop nests written once per unit ---------*- C++ -*-===//
//
// Internal to the C++ target. A deep model's entry points repeat the same
// loop nests once per layer: GCNII's 64 layers print ~850 OpenMP loops of 11
// kinds, and the host compiler's time grows with every copy. A loop nest
// whose text occurs more than once in the unit (its names aside) is written
// once as a function template in `namespace shared_loops`, its free names
// (buffers, sizes, the graph, a GEMM block's rows) as parameters in order
// of first use, and each of its sites calls it:
//
//   shared_loops::loop_3<T>(t_140, norm_src_1, t_139, g);
//
// A nest is shared when one entry point repeats it (a layer used again,
// with the same widths); one that each entry point has once -- a layer's
// forward loop in the forward and again in the train step -- stays inline,
// so a small model's code reads as it is computed.
//
// The emitter runs twice over the unit: the first run counts (count()),
// the second writes the shared definitions before the entry points
// (emitDefinitions) and a call or the loop itself at each site (write()).
//
//===----------------------------------------------------------------------===//

#ifndef GNN_TARGET_CPP_SHAREDLOOPS_H
#define GNN_TARGET_CPP_SHAREDLOOPS_H

#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace gnn::cpp {

class SharedLoopNests {
public:
  /// The first run: the next entry point starts.
  void beginEntryPoint() { ++entryPoint; }
  /// The first run: notes one occurrence of the loop nest `text`.
  void count(llvm::StringRef text);

  /// Ends the counting run: from now on, write() shares each loop nest
  /// counted more than once.
  void finishCounting();

  /// Writes the loop nest `text` at a site: a call of its shared function,
  /// or (occurring once, or while counting) the text itself.
  void write(mlir::raw_indented_ostream &os, llvm::StringRef text) const;

  /// The shared functions, in order of first occurrence.
  void emitDefinitions(mlir::raw_indented_ostream &os) const;

  bool counting() const { return isCounting; }

private:
  struct Nest {
    /// The index among the shared nests (-1: not shared).
    int index = -1;
    int occurrences = 0;
    int numParams = 0;
    /// The entry point it occurred in last, its occurrences there, and the
    /// most in any one entry point.
    int entryPoint = -1, inEntryPoint = 0, mostInOneEntryPoint = 0;
  };
  /// Canonical text (free names as p0, p1, ...) -> its nest.
  llvm::StringMap<Nest> nests;
  /// The canonical texts in order of first occurrence.
  std::vector<llvm::StringRef> order;
  bool isCounting = true;
  int entryPoint = 0;
};

} // namespace gnn::cpp

#endif // GNN_TARGET_CPP_SHAREDLOOPS_H
