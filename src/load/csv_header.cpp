#include "load/csv_header.h"

#include <fstream>
#include <set>

namespace sluice::load {

namespace {

bool Compressed(const std::string& path, const FileFormat& f) {
  if (f.compression != "auto") return f.compression != "none";
  for (const char* ext : {".gz", ".zst", ".gzip", ".zstd"}) {
    std::string e(ext);
    if (path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

}  // namespace

std::optional<std::vector<std::string>> ReadCsvHeader(const std::string& path, const FileFormat& f) {
  if (!f.header || Compressed(path, f)) return std::nullopt;
  const std::string sep = f.sep.value_or(",");
  const char quote = f.quote && f.quote->size() == 1 ? (*f.quote)[0] : '"';
  if (sep.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (int64_t i = 0; i <= f.skip; ++i)
    if (!std::getline(in, line)) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a UTF-8 byte order mark
  std::vector<std::string> names;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size();) {
    if (quoted) {
      if (line[i] == quote && i + 1 < line.size() && line[i + 1] == quote) {
        cur.push_back(quote);
        i += 2;
      } else if (line[i] == quote) {
        quoted = false;
        ++i;
      } else {
        cur.push_back(line[i++]);
      }
    } else if (line[i] == quote) {
      quoted = true;
      ++i;
    } else if (line.compare(i, sep.size(), sep) == 0) {
      names.push_back(std::move(cur));
      cur.clear();
      i += sep.size();
    } else {
      cur.push_back(line[i++]);
    }
  }
  if (quoted) return std::nullopt;  // a header spanning lines: leave it to DuckDB
  names.push_back(std::move(cur));
  std::set<std::string> seen;
  for (const std::string& n : names)
    if (n.empty() || !seen.insert(n).second) return std::nullopt;
  return names;
}

}  // namespace sluice::load
