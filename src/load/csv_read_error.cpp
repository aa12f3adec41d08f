#include "load/csv_read_error.h"

#include <regex>
#include <string_view>

#include "load/volume_copy.h"

namespace sluice::load {
namespace {

std::string Match(const std::string& text, const std::regex& re, size_t group = 1) {
  std::smatch m;
  return std::regex_search(text, m, re) ? m[group].str() : std::string();
}

// The text of a line, short enough for an error a MySQL client shows whole (clients keep 511 bytes of a message).
std::string LineExcerpt(const std::string& line) {
  constexpr size_t kMax = 120;
  return line.size() <= kMax ? line : line.substr(0, kMax) + "...";
}

// The part of DuckDB's message before its advice and its option dump.
std::string Description(const std::string& message) {
  std::string head = message.substr(0, message.find("Possible fixes"));
  head = head.substr(0, head.find("\n\n"));
  return ConciseLoadError(head);
}

}  // namespace

Status CsvReadError(const Status& st, bool continue_on_error) {
  if (st.ok()) return st;
  const std::string& msg = st.message();
  static const std::regex kLine(R"(CSV Error on Line: (\d+))");
  static const std::regex kOriginal(R"(Original Line: ([^\n]*))");
  static const std::regex kColumns(R"(Expected Number of Columns: (\d+) Found: (\d+))");
  const std::string line = Match(msg, kLine);
  if (line.empty()) return Status(st.code(), Description(msg));

  std::string what;
  std::smatch counts;
  if (std::regex_search(msg, counts, kColumns)) {
    const std::string expected = counts[1].str(), found = counts[2].str();
    what = "expected " + expected + " column" + (expected == "1" ? "" : "s") + ", found " + found;
    if (std::stoll(found) > std::stoll(expected)) what += " (a separator inside a field needs the field quoted)";
  } else {
    // Another problem of the line (a value that does not convert, an unterminated quote): DuckDB's description
    // without its header lines.
    std::string d = Description(msg);
    for (const char* drop : {"CSV Error on Line: ", "Original Line: "}) {
      size_t at = d.find(drop);
      if (at == std::string::npos) continue;
      size_t end = d.find("; ", at);
      d.erase(at, end == std::string::npos ? std::string::npos : end + 2 - at);
    }
    while (!d.empty() && (d.back() == ' ' || d.back() == ';')) d.pop_back();
    what = d.empty() ? "the line cannot be read" : d;
  }
  std::string out = "line " + line + ": " + what;
  const std::string original = Match(msg, kOriginal);
  if (!original.empty()) out += " (the line reads '" + LineExcerpt(original) + "')";
  if (!continue_on_error)
    out += ". To load the other rows and record such rows in __sluice.volume_rejected_rows, add ON_ERROR = CONTINUE";
  return Status(st.code(), out);
}

}  // namespace sluice::load
