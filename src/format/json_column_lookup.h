#pragma once
// Which columns an object key fills when no jsonpaths are given: the column of exactly that name, and any column
// whose name matches it ignoring ASCII case (used only when the object has no exact key for that column; the
// caller keeps track of that). Columns are bucketed by name length, so a key is compared only with names it
// could match, and no key is lowercased or copied.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::format {

class JsonColumnLookup {
 public:
  explicit JsonColumnLookup(const std::vector<std::string>& columns);

  // Calls f(column, exact) for each column `key` names, exactly or ignoring case.
  template <typename F>
  void ForEachMatch(std::string_view key, F&& f) const {
    if (key.size() >= by_length_.size()) return;
    for (uint32_t column : by_length_[key.size()]) {
      const std::string& name = names_[column];
      if (std::memcmp(name.data(), key.data(), key.size()) == 0) {
        f(column, true);
      } else if (EqualsIgnoringCase(lowered_[column], key)) {
        f(column, false);
      }
    }
  }

 private:
  static char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
  static bool EqualsIgnoringCase(std::string_view lowered, std::string_view key) {
    for (size_t i = 0; i < key.size(); i++) {
      if (lowered[i] != Lower(key[i])) return false;
    }
    return true;
  }

  std::vector<std::string> names_;
  std::vector<std::string> lowered_;
  std::vector<std::vector<uint32_t>> by_length_;  // by_length_[n]: the columns whose name has n bytes
};

}  // namespace sluice::format
