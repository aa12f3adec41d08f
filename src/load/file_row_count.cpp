#include "load/file_row_count.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace sluice::load {

namespace {

constexpr size_t kChunk = size_t{1} << 20;

bool Compressed(const std::string& path, const FileFormat& f) {
  if (f.compression == "gzip" || f.compression == "zstd") return true;
  return f.compression == "auto" && (path.ends_with(".gz") || path.ends_with(".zst") || path.ends_with(".zstd"));
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Calls `chunk(data, size)` for each piece of the file in order; false when the file cannot be read or `chunk`
// gives up.
template <typename F>
bool ForEachChunk(const std::string& path, F&& chunk) {
  std::unique_ptr<std::FILE, FileCloser> in(std::fopen(path.c_str(), "rb"));
  if (!in) return false;
  std::unique_ptr<char[]> buf(new char[kChunk]);  // not zeroed: fread fills what is read
  for (;;) {
    size_t n = std::fread(buf.get(), 1, kChunk, in.get());
    if (n > 0 && !chunk(buf.get(), n)) return false;
    if (n < kChunk) return std::ferror(in.get()) == 0;
  }
}

// The CSV line structure of a file, chunk by chunk. Without a quote in a chunk (the common case) it only looks for
// line ends (memchr); with one, byte by byte with the quoting rules below.
class CsvLineCounter {
 public:
  CsvLineCounter(char sep, bool single_byte_sep, char quote, bool quoting, char escape)
      : sep_(sep), single_byte_sep_(single_byte_sep), quote_(quote), quoting_(quoting), escape_(escape) {}

  bool Feed(const char* p, size_t n) {
    if (std::memchr(p, '\r', n)) return false;  // \r\n and lone \r line ends: left to DuckDB
    // An escape character other than the quote: DuckDB may honour it outside quotes too. Left to DuckDB.
    if (quoting_ && escape_ != '\0' && escape_ != quote_ && std::memchr(p, escape_, n)) return false;
    const bool quotes = quoting_ && std::memchr(p, quote_, n) != nullptr;
    if (!quotes && state_ == State::kField) return FeedPlain(p, n);
    if (!single_byte_sep_) return false;  // a field's start is needed to read quotes; with one byte it is easy
    for (size_t i = 0; i < n; i++)
      if (!Byte(p[i])) return false;
    return true;
  }

  // The lines of the file, or nothing when it ends inside quotes.
  std::optional<int64_t> Finish() const {
    if (state_ == State::kQuoted) return std::nullopt;
    return lines_ + (line_has_content_ ? 1 : 0);
  }

 private:
  enum class State { kField, kQuoted, kAfterQuote };

  bool FeedPlain(const char* p, size_t n) {
    const char* end = p + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (!nl) {
        line_has_content_ = true;  // p < end: at least one byte
        field_start_ = end[-1] == sep_ && single_byte_sep_;
        return true;
      }
      if (nl == p && !line_has_content_) return false;  // an empty line: whether it is a row is DuckDB's to say
      lines_++;
      line_has_content_ = false;
      field_start_ = true;
      p = nl + 1;
    }
    return true;
  }

  bool Byte(char c) {
    switch (state_) {
      case State::kQuoted:
        if (c == quote_) state_ = State::kAfterQuote;  // the end of the value, or the first of a doubled quote
        return true;
      case State::kAfterQuote:
        if (c == quote_) {  // "" inside a quoted value: an escaped quote when the escape is the quote
          if (escape_ != quote_) return false;
          state_ = State::kQuoted;
          return true;
        }
        state_ = State::kField;
        if (c == sep_) {
          field_start_ = true;
          return true;
        }
        if (c == '\n') return EndLine();
        return false;  // text after a closing quote
      case State::kField:
        break;
    }
    if (c == '\n') return EndLine();
    line_has_content_ = true;
    if (c == quote_) {
      if (!field_start_) return false;  // a quote inside an unquoted value
      state_ = State::kQuoted;
      field_start_ = false;
      return true;
    }
    field_start_ = c == sep_;
    return true;
  }

  bool EndLine() {
    if (!line_has_content_) return false;
    lines_++;
    line_has_content_ = false;
    field_start_ = true;
    return true;
  }

  const char sep_;
  const bool single_byte_sep_;
  const char quote_;
  const bool quoting_;
  const char escape_;
  State state_ = State::kField;
  bool field_start_ = true;
  bool line_has_content_ = false;
  int64_t lines_ = 0;
};

}  // namespace

std::optional<int64_t> CountCsvRows(const std::string& path, const FileFormat& f) {
  if (Compressed(path, f) || f.skip > 0) return std::nullopt;
  const std::string sep = f.sep.value_or(",");
  const std::string quote = f.quote.value_or("\"");
  // Without the option read_csv has no escape (CsvReaderOptions passes none): a quote after a closing quote is then
  // DuckDB's to read, as is any escape other than the quote.
  const std::string escape = f.escape.value_or("");
  if (sep.empty() || quote.size() > 1 || escape.size() > 1) return std::nullopt;
  const bool quoting = !quote.empty();
  CsvLineCounter counter(sep[0], sep.size() == 1, quoting ? quote[0] : '\0', quoting,
                         escape.empty() ? '\0' : escape[0]);
  if (!ForEachChunk(path, [&](const char* p, size_t n) { return counter.Feed(p, n); })) return std::nullopt;
  auto lines = counter.Finish();
  if (!lines) return std::nullopt;
  if (f.header) return *lines > 0 ? *lines - 1 : 0;
  return *lines;
}

std::optional<int64_t> CountJsonLines(const std::string& path, const FileFormat& f) {
  if (Compressed(path, f)) return std::nullopt;
  int64_t records = 0;
  bool blank = true;  // the current line so far
  auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  bool ok = ForEachChunk(path, [&](const char* p, size_t n) {
    const char* end = p + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* stop = nl ? nl : end;
      for (const char* q = p; blank && q < stop; q++) blank = is_blank(*q);
      if (!nl) return true;
      if (!blank) records++;
      blank = true;
      p = nl + 1;
    }
    return true;
  });
  if (!ok) return std::nullopt;
  return records + (blank ? 0 : 1);
}

}  // namespace sluice::load
