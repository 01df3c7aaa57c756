//===- NpyTest.cpp - .npy header parsing, reading and writing -------------===//
//
// The .npy files here are written byte by byte, as numpy.save lays them out,
// so the parser is tested against the format rather than against our own
// writer; the writer is then checked to produce the same bytes.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/Npy.h"

#include "TestUtil.h"
#include "gnnrt/data/Dataset.h"

#include <cmath>
#include <cstring>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {
/// An .npy file as numpy writes it: magic, version, little-endian header
/// length, the dict padded with spaces + '\n' to 64 bytes, then `data`.
std::string npyBytes(const std::string &dict, const std::string &data,
                     int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += char(0);
  for (size_t i = 0; i < prefix - 8; ++i)
    out += char((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <typename T> std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values)
    s.append(reinterpret_cast<const char *>(&v), sizeof(T));
  return s;
}
} // namespace

TEST(Npy, ReadsVersion1Int64) {
  TempDir tmp;
  writeFile(
      tmp / "a.npy",
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
               raw<int64_t>({5, -1, 1LL << 40})));
  NpyArray a = readNpy(tmp / "a.npy");
  EXPECT_EQ(a.header.type, NpyType::Int64);
  EXPECT_EQ(a.header.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(a.header.dataOffset, 128u); // 10 + 59-char dict + '\n' > 64
  EXPECT_EQ(a.toInt64("a"), (std::vector<int64_t>{5, -1, 1LL << 40}));
}

TEST(Npy, ReadsVersion2Float64Matrix) {
  TempDir tmp;
  // Keys in another order and double quotes are legal dict syntax too.
  writeFile(tmp / "m.npy",
            npyBytes("{\"shape\": (2, 2), \"fortran_order\": False, "
                     "\"descr\": \"<f8\"}",
                     raw<double>({1.5, -2, 0.25, 1e10}), 2));
  NpyArray a = readNpy(tmp / "m.npy");
  EXPECT_EQ(a.header.type, NpyType::Float64);
  EXPECT_EQ(a.header.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.toFloat32(), (std::vector<float>{1.5f, -2.0f, 0.25f, 1e10f}));
}

TEST(Npy, FloatToIntegerConversion) {
  TempDir tmp;
  writeFile(
      tmp / "l.npy",
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
               raw<float>({2.0f, NAN, 0.0f})));
  NpyArray a = readNpy(tmp / "l.npy");
  int64_t unlabeled = -1;
  EXPECT_EQ(a.toInt64("l", &unlabeled), (std::vector<int64_t>{2, -1, 0}));
  writeFile(
      tmp / "f.npy",
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
               raw<float>({1.0f, 2.5f})));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "f.npy").toInt64("f.npy"); }),
            "f.npy: element 1 is 2.5, expected an integer");
}

TEST(Npy, FortranOrderIsAnError) {
  TempDir tmp;
  writeFile(
      tmp / "f.npy",
      npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
               raw<float>({1, 2, 3, 4})));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "f.npy"); }),
            tmp / "f.npy" + ": Fortran-order arrays are not supported (save a "
                            "C-contiguous array, e.g. np.ascontiguousarray)");
}

TEST(Npy, BigEndianIsAnError) {
  TempDir tmp;
  writeFile(
      tmp / "b.npy",
      npyBytes("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }",
               raw<int32_t>({1})));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "b.npy"); }),
            tmp / "b.npy" + ": big-endian dtype '>i4' is not supported");
}

// A header whose shape claims more data than the file holds is an error
// before anything is allocated: the reader used to allocate the claimed
// 16 GB (the fuzzer found it), and an overflowing shape wrapped around.
TEST(Npy, ShapeLargerThanTheFileAllocatesNothing) {
  TempDir tmp;
  writeFile(tmp / "h.npy",
            npyBytes("{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (4000000000,), }",
                     raw<float>({1, 2, 3, 4})));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "h.npy"); }),
            tmp / "h.npy" +
                ": truncated: expected 16000000000 data bytes, found 16");
  writeFile(tmp / "o.npy",
            npyBytes("{'descr': '<f8', 'fortran_order': False, "
                     "'shape': (4294967296, 4294967296), }",
                     raw<double>({1})));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "o.npy"); }),
            tmp / "o.npy" + ": the header's shape does not fit in memory");
}

TEST(Npy, MalformedFiles) {
  TempDir tmp;
  writeFile(tmp / "x.npy", "not numpy at all");
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "x.npy"); }),
            tmp / "x.npy" + ": not a .npy file (bad magic)");
  writeFile(
      tmp / "c.npy",
      npyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
               raw<float>({1, 2})));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "c.npy"); }),
            tmp / "c.npy" + ": unsupported dtype '<c8'");
  writeFile(
      tmp / "t.npy",
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }",
               raw<int64_t>({1, 2})));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "t.npy"); }),
            tmp / "t.npy" + ": truncated: expected 32 data bytes, found 16");
  writeFile(
      tmp / "s.npy",
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (x,), }",
               ""));
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "s.npy"); }),
            tmp / "s.npy" + ": malformed .npy header: expected a dimension");
  EXPECT_EQ(dataErrorOf([&] { readNpy(tmp / "missing.npy"); }),
            tmp / "missing.npy" + ": cannot open: No such file or directory");
}

TEST(Npy, WriterMatchesNumpyLayout) {
  TempDir tmp;
  std::vector<int32_t> values = {1, 2, 3, 4, 5, 6};
  writeNpy(tmp / "w.npy", NpyType::Int32, {2, 3}, values.data());
  EXPECT_EQ(
      readBytes(tmp / "w.npy"),
      npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
               raw<int32_t>({1, 2, 3, 4, 5, 6})));
  writeNpy(tmp / "v.npy", NpyType::Float32, {0}, nullptr);
  NpyArray empty = readNpy(tmp / "v.npy");
  EXPECT_EQ(empty.header.shape, (std::vector<int64_t>{0}));
  EXPECT_TRUE(empty.data.empty());
}

// An array written in pieces, in any order (an edge list's two rows as its
// edges are drawn), is writeNpy's file; a missing or stray piece is an
// error naming the file.
TEST(Npy, PieceWriterMatchesWholeWriter) {
  TempDir tmp;
  std::vector<int64_t> values = {10, 11, 12, 20, 21, 22};
  writeNpy(tmp / "whole.npy", NpyType::Int64, {2, 3}, values.data());
  NpyWriter pieces(tmp / "pieces.npy", NpyType::Int64, {2, 3});
  pieces.write(3, values.data() + 3, 2);
  pieces.write(0, values.data(), 3);
  pieces.write(5, values.data() + 5, 1);
  pieces.close();
  EXPECT_EQ(readBytes(tmp / "pieces.npy"), readBytes(tmp / "whole.npy"));

  NpyWriter shortOne(tmp / "short.npy", NpyType::Int64, {2, 3});
  shortOne.write(0, values.data(), 4);
  EXPECT_EQ(dataErrorOf([&] { shortOne.close(); }),
            tmp / "short.npy" + ": 4 of 6 elements written");
  NpyWriter past(tmp / "past.npy", NpyType::Int64, {2, 3});
  EXPECT_EQ(dataErrorOf([&] { past.write(4, values.data(), 3); }),
            tmp / "past.npy" + ": elements [4, 7) are outside the array's 6");
}

TEST(Npy, LoadsNpyDatasetDirectory) {
  TempDir tmp;
  // int32 edge_index [2, 3], float64 features, float labels with NaN.
  writeFile(
      tmp / "edge_index.npy",
      npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
               raw<int32_t>({0, 1, 2, 1, 2, 0})));
  writeFile(
      tmp / "features.npy",
      npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }",
               raw<double>({0.5, 1.5, 2.5})));
  writeFile(
      tmp / "labels.npy",
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
               raw<float>({1, NAN, 4})));
  writeFile(
      tmp / "train_idx.npy",
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
               raw<int64_t>({2, 0})));
  LoadOptions options;
  options.useCache = false;
  Dataset ds = loadDataset(tmp.path(), options);
  EXPECT_EQ(ds.numNodes, 3);
  EXPECT_EQ(ds.numFeatures, 1);
  EXPECT_EQ(ds.numClasses, 5);
  EXPECT_EQ(ds.src, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(ds.dst, (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(ds.features, (std::vector<float>{0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(ds.labels, (std::vector<int64_t>{1, -1, 4}));
  EXPECT_EQ(ds.trainIdx, (std::vector<int64_t>{2, 0}));
  EXPECT_TRUE(ds.validIdx.empty());
}

TEST(Npy, LoadsSrcDstWithoutNodeArrays) {
  TempDir tmp;
  writeFile(
      tmp / "src.npy",
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
               raw<int64_t>({0, 6})));
  writeFile(
      tmp / "dst.npy",
      npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
               raw<int64_t>({3, 1})));
  LoadOptions options;
  options.useCache = false;
  Dataset ds = loadDataset(tmp.path(), options);
  EXPECT_EQ(ds.numNodes, 7); // max id + 1
  EXPECT_EQ(ds.numFeatures, 0);
  EXPECT_EQ(ds.labels, std::vector<int64_t>(7, -1));
  EXPECT_EQ(ds.numClasses, 0);
}
