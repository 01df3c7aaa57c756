//===- GraphFolds.cpp - Errica fold files and stratified folds ------------===//
//
// See gnnrt/data/GraphFolds.h.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/data/GraphFolds.h"

#include "gnnrt/io/Json.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Random.h"
#include "graphs/GraphReaders.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace gnnrt {

namespace {

constexpr const char *kListNames[3] = {"train", "valid", "test"};

/// Fold shuffles use their own stream of the seed.
constexpr uint64_t kFoldStream = 0x666f6c64; // "fold"

std::string foldName(size_t k) { return "fold" + std::to_string(k); }

/// The ids of a fold file's list `key` of `object`, each in [0, numGraphs).
std::vector<int64_t> idList(const Json &object, const char *key,
                            const std::string &where, int64_t numGraphs,
                            const std::string &path) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_array())
    throwDataError(path, 0,
                   where + ": expected a list \"" + key + "\" of graph ids");
  std::vector<int64_t> ids;
  ids.reserve(it->size());
  for (const Json &id : *it) {
    if (!id.is_number_integer())
      throwDataError(path, 0,
                     where + " " + key + ": expected a graph id, found " +
                         id.dump());
    const int64_t g = id.get<int64_t>();
    if (g < 0 || g >= numGraphs)
      throwDataError(path, 0,
                     where + " " + key + ": graph id " + std::to_string(g) +
                         " out of range [0, " + std::to_string(numGraphs) +
                         ") (the dataset has " + std::to_string(numGraphs) +
                         " graphs)");
    ids.push_back(g);
  }
  return ids;
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throwDataError(path, 0, "cannot open");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

void checkFoldDisjoint(const GraphFold &fold, int64_t numGraphs,
                       const std::string &source, const std::string &where) {
  // The list (1-based) each graph is in so far, 0 for none.
  std::vector<uint8_t> in(size_t(numGraphs), 0);
  const std::vector<int64_t> *lists[3] = {&fold.train, &fold.valid, &fold.test};
  for (uint8_t k = 0; k < 3; ++k)
    for (int64_t g : *lists[k]) {
      if (in[g])
        throwDataError(
            source, 0,
            where + "graph " + std::to_string(g) + " is in " +
                (in[g] == k + 1
                     ? "the " + std::string(kListNames[k]) + " list twice"
                     : "both " + std::string(kListNames[in[g] - 1]) + " and " +
                           kListNames[k]));
      in[g] = k + 1;
    }
}

std::vector<GraphFold> readErricaFolds(const std::string &path,
                                       int64_t numGraphs) {
  Json root;
  try {
    root = parseJson(readText(path));
  } catch (const JsonSyntaxError &e) {
    throwDataError(path, 0, e.what());
  }
  if (!root.is_array() || root.empty())
    throwDataError(path, 0,
                   "expected a list of folds ({\"test\": [...], "
                   "\"model_selection\": [{\"train\": [...], \"validation\": "
                   "[...]}]})");
  std::vector<GraphFold> folds;
  for (size_t k = 0; k < root.size(); ++k) {
    const Json &entry = root[k];
    const std::string where = "fold " + std::to_string(k);
    if (!entry.is_object())
      throwDataError(path, 0, where + ": expected an object");
    GraphFold fold;
    fold.name = foldName(k);
    fold.test = idList(entry, "test", where, numGraphs, path);
    auto selection = entry.find("model_selection");
    if (selection == entry.end() || !selection->is_array() ||
        selection->empty() || !(*selection)[0].is_object())
      throwDataError(path, 0,
                     where + ": expected \"model_selection\": [{\"train\": "
                             "[...], \"validation\": [...]}]");
    const Json &inner = (*selection)[0];
    fold.train = idList(inner, "train", where, numGraphs, path);
    fold.valid = idList(inner, inner.contains("valid") ? "valid" : "validation",
                        where, numGraphs, path);
    checkFoldDisjoint(fold, numGraphs, path, where + ": ");
    folds.push_back(std::move(fold));
  }
  return folds;
}

std::vector<GraphFold> stratifiedFolds(const GraphCollection &graphs, int k,
                                       uint64_t seed, double validFraction) {
  const int64_t n = graphs.numGraphs();
  if (k < 2 || k > n)
    throwDataError("folds", 0,
                   std::to_string(k) + " folds of " + std::to_string(n) +
                       " graphs (expected 2 to the number of graphs)");
  if (!(validFraction >= 0 && validFraction < 1))
    throwDataError("folds", 0,
                   "valid fraction " + std::to_string(validFraction) +
                       " outside [0, 1)");
  const bool classified = graphs.task == GraphTask::Classification;
  const int64_t numClasses = classified ? graphs.numClasses : 1;

  // Each class's graphs in an order shuffled by a random key per graph.
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(numClasses));
  for (int64_t g = 0; g < n; ++g)
    members[classified ? graphs.classes[g] : 0].push_back(g);
  std::vector<uint64_t> key(static_cast<size_t>(n));
  for (int64_t g = 0; g < n; ++g) {
    const auto bits = randomBits(seed, kFoldStream, uint64_t(g));
    key[size_t(g)] = (uint64_t(bits[0]) << 32) | bits[1];
  }
  for (std::vector<int64_t> &ids : members)
    std::sort(ids.begin(), ids.end(), [&](int64_t a, int64_t b) {
      return key[a] != key[b] ? key[a] < key[b] : a < b;
    });

  // Dealt round-robin, continuing across classes.
  std::vector<int> testFold(static_cast<size_t>(n));
  int64_t dealt = 0;
  for (const std::vector<int64_t> &ids : members)
    for (int64_t g : ids)
      testFold[g] = int(dealt++ % k);

  std::vector<GraphFold> folds(static_cast<size_t>(k));
  for (int f = 0; f < k; ++f) {
    GraphFold &fold = folds[f];
    fold.name = foldName(size_t(f));
    for (const std::vector<int64_t> &ids : members) {
      int64_t training = 0;
      for (int64_t g : ids)
        training += testFold[g] != f;
      const int64_t valid = std::llround(validFraction * double(training));
      int64_t taken = 0;
      for (int64_t g : ids) {
        if (testFold[g] == f)
          fold.test.push_back(g);
        else if (taken++ < valid)
          fold.valid.push_back(g);
        else
          fold.train.push_back(g);
      }
    }
    for (std::vector<int64_t> *list : {&fold.train, &fold.valid, &fold.test})
      std::sort(list->begin(), list->end());
  }
  return folds;
}

} // namespace gnnrt
