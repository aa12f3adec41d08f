#pragma once
// A CSV column separator or row delimiter (1..50 bytes) and the two questions the decoder asks about it:
// "where is the next one?" and "is there one right here?". The search is memchr on the first byte, which is
// SIMD in glibc, then a memcmp of the rest for multi-byte patterns; both stay inline because they run per field.
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace sluice::format {

class BytePattern {
 public:
  static constexpr size_t npos = std::string_view::npos;

  explicit BytePattern(std::string bytes) : bytes_(std::move(bytes)) {}

  std::string_view bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }
  unsigned char first() const { return static_cast<unsigned char>(bytes_[0]); }

  // Position of the first occurrence starting at or after `from`, or npos.
  size_t Find(std::string_view text, size_t from) const {
    const size_t n = bytes_.size();
    if (from >= text.size() || text.size() - from < n) return npos;
    const char* base = text.data();
    const char* p = base + from;
    // The last position where a whole pattern still fits.
    const char* last = base + text.size() - n;
    while (p <= last) {
      const void* hit = std::memchr(p, bytes_[0], static_cast<size_t>(last - p) + 1);
      if (hit == nullptr) return npos;
      p = static_cast<const char*>(hit);
      if (n == 1 || std::memcmp(p + 1, bytes_.data() + 1, n - 1) == 0) return static_cast<size_t>(p - base);
      ++p;
    }
    return npos;
  }

  bool MatchesAt(std::string_view text, size_t pos) const {
    const size_t n = bytes_.size();
    return pos < text.size() && text.size() - pos >= n && text[pos] == bytes_[0] &&
           (n == 1 || std::memcmp(text.data() + pos + 1, bytes_.data() + 1, n - 1) == 0);
  }

 private:
  std::string bytes_;
};

}  // namespace sluice::format
