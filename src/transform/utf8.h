#pragma once
// UTF-8 checks for user text that ends up inside generated SQL: DuckDB rejects a literal or an identifier that is
// not valid UTF-8, and would then fail the whole batch instead of one row.
#include <cstddef>
#include <string_view>

namespace sluice::transform {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is malformed (or a NUL byte, which DuckDB's
// parser cannot take either).
inline size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  size_t n = c == 0 ? 0 : c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; k++) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

inline bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace sluice::transform
