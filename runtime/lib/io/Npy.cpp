//===- Npy.cpp - NumPy .npy reader and writer -----------------------------===//
//
// Parses the .npy header dict with a small recursive-descent reader over the
// only literals numpy writes there (strings, True/False, int tuples), reads
// the data with one fread, and converts element types on demand. Writing
// uses numpy.save's layout (the dict padded to a 64-byte data offset; only
// numpy's optional growth padding is left out), so files are byte-identical
// across runs and loadable by numpy.load.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/Npy.h"

#include "gnnrt/support/Error.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace gnnrt {

namespace {
struct FileCloser {
  void operator()(FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

struct TypeInfo {
  NpyType type;
  const char *descr; // without the byte-order character
  size_t size;
};
const TypeInfo kTypes[] = {
    {NpyType::Bool, "b1", 1},    {NpyType::Int8, "i1", 1},
    {NpyType::UInt8, "u1", 1},   {NpyType::Int16, "i2", 2},
    {NpyType::UInt16, "u2", 2},  {NpyType::Int32, "i4", 4},
    {NpyType::UInt32, "u4", 4},  {NpyType::Int64, "i8", 8},
    {NpyType::UInt64, "u8", 8},  {NpyType::Float32, "f4", 4},
    {NpyType::Float64, "f8", 8},
};

/// Reads the header dict literal; every failure names the file.
class HeaderParser {
public:
  HeaderParser(const std::string &file, std::string_view text)
      : file(file), text(text) {}

  NpyHeader parse() {
    NpyHeader header;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    expect('{');
    while (!consume('}')) {
      std::string key = parseString();
      expect(':');
      if (key == "descr") {
        header.type = typeFromDescr(parseString());
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (parseBool())
          throwDataError(file, 0,
                         "Fortran-order arrays are not supported (save a "
                         "C-contiguous array, e.g. np.ascontiguousarray)");
        haveOrder = true;
      } else if (key == "shape") {
        header.shape = parseShape();
        haveShape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      // Entries are separated by commas; numpy also writes a trailing one.
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    if (!haveDescr || !haveOrder || !haveShape)
      fail("missing 'descr', 'fortran_order' or 'shape'");
    return header;
  }

private:
  [[noreturn]] void fail(const std::string &what) {
    throwDataError(file, 0, "malformed .npy header: " + what);
  }
  void skipBlanks() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n'))
      ++pos;
  }
  bool consume(char c) {
    skipBlanks();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }
  std::string parseString() {
    skipBlanks();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      fail("expected a quoted string");
    char quote = text[pos++];
    size_t close = text.find(quote, pos);
    if (close == std::string_view::npos)
      fail("unterminated string");
    std::string s(text.substr(pos, close - pos));
    pos = close + 1;
    return s;
  }
  bool parseBool() {
    skipBlanks();
    if (text.substr(pos, 4) == "True") {
      pos += 4;
      return true;
    }
    if (text.substr(pos, 5) == "False") {
      pos += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> parseShape() {
    std::vector<int64_t> shape;
    expect('(');
    while (!consume(')')) {
      skipBlanks();
      int64_t dim = 0;
      size_t start = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (dim > (int64_t(1) << 55))
          fail("dimension too large");
        dim = dim * 10 + (text[pos++] - '0');
      }
      if (pos == start)
        fail("expected a dimension");
      shape.push_back(dim);
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }
  NpyType typeFromDescr(const std::string &descr) {
    if (descr.size() == 3) {
      char order = descr[0];
      if (order == '>' && descr[2] != '1')
        throwDataError(file, 0,
                       "big-endian dtype '" + descr + "' is not supported");
      if (order == '<' || order == '|' || order == '=' || order == '>')
        for (const TypeInfo &t : kTypes)
          if (descr.compare(1, 2, t.descr) == 0)
            return t.type;
    }
    throwDataError(file, 0, "unsupported dtype '" + descr + "'");
  }

  const std::string &file;
  std::string_view text;
  size_t pos = 0;
};
} // namespace

size_t npyTypeSize(NpyType type) {
  for (const TypeInfo &t : kTypes)
    if (t.type == type)
      return t.size;
  return 0;
}

const char *npyDescr(NpyType type) {
  switch (type) {
  case NpyType::Bool:
    return "|b1";
  case NpyType::Int8:
    return "|i1";
  case NpyType::UInt8:
    return "|u1";
  case NpyType::Int16:
    return "<i2";
  case NpyType::UInt16:
    return "<u2";
  case NpyType::Int32:
    return "<i4";
  case NpyType::UInt32:
    return "<u4";
  case NpyType::Int64:
    return "<i8";
  case NpyType::UInt64:
    return "<u8";
  case NpyType::Float32:
    return "<f4";
  case NpyType::Float64:
    return "<f8";
  }
  return "";
}

int64_t NpyHeader::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

NpyHeader parseNpyHeader(const std::string &file, const char *bytes,
                         size_t size) {
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0)
    throwDataError(file, 0, "not a .npy file (bad magic)");
  unsigned major = uint8_t(bytes[6]), minor = uint8_t(bytes[7]);
  size_t lenBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    throwDataError(file, 0,
                   "unsupported .npy version " + std::to_string(major) + "." +
                       std::to_string(minor));
  if (size < 8 + lenBytes)
    throwDataError(file, 0, "truncated .npy header");
  size_t headerLen = 0;
  for (size_t i = 0; i < lenBytes; ++i)
    headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
  size_t dataOffset = 8 + lenBytes + headerLen;
  if (size < dataOffset)
    throwDataError(file, 0, "truncated .npy header");
  NpyHeader header =
      HeaderParser(file, std::string_view(bytes + 8 + lenBytes, headerLen))
          .parse();
  header.dataOffset = dataOffset;
  return header;
}

namespace {
/// Opens an .npy file and parses its header, checking the header's shape
/// against the file's size before anything is allocated: a corrupt or
/// hostile shape must not make the reader ask for terabytes.
FilePtr openNpy(const std::string &path, NpyHeader &header) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f)
    throwDataError(path, 0,
                   std::string("cannot open: ") + std::strerror(errno));
  char prefix[12];
  size_t got = std::fread(prefix, 1, sizeof(prefix), f.get());
  // Only the magic and header length first: the header may be long (v2).
  if (got < 10 || std::memcmp(prefix, "\x93NUMPY", 6) != 0)
    throwDataError(path, 0, "not a .npy file (bad magic)");
  size_t lenBytes = uint8_t(prefix[6]) == 1 ? 2 : 4;
  size_t headerLen = 0;
  for (size_t i = 0; i < lenBytes && 8 + i < got; ++i)
    headerLen |= size_t(uint8_t(prefix[8 + i])) << (8 * i);
  std::vector<char> head(std::min<size_t>(8 + lenBytes + headerLen, 1 << 26));
  std::fseek(f.get(), 0, SEEK_SET);
  size_t headGot = std::fread(head.data(), 1, head.size(), f.get());

  header = parseNpyHeader(path, head.data(), headGot);
  uint64_t bytes = npyTypeSize(header.type);
  for (int64_t d : header.shape)
    if (d < 0 || __builtin_mul_overflow(bytes, uint64_t(d), &bytes))
      throwDataError(path, 0, "the header's shape does not fit in memory");
  std::fseek(f.get(), 0, SEEK_END);
  const long fileSize = std::ftell(f.get());
  const uint64_t available =
      fileSize > long(header.dataOffset)
          ? uint64_t(fileSize) - uint64_t(header.dataOffset)
          : 0;
  if (bytes > available)
    throwDataError(path, 0,
                   "truncated: expected " + std::to_string(bytes) +
                       " data bytes, found " + std::to_string(available));
  return f;
}
} // namespace

NpyHeader readNpyHeader(const std::string &path) {
  NpyHeader header;
  openNpy(path, header);
  return header;
}

NpyArray readNpySlice(const std::string &path, int64_t firstElement,
                      int64_t numElements) {
  NpyArray array;
  FilePtr f = openNpy(path, array.header);
  const int64_t total = array.header.numElements();
  if (numElements < 0)
    numElements = total - firstElement;
  if (firstElement < 0 || numElements < 0 || firstElement + numElements > total)
    throwDataError(path, 0,
                   "elements [" + std::to_string(firstElement) + ", " +
                       std::to_string(firstElement + numElements) +
                       ") lie outside the array's " + std::to_string(total));
  const size_t size = npyTypeSize(array.header.type);
  const size_t bytes = size_t(numElements) * size;
  array.data.resize(bytes);
  std::fseek(f.get(),
             long(array.header.dataOffset + size_t(firstElement) * size),
             SEEK_SET);
  size_t dataGot = std::fread(array.data.data(), 1, bytes, f.get());
  if (dataGot != bytes)
    throwDataError(path, 0,
                   "truncated: expected " + std::to_string(bytes) +
                       " data bytes, found " + std::to_string(dataGot));
  return array;
}

NpyArray readNpy(const std::string &path) { return readNpySlice(path, 0, -1); }

template <typename T> static T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// Calls fn(double or integer value) for each element, in order.
template <typename Fn> static void forEachElement(const NpyArray &a, Fn fn) {
  const char *p = a.data.data();
  size_t size = npyTypeSize(a.header.type);
  size_t n = a.data.size() / size;
  for (size_t i = 0; i < n; ++i, p += size) {
    switch (a.header.type) {
    case NpyType::Bool:
      fn(i, int64_t(load<uint8_t>(p) != 0));
      break;
    case NpyType::Int8:
      fn(i, int64_t(load<int8_t>(p)));
      break;
    case NpyType::UInt8:
      fn(i, int64_t(load<uint8_t>(p)));
      break;
    case NpyType::Int16:
      fn(i, int64_t(load<int16_t>(p)));
      break;
    case NpyType::UInt16:
      fn(i, int64_t(load<uint16_t>(p)));
      break;
    case NpyType::Int32:
      fn(i, int64_t(load<int32_t>(p)));
      break;
    case NpyType::UInt32:
      fn(i, int64_t(load<uint32_t>(p)));
      break;
    case NpyType::Int64:
      fn(i, load<int64_t>(p));
      break;
    case NpyType::UInt64:
      fn(i, int64_t(load<uint64_t>(p)));
      break;
    case NpyType::Float32:
      fn(i, double(load<float>(p)));
      break;
    case NpyType::Float64:
      fn(i, load<double>(p));
      break;
    }
  }
}

std::vector<int64_t> NpyArray::toInt64(const std::string &file,
                                       const int64_t *nanValue) const {
  std::vector<int64_t> out(data.size() / npyTypeSize(header.type));
  if (header.type == NpyType::Int64) { // the common case: one copy
    std::memcpy(out.data(), data.data(), data.size());
    return out;
  }
  forEachElement(*this, [&](size_t i, auto v) {
    if constexpr (std::is_same_v<decltype(v), double>) {
      if (std::isnan(v) && nanValue) {
        out[i] = *nanValue;
        return;
      }
      if (!(std::floor(v) == v) || std::fabs(v) > 9.0e18) {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%g", v);
        throwDataError(file, 0,
                       "element " + std::to_string(i) + " is " + buf +
                           ", expected an integer");
      }
      out[i] = int64_t(v);
    } else {
      out[i] = v;
    }
  });
  return out;
}

std::vector<float> NpyArray::toFloat32() const {
  std::vector<float> out(data.size() / npyTypeSize(header.type));
  if (header.type == NpyType::Float32) {
    std::memcpy(out.data(), data.data(), data.size());
    return out;
  }
  forEachElement(*this, [&](size_t i, auto v) { out[i] = float(v); });
  return out;
}

namespace {
/// numpy.save's header of an array: the dict padded to a 64-byte data
/// offset (version 1.0, or 2.0 if the dict needs it).
std::string npyHeaderBytes(NpyType type, const std::vector<int64_t> &shape) {
  // numpy writes "(5,)" and "(2, 7)": a space after inner commas.
  std::string shapeText;
  for (size_t i = 0; i < shape.size(); ++i)
    shapeText += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    shapeText += ",";
  std::string dict = std::string("{'descr': '") + npyDescr(type) +
                     "', 'fortran_order': False, 'shape': (" + shapeText +
                     "), }";
  // Pad with spaces and a final newline to a 64-byte aligned data start.
  size_t prefix = dict.size() + 1 >= 65536 - 10 ? 12 : 10;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';

  std::string head("\x93NUMPY", 6);
  head += char(prefix == 10 ? 1 : 2);
  head += char(0);
  size_t len = dict.size();
  for (size_t i = 0; i < prefix - 8; ++i)
    head += char((len >> (8 * i)) & 0xff);
  return head + dict;
}

[[noreturn]] void cannotWrite(const std::string &path) {
  throwDataError(path, 0, std::string("cannot write: ") + std::strerror(errno));
}

/// pwrite until every byte is written (it may write fewer).
void writeAll(int fd, const std::string &path, const char *bytes, size_t size,
              size_t offset) {
  while (size > 0) {
    ssize_t n = ::pwrite(fd, bytes, size, off_t(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      cannotWrite(path);
    bytes += n, size -= size_t(n), offset += size_t(n);
  }
}
} // namespace

void writeNpy(const std::string &path, NpyType type,
              const std::vector<int64_t> &shape, const void *data) {
  NpyWriter out(path, type, shape);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  out.write(0, data, n);
  out.close();
}

NpyWriter::NpyWriter(std::string path, NpyType type, std::vector<int64_t> shape)
    : path(std::move(path)), elementSize(npyTypeSize(type)) {
  numElements = 1;
  for (int64_t d : shape)
    numElements *= d;
  fd = ::open(this->path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
              0666);
  if (fd < 0)
    cannotWrite(this->path);
  const std::string head = npyHeaderBytes(type, shape);
  writeAll(fd, this->path, head.data(), head.size(), 0);
  dataOffset = head.size();
}

NpyWriter::~NpyWriter() {
  if (fd >= 0)
    ::close(fd);
}

void NpyWriter::write(int64_t firstElement, const void *data, int64_t count) {
  if (firstElement < 0 || count < 0 || firstElement + count > numElements)
    throwDataError(path, 0,
                   "elements [" + std::to_string(firstElement) + ", " +
                       std::to_string(firstElement + count) +
                       ") are outside the array's " +
                       std::to_string(numElements));
  writeAll(fd, path, static_cast<const char *>(data),
           size_t(count) * elementSize,
           dataOffset + size_t(firstElement) * elementSize);
  written += count;
}

void NpyWriter::close() {
  if (written != numElements)
    throwDataError(path, 0,
                   std::to_string(written) + " of " +
                       std::to_string(numElements) + " elements written");
  int rc = ::close(fd);
  fd = -1;
  if (rc != 0)
    cannotWrite(path);
}

} // namespace gnnrt
