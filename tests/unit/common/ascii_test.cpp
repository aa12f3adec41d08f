#include "common/ascii.h"

#include <gtest/gtest.h>

#include <cctype>

namespace sluice {
namespace {

TEST(AsciiTest, FoldsAsciiLetters) {
  EXPECT_EQ(AsciiLower("@@Session.X"), "@@session.x");
  EXPECT_EQ(AsciiLower("KAFKA_Default_Offsets"), "kafka_default_offsets");
  EXPECT_EQ(AsciiUpper("varchar(26)"), "VARCHAR(26)");
  EXPECT_EQ(AsciiUpper("offset_Beginning"), "OFFSET_BEGINNING");
  EXPECT_EQ(AsciiLower(""), "");
}

TEST(AsciiTest, LeavesEveryOtherByteAlone) {
  // Digits, punctuation and the bytes next to the letter ranges ('@' 0x40, '[' 0x5b, '`' 0x60, '{' 0x7b).
  EXPECT_EQ(AsciiLower("0-9_@[`{$"), "0-9_@[`{$");
  EXPECT_EQ(AsciiUpper("0-9_@[`{$"), "0-9_@[`{$");
  // UTF-8: "ÄÖ" and "straße" keep their bytes, so names in other scripts keep their spelling.
  EXPECT_EQ(AsciiLower("\xC3\x84\xC3\x96"), "\xC3\x84\xC3\x96");
  EXPECT_EQ(AsciiUpper("stra\xC3\x9F" "e"), "STRA\xC3\x9F" "E");
  // Bytes with the high bit set are never letters, whatever the locale.
  std::string high;
  for (int b = 0x80; b <= 0xff; b++) high.push_back(static_cast<char>(b));
  EXPECT_EQ(AsciiLower(high), high);
  EXPECT_EQ(AsciiUpper(high), high);
}

TEST(AsciiTest, EveryAsciiByteMatchesTheCLocale) {
  // The copies this replaced used std::tolower / std::toupper in the C locale (Sluice never sets another).
  for (int b = 0; b < 0x80; b++) {
    std::string s(1, static_cast<char>(b));
    EXPECT_EQ(AsciiLower(s), std::string(1, static_cast<char>(std::tolower(b)))) << b;
    EXPECT_EQ(AsciiUpper(s), std::string(1, static_cast<char>(std::toupper(b)))) << b;
  }
}

}  // namespace
}  // namespace sluice
