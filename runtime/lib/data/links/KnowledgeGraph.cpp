//===- KnowledgeGraph.cpp - Triples in the standard text release ----------===//
//
// See gnnrt/data/links/KnowledgeGraph.h. The lines go through CsvReader for
// its gzip stream and line numbers; the fields are split at tabs here.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/links/KnowledgeGraph.h"

#include "gnnrt/io/CsvReader.h"
#include "gnnrt/support/Error.h"

#include <filesystem>
#include <unordered_map>

namespace fs = std::filesystem;

namespace gnnrt {

namespace {

/// Names to dense ids in order of first appearance.
class NameIds {
public:
  explicit NameIds(std::vector<std::string> &names) : names(names) {}
  int64_t idOf(std::string_view name) {
    auto [it, added] =
        ids.try_emplace(std::string(name), int64_t(names.size()));
    if (added)
      names.push_back(it->first);
    return it->second;
  }
  /// -1 if the name has no id.
  int64_t find(std::string_view name) const {
    auto it = ids.find(std::string(name));
    return it == ids.end() ? -1 : it->second;
  }

private:
  std::vector<std::string> &names;
  std::unordered_map<std::string, int64_t> ids;
};

/// Which names a file may add: a train file its relations and entities, a
/// valid or test file entities, a file of triples to score none.
enum class NewNames { RelationsAndEntities, Entities, None };

void readTriples(const std::string &path, NewNames adds, NameIds &entities,
                 NameIds &relations, TripleList &out) {
  CsvReader in(path);
  std::string_view fields[3];
  while (in.nextLine()) {
    std::string_view line = in.line();
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    size_t count = 0, start = 0;
    for (;;) {
      const size_t tab = line.find('\t', start);
      const std::string_view field = line.substr(
          start,
          tab == std::string_view::npos ? std::string_view::npos : tab - start);
      if (count < 3)
        fields[count] = field;
      ++count;
      if (tab == std::string_view::npos)
        break;
      start = tab + 1;
    }
    if (count != 3)
      in.fail("expected 3 tab-separated fields (head, relation, tail), "
              "found " +
              std::to_string(count));
    for (size_t k = 0; k < 3; ++k)
      if (fields[k].empty())
        in.fail(std::string("the ") +
                (k == 0   ? "head"
                 : k == 1 ? "relation"
                          : "tail") +
                " is empty");
    int64_t relation = adds == NewNames::RelationsAndEntities
                           ? relations.idOf(fields[1])
                           : relations.find(fields[1]);
    if (relation < 0)
      in.fail("relation " + quoteToken(fields[1]) +
              " does not appear in the train triples");
    int64_t ends[2];
    for (int k : {0, 1}) {
      const std::string_view name = fields[2 * k];
      ends[k] = adds == NewNames::None ? entities.find(name)
                                       : entities.idOf(name);
      if (ends[k] < 0)
        in.fail(std::string(k == 0 ? "head " : "tail ") + quoteToken(name) +
                " is not an entity of the knowledge graph (its train, "
                "valid and test triples)");
    }
    out.push(ends[0], int32_t(relation), ends[1]);
  }
  // An empty file would pass as an empty split: train with nothing to
  // learn, or rank nothing and report metrics of no triples.
  if (out.size() == 0)
    throwDataError(path, 0,
                   adds == NewNames::None
                       ? "no triples to score"
                       : "no triples (a knowledge graph needs train, valid "
                         "and test triples)");
}

} // namespace

std::string findTripleFile(const std::string &dir, const std::string &name) {
  const std::string base = dir + "/" + name + ".txt";
  std::error_code ec;
  if (fs::is_regular_file(base + ".gz", ec))
    return base + ".gz";
  if (fs::is_regular_file(base, ec))
    return base;
  return "";
}

bool isKnowledgeGraphDirectory(const std::string &dir) {
  return !findTripleFile(dir, "train").empty();
}

KnowledgeGraph readKnowledgeGraph(const std::string &dir) {
  KnowledgeGraph kg;
  NameIds entities(kg.entities), relations(kg.relations);
  const std::pair<const char *, TripleList *> splits[] = {
      {"train", &kg.train}, {"valid", &kg.valid}, {"test", &kg.test}};
  for (const auto &[name, triples] : splits) {
    const std::string path = findTripleFile(dir, name);
    if (path.empty())
      throwDataError(dir + "/" + name + ".txt[.gz]", 0, "no such file");
    readTriples(path,
                triples == &kg.train ? NewNames::RelationsAndEntities
                                     : NewNames::Entities,
                entities, relations, *triples);
  }
  return kg;
}

TripleList readTriplesOf(const std::string &path, const KnowledgeGraph &kg) {
  // The graph's names with their ids (first appearance is id order).
  std::vector<std::string> entityNames, relationNames;
  NameIds entities(entityNames), relations(relationNames);
  for (const std::string &name : kg.entities)
    entities.idOf(name);
  for (const std::string &name : kg.relations)
    relations.idOf(name);
  TripleList triples;
  readTriples(path, NewNames::None, entities, relations, triples);
  return triples;
}

} // namespace gnnrt
