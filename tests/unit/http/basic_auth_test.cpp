#include "http/basic_auth.h"

#include <gtest/gtest.h>

namespace sluice::http {
namespace {

TEST(Base64, DecodesWithAndWithoutPadding) {
  EXPECT_EQ(DecodeBase64("cm9vdDpzZWNyZXQ="), "root:secret");
  EXPECT_EQ(DecodeBase64("YWI="), "ab");
  EXPECT_EQ(DecodeBase64("YQ=="), "a");
  EXPECT_EQ(DecodeBase64("YWJj"), "abc");
  EXPECT_EQ(DecodeBase64(""), "");
}

TEST(Base64, RefusesWhatIsNotBase64) {
  EXPECT_FALSE(DecodeBase64("YWJ"));       // length not a multiple of 4
  EXPECT_FALSE(DecodeBase64("YW=j"));      // data after padding
  EXPECT_FALSE(DecodeBase64("Y===") );     // too much padding
  EXPECT_FALSE(DecodeBase64("YQ==YWJj"));  // padding before the end
  EXPECT_FALSE(DecodeBase64("YW J"));
}

TEST(BasicAuthorization, SplitsUserAndPasswordAtTheFirstColon) {
  auto c = ParseBasicAuthorization("Basic cm9vdDpzZTpjcmV0");  // root:se:cret
  ASSERT_TRUE(c);
  EXPECT_EQ(c->user, "root");
  EXPECT_EQ(c->password, "se:cret");
  auto empty = ParseBasicAuthorization("basic cm9vdDo=");  // root: (empty password), lower-case scheme
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->user, "root");
  EXPECT_EQ(empty->password, "");
}

TEST(BasicAuthorization, RefusesOtherSchemesAndBrokenTokens) {
  EXPECT_FALSE(ParseBasicAuthorization(""));
  EXPECT_FALSE(ParseBasicAuthorization("Bearer abc"));
  EXPECT_FALSE(ParseBasicAuthorization("Basic"));
  EXPECT_FALSE(ParseBasicAuthorization("Basic cm9vdA=="));  // "root": no colon
  EXPECT_FALSE(ParseBasicAuthorization("Basic !!!!"));
}

TEST(FailedLoginDelay, GrowsPerAddressAndIsForgotten) {
  FailedLoginDelay d;
  auto t = std::chrono::steady_clock::now();
  EXPECT_EQ(d.Fail("10.0.0.1", t), std::chrono::milliseconds(250));
  EXPECT_EQ(d.Fail("10.0.0.1", t), std::chrono::milliseconds(500));
  EXPECT_EQ(d.Fail("10.0.0.1", t), std::chrono::milliseconds(1000));
  EXPECT_EQ(d.Fail("10.0.0.2", t), std::chrono::milliseconds(250)) << "another address has its own count";
  for (int i = 0; i < 20; ++i) d.Fail("10.0.0.1", t);
  EXPECT_EQ(d.Fail("10.0.0.1", t), FailedLoginDelay::kMax) << "capped";
  EXPECT_EQ(d.Fail("10.0.0.1", t + FailedLoginDelay::kForget + std::chrono::seconds(1)),
            std::chrono::milliseconds(250)) << "forgotten after a quiet while";
}

TEST(FailedLoginDelay, AnAddressWithoutFailuresMayHaveSeveralLoginsCheckedAtOnce) {
  // A browser's dashboard tabs and a scraper on one host each log in with every request.
  FailedLoginDelay d;
  auto t = std::chrono::steady_clock::now();
  for (uint32_t i = 0; i < FailedLoginDelay::kMaxCheckingClean; ++i) EXPECT_TRUE(d.Enter("10.0.0.1", t));
  EXPECT_FALSE(d.Enter("10.0.0.1", t)) << "still bounded";
  for (uint32_t i = 0; i < FailedLoginDelay::kMaxCheckingClean; ++i) d.Leave("10.0.0.1");
  d.Fail("10.0.0.1", t);
  for (uint32_t i = 0; i < FailedLoginDelay::kMaxWaiting; ++i) EXPECT_TRUE(d.Enter("10.0.0.1", t));
  EXPECT_FALSE(d.Enter("10.0.0.1", t)) << "a failure on record brings the address down to kMaxWaiting";
  for (uint32_t i = 0; i < FailedLoginDelay::kMaxWaiting; ++i) d.Leave("10.0.0.1");
  auto later = t + FailedLoginDelay::kForget + std::chrono::seconds(1);
  for (uint32_t i = 0; i < FailedLoginDelay::kMaxWaiting + 1; ++i) EXPECT_TRUE(d.Enter("10.0.0.1", later))
      << "forgotten failures lift the limit again";
}

TEST(FailedLoginDelay, AnAddressHasFewLoginsWaitingAtOnce) {
  FailedLoginDelay d;
  auto t = std::chrono::steady_clock::now();
  d.Fail("10.0.0.1", t);
  d.Fail("10.0.0.2", t);
  for (uint32_t i = 0; i < FailedLoginDelay::kMaxWaiting; ++i) EXPECT_TRUE(d.Enter("10.0.0.1", t));
  EXPECT_FALSE(d.Enter("10.0.0.1", t));
  EXPECT_TRUE(d.Enter("10.0.0.2", t)) << "another address has its own slots";
  d.Leave("10.0.0.1");
  EXPECT_TRUE(d.Enter("10.0.0.1", t));
}

}  // namespace
}  // namespace sluice::http
