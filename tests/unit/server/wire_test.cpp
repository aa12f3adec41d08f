#include "server/wire.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace sluice::server {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

TEST(WireTest, FixedIntegersAreLittleEndian) {
  std::string out;
  PutU8(out, 0x01);
  PutU16(out, 0x0302);
  PutU24(out, 0x060504);
  PutU32(out, 0x0a090807);
  PutU64(out, 0x1211100f0e0d0c0bULL);
  ASSERT_EQ(out.size(), 18u);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_EQ(static_cast<uint8_t>(out[i]), i + 1);

  WireReader r(out);
  EXPECT_EQ(*r.U8(), 0x01);
  EXPECT_EQ(*r.U16(), 0x0302);
  EXPECT_EQ(*r.U24(), 0x060504u);
  EXPECT_EQ(*r.U32(), 0x0a090807u);
  EXPECT_EQ(*r.U64(), 0x1211100f0e0d0c0bULL);
  EXPECT_TRUE(r.empty());
  EXPECT_FALSE(r.U8().ok());
}

TEST(WireTest, LenencIntBoundaries) {
  struct Case {
    uint64_t value;
    size_t size;
    int first;
  };
  const Case cases[] = {
      {0, 1, 0x00},           {250, 1, 0xfa},           {251, 3, 0xfc},
      {0xffff, 3, 0xfc},      {0x10000, 4, 0xfd},       {0xffffff, 4, 0xfd},
      {0x1000000, 9, 0xfe},   {UINT64_MAX, 9, 0xfe},
  };
  for (const Case& c : cases) {
    std::string out;
    PutLenencInt(out, c.value);
    EXPECT_EQ(out.size(), c.size) << c.value;
    EXPECT_EQ(LenencIntSize(c.value), c.size) << c.value;
    EXPECT_EQ(static_cast<uint8_t>(out[0]), c.first) << c.value;
    WireReader r(out);
    auto v = r.LenencInt();
    ASSERT_TRUE(v.ok()) << c.value;
    EXPECT_EQ(*v, c.value);
    EXPECT_TRUE(r.empty());
  }
}

TEST(WireTest, LenencIntRejectsNullMarkerAndErrPrefix) {
  // WireReader reads a view: the bytes must outlive it.
  std::string null_bytes = Bytes({0xfb});
  WireReader null_marker(null_bytes);
  EXPECT_FALSE(null_marker.LenencInt().ok());
  std::string err_bytes = Bytes({0xff, 0x00, 0x00});
  WireReader err_prefix(err_bytes);
  EXPECT_FALSE(err_prefix.LenencInt().ok());
}

TEST(WireTest, TruncatedLenencIntFails) {
  for (const std::string& s : {Bytes({0xfc}), Bytes({0xfc, 0x01}), Bytes({0xfd, 1, 2}), Bytes({0xfe, 1, 2, 3, 4, 5, 6, 7})}) {
    WireReader r(s);
    EXPECT_FALSE(r.LenencInt().ok());
  }
  WireReader empty("");
  EXPECT_FALSE(empty.LenencInt().ok());
}

TEST(WireTest, LenencStringRoundTripAndOverrun) {
  std::string out;
  PutLenencString(out, "hello");
  PutLenencString(out, "");
  PutLenencString(out, std::string(300, 'x'));
  WireReader r(out);
  EXPECT_EQ(*r.LenencString(), "hello");
  EXPECT_EQ(*r.LenencString(), "");
  EXPECT_EQ(r.LenencString()->size(), 300u);
  EXPECT_TRUE(r.empty());

  // Announces 5 bytes, has 2.
  std::string short_bytes = Bytes({5, 'a', 'b'});
  WireReader short_string(short_bytes);
  EXPECT_FALSE(short_string.LenencString().ok());
  // Announces 2^64-1 bytes: must not overflow the bounds check.
  std::string huge_bytes = Bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 'a'});
  WireReader huge(huge_bytes);
  EXPECT_FALSE(huge.LenencString().ok());
}

TEST(WireTest, NulStrings) {
  std::string out;
  PutNulString(out, "root");
  out += "tail";
  WireReader r(out);
  EXPECT_EQ(*r.NulString(), "root");
  EXPECT_FALSE(r.NulString().ok()) << "no NUL left";
  EXPECT_EQ(r.NulStringOrRest(), "tail");
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.NulStringOrRest(), "");
}

TEST(WireTest, BytesSkipAndRest) {
  WireReader r("abcdef");
  EXPECT_EQ(*r.Bytes(2), "ab");
  EXPECT_TRUE(r.Skip(1).ok());
  EXPECT_FALSE(r.Skip(4).ok());
  EXPECT_FALSE(r.Bytes(4).ok());
  EXPECT_EQ(r.remaining(), 3u);
  EXPECT_EQ(r.Rest(), "def");
  EXPECT_TRUE(r.empty());
}

TEST(WireTest, ErrorsNameTheProblem) {
  WireReader r("a");
  auto v = r.U32();
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("malformed packet"), std::string::npos);
}

}  // namespace
}  // namespace sluice::server
