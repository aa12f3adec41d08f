#include "server/native_password.h"

#include "auth/password_hash.h"
#include "server/caching_sha2_password.h"

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
  // The server holds SHA1(SHA1(password)) only, never the password.
  std::string stage2 = auth::NativeStage2("secret");
  EXPECT_EQ(Hex(stage2), "14e65567abdb5135d0cfd9a70b3032c179a49ee7");
  std::string scramble = NewScramble();
  std::string good = NativePasswordResponse("secret", scramble);
  EXPECT_TRUE(VerifyNativePassword(stage2, scramble, good));
  EXPECT_FALSE(VerifyNativePassword(auth::NativeStage2("Secret"), scramble, good));
  EXPECT_FALSE(VerifyNativePassword(stage2, NewScramble(), good));
  std::string flipped = good;
  flipped[19] = static_cast<char>(flipped[19] ^ 1);
  EXPECT_FALSE(VerifyNativePassword(stage2, scramble, flipped));
  EXPECT_FALSE(VerifyNativePassword(stage2, scramble, ""));
  EXPECT_FALSE(VerifyNativePassword(stage2, scramble, good.substr(0, 19)));
  EXPECT_FALSE(VerifyNativePassword(stage2, scramble, good + "x"));
  EXPECT_FALSE(VerifyNativePassword("", scramble, good));
  // Knowing stage2 alone is not enough to answer: the response needs SHA1(password).
  std::string forged(20, '\0');
  EXPECT_FALSE(VerifyNativePassword(stage2, scramble, forged));
}

TEST(NativePasswordTest, EmptyPasswordMeansEmptyResponse) {
  std::string scramble = NewScramble();
  EXPECT_EQ(NativePasswordResponse("", scramble), "");
}

TEST(CachingSha2PasswordTest, KnownVector) {
  // Python: p1 = sha256(pw); p2 = sha256(p1); response = p1 XOR sha256(p2 + nonce)
  std::string nonce;
  for (int i = 1; i <= 20; ++i) nonce.push_back(static_cast<char>(i));
  std::string response = CachingSha2Response("secret", nonce);
  EXPECT_EQ(Hex(response), "746ebe205d56a0707acb3e796e834e0dd7b1d61743b26bd5202c7a623230c7c9");
  std::string stage2 = auth::Sha2Stage2("secret");
  EXPECT_EQ(Hex(stage2), "3881219d087dd9c634373fd33dfa33a2cb6bfc6c520b64b8bb60ef2ceb534ae7");
  EXPECT_TRUE(VerifyCachingSha2Password(stage2, nonce, response));
  EXPECT_FALSE(VerifyCachingSha2Password(auth::Sha2Stage2("Secret"), nonce, response));
  EXPECT_FALSE(VerifyCachingSha2Password(stage2, NewScramble(), response));
  EXPECT_FALSE(VerifyCachingSha2Password(stage2, nonce, response.substr(0, 31)));
  EXPECT_FALSE(VerifyCachingSha2Password(stage2, nonce, std::string(32, '\0')));
  EXPECT_EQ(CachingSha2Response("", nonce), "");
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
