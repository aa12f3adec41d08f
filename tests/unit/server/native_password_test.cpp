#include "server/native_password.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace sluice::server {
namespace {

std::string Hex(std::string_view s) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// Expected values computed independently with Python's hashlib:
//   s1 = sha1(pw); s2 = sha1(s1); mask = sha1(scramble + s2); response = s1 XOR mask
TEST(NativePasswordTest, KnownVectors) {
  std::string scramble1;
  for (int i = 1; i <= 20; ++i) scramble1.push_back(static_cast<char>(i));
  EXPECT_EQ(Hex(NativePasswordResponse("secret", scramble1)), "b32bb3a583e1340c0a1108d58b1be49781ad8c2f");
  EXPECT_EQ(Hex(NativePasswordResponse("p\xc3\xa4ss w0rd!", "abcdefghijklmnopqrst")),
            "b18deb4de7e43512dc2dea2fc412d6ef5e73698b");
}

TEST(NativePasswordTest, VerifyAcceptsOnlyTheRightResponse) {
  std::string scramble = NewScramble();
  std::string good = NativePasswordResponse("secret", scramble);
  EXPECT_TRUE(VerifyNativePassword("secret", scramble, good));
  EXPECT_FALSE(VerifyNativePassword("Secret", scramble, good));
  EXPECT_FALSE(VerifyNativePassword("secret", NewScramble(), good));
  std::string flipped = good;
  flipped[19] = static_cast<char>(flipped[19] ^ 1);
  EXPECT_FALSE(VerifyNativePassword("secret", scramble, flipped));
  EXPECT_FALSE(VerifyNativePassword("secret", scramble, ""));
  EXPECT_FALSE(VerifyNativePassword("secret", scramble, good.substr(0, 19)));
  EXPECT_FALSE(VerifyNativePassword("secret", scramble, good + "x"));
}

TEST(NativePasswordTest, EmptyPasswordMeansEmptyResponse) {
  std::string scramble = NewScramble();
  EXPECT_EQ(NativePasswordResponse("", scramble), "");
  EXPECT_TRUE(VerifyNativePassword("", scramble, ""));
  EXPECT_FALSE(VerifyNativePassword("", scramble, NativePasswordResponse("x", scramble)));
}

TEST(NativePasswordTest, ScrambleAlphabet) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string s = NewScramble();
    ASSERT_EQ(s.size(), 20u);
    for (char c : s) {
      EXPECT_NE(c, '\0');
      EXPECT_NE(c, '$');
      EXPECT_LT(static_cast<unsigned char>(c), 128);
    }
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 100u);
}

}  // namespace
}  // namespace sluice::server
