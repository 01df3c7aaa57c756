//===- MetisFiles.cpp - METIS graph files and partition assignment files --===//
//
// The two text formats of the METIS command-line programs (METIS 5 manual,
// section 4.1.1 and 4.2.2): a graph file, with a header "n m fmt ncon"
// (m counts undirected edges, fmt's digits say whether vertex sizes, vertex
// weights and edge weights follow) and one line of 1-based neighbours per
// vertex; and gpmetis's output, one part id per line. Writing the first and
// reading the second lets gpmetis partition exactly what metisPartition
// does and lets gnn-partition store and measure its result like any other.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/partition/Partitioner.h"

#include "MetisGraph.h"
#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/io/CsvReader.h"
#include "gnnrt/support/Error.h"

#include <charconv>
#include <string>

namespace gnnrt {

namespace {
/// Appends `v` in decimal.
void appendInt(std::string &out, int64_t v) {
  char text[24];
  auto result = std::to_chars(text, text + sizeof(text), v);
  out.append(text, result.ptr);
}
} // namespace

void writeMetisGraph(const std::string &path, const Dataset &ds,
                     const std::vector<BalanceConstraint> &balance,
                     EdgeAssign assign) {
  MetisGraph g = buildMetisGraph(ds, balance, assign);
  const bool vertexWeights = !g.vwgt.empty(), edgeWeights = !g.adjwgt.empty();
  AtomicFile file(path);
  std::string buffer;
  appendInt(buffer, g.numVertices);
  buffer += ' ';
  appendInt(buffer, g.numUndirectedEdges());
  if (vertexWeights || edgeWeights) {
    buffer += vertexWeights ? " 01" : " 00";
    buffer += edgeWeights ? '1' : '0';
    if (g.ncon > 1) {
      buffer += ' ';
      appendInt(buffer, g.ncon);
    }
  }
  buffer += '\n';
  for (int64_t v = 0; v < g.numVertices; ++v) {
    bool first = true;
    auto separate = [&] {
      if (!first)
        buffer += ' ';
      first = false;
    };
    if (vertexWeights)
      for (int c = 0; c < g.ncon; ++c) {
        separate();
        appendInt(buffer, g.vwgt[size_t(v) * size_t(g.ncon) + size_t(c)]);
      }
    for (int32_t k = g.xadj[size_t(v)]; k < g.xadj[size_t(v) + 1]; ++k) {
      separate();
      appendInt(buffer, int64_t(g.adjncy[size_t(k)]) + 1);
      if (edgeWeights) {
        buffer += ' ';
        appendInt(buffer, g.adjwgt[size_t(k)]);
      }
    }
    buffer += '\n';
    if (buffer.size() >= (1u << 20)) {
      file.write(buffer.data(), buffer.size());
      buffer.clear();
    }
  }
  file.write(buffer.data(), buffer.size());
  file.commit();
}

std::vector<int32_t> readPartitionAssignment(const std::string &path,
                                             int64_t numNodes, int numParts) {
  CsvReader reader(path);
  std::vector<int32_t> owner;
  owner.reserve(size_t(numNodes));
  std::vector<std::string_view> fields;
  while (reader.nextLine()) {
    reader.split(fields, 1);
    int64_t part = reader.intField(fields[0]);
    if (part < 0 || part >= numParts)
      reader.fail("part " + std::to_string(part) + " out of range [0, " +
                  std::to_string(numParts) + ")");
    if (int64_t(owner.size()) == numNodes)
      reader.fail("more lines than the dataset's " + std::to_string(numNodes) +
                  " nodes");
    owner.push_back(int32_t(part));
  }
  if (int64_t(owner.size()) != numNodes)
    throwDataError(path, 0,
                   "expected one line per node (" + std::to_string(numNodes) +
                       "), found " + std::to_string(owner.size()));
  return owner;
}

} // namespace gnnrt
