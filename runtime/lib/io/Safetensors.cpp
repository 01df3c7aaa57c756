//===- Safetensors.cpp - Reading and writing .safetensors files -----------===//
//
// The reader checks everything the reference implementation checks (header
// size, JSON shape, dtype, byte counts matching shapes, data offsets tiling
// the data exactly), so a truncated or hand-edited checkpoint is a clear
// error rather than garbage weights.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/Safetensors.h"

#include "gnnrt/io/AtomicFile.h"
#include "gnnrt/io/Json.h"
#include "gnnrt/support/Error.h"
#include "gnnrt/support/Shape.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; gnnrt copies it as is");

namespace gnnrt {

namespace {

/// The reference implementation refuses larger headers; so does gnnrt, so
/// that a corrupt length cannot make it allocate gigabytes.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

std::string formatOffsets(int64_t begin, int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

/// A JSON number that is a non-negative integer exactly representable in
/// a double, or -1.
int64_t asCount(const Json &v) {
  if (!v.is_number())
    return -1;
  const double number = v.get<double>();
  if (number < 0 || number > 9007199254740992.0 ||
      std::floor(number) != number)
    return -1;
  return int64_t(number);
}

/// One parsed header entry before its bytes are copied out.
struct Entry {
  std::string name;
  std::vector<int64_t> shape;
  int64_t begin = 0, end = 0;
};

Entry parseEntry(const std::string &file, const std::string &name,
                 const Json &v) {
  auto bad = [&](const std::string &what) {
    throwDataError(file, 0, "tensor '" + name + "': " + what);
  };
  if (!v.is_object())
    bad("expected an object with dtype, shape and data_offsets");
  const auto dtype = v.find("dtype");
  const auto shape = v.find("shape");
  const auto offsets = v.find("data_offsets");
  if (dtype == v.end() || !dtype->is_string())
    bad("missing string 'dtype'");
  const std::string &dtypeName = dtype->get_ref<const std::string &>();
  if (dtypeName != "F32")
    bad("dtype is " + dtypeName + "; only F32 is supported");
  if (shape == v.end() || !shape->is_array())
    bad("missing array 'shape'");
  if (offsets == v.end() || !offsets->is_array() || offsets->size() != 2)
    bad("'data_offsets' must be an array of two byte offsets");
  Entry entry;
  entry.name = name;
  for (const Json &d : *shape) {
    int64_t dim = asCount(d);
    if (dim < 0)
      bad("shape entries must be non-negative integers");
    entry.shape.push_back(dim);
  }
  entry.begin = asCount((*offsets)[0]);
  entry.end = asCount((*offsets)[1]);
  if (entry.begin < 0 || entry.end < entry.begin)
    bad("bad data_offsets");
  int64_t expected = numElements(entry.shape) * int64_t(sizeof(float));
  if (entry.end - entry.begin != expected)
    bad("data_offsets " + formatOffsets(entry.begin, entry.end) + " hold " +
        std::to_string(entry.end - entry.begin) + " bytes but shape " +
        formatShape(entry.shape) + " needs " + std::to_string(expected));
  return entry;
}

} // namespace

const StoredTensor *SafetensorsContents::find(const std::string &name) const {
  for (const StoredTensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string
safetensorsHeader(const std::vector<TensorRef> &tensors,
                  const std::map<std::string, std::string> &metadata) {
  // Compact JSON with keys in this order: the reference writer's layout.
  Json header = Json::object();
  if (!metadata.empty()) {
    Json &meta = header["__metadata__"] = Json::object();
    for (const auto &[key, value] : metadata)
      meta[key] = value;
  }
  int64_t offset = 0;
  for (const TensorRef &t : tensors) {
    int64_t end = offset + numElements(t.shape) * int64_t(sizeof(float));
    Json entry = Json::object();
    entry["dtype"] = "F32";
    entry["shape"] = t.shape;
    entry["data_offsets"] = {offset, end};
    header[t.name] = std::move(entry);
    offset = end;
  }
  std::string text =
      header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

void writeSafetensors(const std::string &path,
                      const std::vector<TensorRef> &tensors,
                      const std::map<std::string, std::string> &metadata) {
  std::set<std::string> names;
  for (const TensorRef &t : tensors)
    if (t.name == "__metadata__" || !names.insert(t.name).second)
      throwDataError(path, 0,
                     "cannot save two tensors named '" + t.name +
                         "' (or one named __metadata__)");
  std::string header = safetensorsHeader(tensors, metadata);
  uint64_t length = header.size();
  AtomicFile out(path);
  out.write(&length, sizeof length);
  out.write(header.data(), header.size());
  for (const TensorRef &t : tensors)
    out.write(t.data, size_t(numElements(t.shape)) * sizeof(float));
  out.commit();
}

SafetensorsContents readSafetensors(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throwDataError(path, 0,
                   std::string("cannot open file: ") + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (bytes.size() < 8)
    throwDataError(path, 0, "not a safetensors file (shorter than 8 bytes)");
  uint64_t headerBytes;
  std::memcpy(&headerBytes, bytes.data(), 8);
  if (headerBytes > kMaxHeaderBytes || headerBytes > bytes.size() - 8)
    throwDataError(path, 0,
                   "not a safetensors file (header length " +
                       std::to_string(headerBytes) + " exceeds the file size " +
                       std::to_string(bytes.size()) + ")");
  // nlohmann-json keeps the last of repeated keys; a tensor named twice is
  // an error, caught as the key is read.
  std::set<std::string> seen;
  auto rejectRepeats = [&](int depth, Json::parse_event_t event,
                           Json &parsed) {
    if (event == Json::parse_event_t::key && depth == 1 &&
        !seen.insert(parsed.get<std::string>()).second)
      throwDataError(path, 0,
                     "tensor '" + parsed.get<std::string>() +
                         "' appears twice");
    return true;
  };
  Json header;
  try {
    header = parseJson(std::string_view(bytes).substr(8, headerBytes),
                       rejectRepeats);
  } catch (const JsonSyntaxError &e) {
    throwDataError(path, 0, std::string("malformed header: ") + e.what());
  }
  if (!header.is_object())
    throwDataError(path, 0, "malformed header: expected a JSON object");

  SafetensorsContents contents;
  std::vector<Entry> entries;
  for (const auto &[name, value] : header.items()) {
    if (name != "__metadata__") {
      entries.push_back(parseEntry(path, name, value));
      continue;
    }
    if (!value.is_object())
      throwDataError(path, 0, "__metadata__ must be an object of strings");
    for (const auto &[key, text] : value.items()) {
      if (!text.is_string())
        throwDataError(path, 0, "__metadata__ must be an object of strings");
      contents.metadata[key] = text.get<std::string>();
    }
  }

  // The tensors must tile the data exactly: no gaps, overlaps or tail.
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const int64_t dataBytes = int64_t(bytes.size() - 8 - headerBytes);
  int64_t covered = 0;
  for (const Entry &e : entries) {
    if (e.begin != covered)
      throwDataError(path, 0,
                     "tensor '" + e.name + "': data_offsets " +
                         formatOffsets(e.begin, e.end) +
                         (e.begin < covered ? " overlap another tensor"
                                            : " leave a gap before them"));
    covered = e.end;
  }
  if (covered != dataBytes)
    throwDataError(path, 0,
                   "tensors cover " + std::to_string(covered) +
                       " data bytes but the file holds " +
                       std::to_string(dataBytes) +
                       (covered > dataBytes ? " (truncated file?)" : ""));

  const char *data = bytes.data() + 8 + headerBytes;
  for (Entry &e : entries) {
    StoredTensor t;
    t.name = std::move(e.name);
    t.shape = std::move(e.shape);
    t.data.resize(size_t(numElements(t.shape)));
    std::memcpy(t.data.data(), data + e.begin, size_t(e.end - e.begin));
    contents.tensors.push_back(std::move(t));
  }
  return contents;
}

} // namespace gnnrt
