//===- SafetensorsTest.cpp - Checkpoint files byte for byte ---------------===//
//
// The exact bytes of a tiny file (what Python's safetensors expects), round
// trips, and the errors for files that are short, corrupt or inconsistent.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/io/Safetensors.h"

#include "TestUtil.h"

#include <cstring>
#include <filesystem>

using namespace gnnrt;
using namespace gnnrt::test;

namespace {

std::string lengthPrefix(uint64_t n) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[size_t(i)] = char((n >> (8 * i)) & 0xFF);
  return bytes;
}

std::string floatBytes(std::vector<float> values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// A file with `header` (unpadded) followed by `data`.
std::string fileWith(const std::string &header, const std::string &data) {
  return lengthPrefix(header.size()) + header + data;
}

} // namespace

TEST(Safetensors, ExactBytesOfATinyFile) {
  TempDir tmp;
  std::vector<float> w = {1.0f, 2.0f};
  writeSafetensors(tmp / "w.safetensors", {{"w", {2}, w.data()}},
                   {{"model", "M"}});
  // 83 bytes of JSON padded with spaces to 88, a multiple of 8.
  std::string header = "{\"__metadata__\":{\"model\":\"M\"},\"w\":{\"dtype\":"
                       "\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}     ";
  ASSERT_EQ(header.size(), 88u);
  EXPECT_EQ(readBytes(tmp / "w.safetensors"),
            std::string("\x58\0\0\0\0\0\0\0", 8) + header +
                std::string("\0\0\x80\x3f\0\0\0\x40", 8));
  EXPECT_FALSE(std::filesystem::exists(tmp / "w.safetensors.tmp"));
}

TEST(Safetensors, RoundTrip) {
  TempDir tmp;
  std::vector<float> a = {1.5f, -2.25f, 3.0f, 0.0f, 1e-30f, -7.0f};
  std::vector<float> scalar = {42.0f};
  std::vector<TensorRef> tensors = {{"layer.0.w", {2, 3}, a.data()},
                                    {"scale", {}, scalar.data()},
                                    {"empty", {0, 4}, nullptr},
                                    {"quote\"d", {1}, scalar.data()}};
  writeSafetensors(tmp / "m.safetensors", tensors,
                   {{"model", "GCN"}, {"source", "gcn.gnn"}});
  SafetensorsContents file = readSafetensors(tmp / "m.safetensors");
  ASSERT_EQ(file.tensors.size(), 4u);
  EXPECT_EQ(file.metadata.at("model"), "GCN");
  EXPECT_EQ(file.metadata.at("source"), "gcn.gnn");
  const StoredTensor *t = file.find("layer.0.w");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t->data, a);
  EXPECT_EQ(file.find("scale")->shape, std::vector<int64_t>{});
  EXPECT_EQ(file.find("scale")->data, scalar);
  EXPECT_TRUE(file.find("empty")->data.empty());
  EXPECT_EQ(file.find("quote\"d")->data, scalar);
  EXPECT_EQ(file.find("missing"), nullptr);
}

TEST(Safetensors, RejectsDuplicateNamesOnWrite) {
  TempDir tmp;
  float x = 1;
  std::string path = tmp / "d.safetensors";
  EXPECT_EQ(dataErrorOf([&] {
              writeSafetensors(path, {{"a", {1}, &x}, {"a", {1}, &x}});
            }),
            path + ": cannot save two tensors named 'a' (or one named "
                   "__metadata__)");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(Safetensors, ReadErrors) {
  TempDir tmp;
  std::string path = tmp / "bad.safetensors";
  auto errorFor = [&](const std::string &bytes) {
    writeFile(path, bytes);
    return dataErrorOf([&] { readSafetensors(path); });
  };
  std::string entry = "\"w\":{\"dtype\":\"F32\",\"shape\":[2],"
                      "\"data_offsets\":[0,8]}";
  std::string data = floatBytes({1, 2});

  EXPECT_EQ(dataErrorOf([&] { readSafetensors(tmp / "none"); }),
            tmp / "none" + ": cannot open file: No such file or directory");
  EXPECT_EQ(errorFor("abc"),
            path + ": not a safetensors file (shorter than 8 bytes)");
  EXPECT_EQ(errorFor(lengthPrefix(1000) + "{}"),
            path + ": not a safetensors file (header length 1000 exceeds "
                   "the file size 10)");
  EXPECT_EQ(errorFor(fileWith("{\"w\":", "")),
            path + ": malformed header: unexpected end of input at offset 5");
  EXPECT_EQ(errorFor(fileWith("[1]", "")),
            path + ": malformed header: expected a JSON object");
  EXPECT_EQ(errorFor(fileWith("{" + entry + "," + entry + "}", data)),
            path + ": tensor 'w' appears twice");
  EXPECT_EQ(errorFor(fileWith("{\"w\":{\"dtype\":\"F16\",\"shape\":[2],"
                              "\"data_offsets\":[0,4]}}",
                              "1234")),
            path + ": tensor 'w': dtype is F16; only F32 is supported");
  EXPECT_EQ(errorFor(fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],"
                              "\"data_offsets\":[0,8]}}",
                              data)),
            path + ": tensor 'w': data_offsets [0, 8] hold 8 bytes but "
                   "shape [3] needs 12");
  EXPECT_EQ(errorFor(fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[-1],"
                              "\"data_offsets\":[0,8]}}",
                              data)),
            path + ": tensor 'w': shape entries must be non-negative "
                   "integers");
  EXPECT_EQ(
      errorFor(fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[2]}}", data)),
      path + ": tensor 'w': 'data_offsets' must be an array of two "
             "byte offsets");
  EXPECT_EQ(errorFor(fileWith("{" + entry + "}", data.substr(0, 6))),
            path + ": tensors cover 8 data bytes but the file holds 6 "
                   "(truncated file?)");
  EXPECT_EQ(errorFor(fileWith("{" + entry + "}", data + "xx")),
            path + ": tensors cover 8 data bytes but the file holds 10");
  EXPECT_EQ(errorFor(fileWith("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],"
                              "\"data_offsets\":[4,8]}}",
                              data)),
            path + ": tensor 'w': data_offsets [4, 8] leave a gap before "
                   "them");
  EXPECT_EQ(errorFor(fileWith("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
                              "\"data_offsets\":[0,8]},\"b\":{\"dtype\":"
                              "\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                              data)),
            path + ": tensor 'b': data_offsets [4, 8] overlap another tensor");
  EXPECT_EQ(errorFor(fileWith("{\"__metadata__\":{\"n\":1}}", "")),
            path + ": __metadata__ must be an object of strings");
}
