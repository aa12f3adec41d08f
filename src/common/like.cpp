#include "common/like.h"

#include <cctype>

namespace sluice {

bool LikeMatch(std::string_view text, std::string_view pattern) {
  // Iterative matcher with backtracking on the last %: linear enough for names and safe on any input.
  size_t t = 0, p = 0, star_p = std::string_view::npos, star_t = 0;
  auto eq = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); };
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '\\' && p + 1 < pattern.size() && eq(pattern[p + 1], text[t])) {
      p += 2;
      t++;
    } else if (p < pattern.size() && pattern[p] == '%') {
      star_p = p++;
      star_t = t;
    } else if (p < pattern.size() && (pattern[p] == '_' || (pattern[p] != '\\' && eq(pattern[p], text[t])))) {
      p++;
      t++;
    } else if (star_p != std::string_view::npos) {
      p = star_p + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '%') p++;
  return p == pattern.size();
}

}  // namespace sluice
