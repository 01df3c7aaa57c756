//===- KnowledgeGraph.h - Triples in the standard text release --*- C++ -*-===//
//
// Knowledge-graph completion benchmarks (WN18RR, FB15k-237) ship as three
// text files, train.txt, valid.txt and test.txt (each may be gzip'ed, .gz),
// one `head<TAB>relation<TAB>tail` per line, entities and relations by name.
// readKnowledgeGraph maps the names to dense ids in order of first
// appearance, over train, then valid, then test, each line's head before its
// tail; so ids depend on the files alone. Every line is checked as it is
// read: an error names the file and line.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_DATA_LINKS_KNOWLEDGEGRAPH_H
#define GNNRT_DATA_LINKS_KNOWLEDGEGRAPH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gnnrt {

/// (head, relation, tail) triples as parallel arrays of ids.
struct TripleList {
  std::vector<int64_t> head, tail;
  std::vector<int32_t> relation;
  size_t size() const { return head.size(); }
  void push(int64_t h, int32_t r, int64_t t) {
    head.push_back(h);
    relation.push_back(r);
    tail.push_back(t);
  }
};

struct KnowledgeGraph {
  /// Names by id, in order of first appearance.
  std::vector<std::string> entities, relations;
  TripleList train, valid, test;
  int64_t numEntities() const { return int64_t(entities.size()); }
  int32_t numRelations() const { return int32_t(relations.size()); }
};

/// The split file `<dir>/<name>.txt.gz`, else `<dir>/<name>.txt`, if either
/// exists.
std::string findTripleFile(const std::string &dir, const std::string &name);

/// Whether `dir` holds a knowledge graph (a train.txt[.gz]).
bool isKnowledgeGraphDirectory(const std::string &dir);

/// Reads `dir`'s train, valid and test files (all three required). Throws
/// DataError at the file and line of a line without exactly three
/// non-empty tab-separated fields, or of a valid or test triple whose
/// relation train does not have (entities may be new: WN18RR's valid and
/// test name a few that train does not).
KnowledgeGraph readKnowledgeGraph(const std::string &dir);

/// The triples of `path` (lines as the text release writes them, plain or
/// gzip'ed) by `kg`'s ids. Throws DataError at the file and line of a
/// malformed line, a relation train does not have or an entity `kg` does
/// not have, and for a file without triples.
TripleList readTriplesOf(const std::string &path, const KnowledgeGraph &kg);

} // namespace gnnrt

#endif // GNNRT_DATA_LINKS_KNOWLEDGEGRAPH_H
