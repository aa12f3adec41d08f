#pragma once
// The rows DuckDB's reader finds in a CSV or JSON-lines file, counted by Sluice in one pass over the bytes, so a
// group load (LoadVolumeGroup) learns each file's rows for its load record without DuckDB reading the files a second
// time. A count is given only where it is exact by construction (see each function); otherwise nothing, and the
// caller asks DuckDB (a count(*) over the files). The group also checks that the counts add up to the rows its
// INSERT wrote, and fails (then loads file by file) when they do not.
#include <cstdint>
#include <optional>
#include <string>

#include "load/volume_copy.h"

namespace sluice::load {

// Rows of a CSV file as read_csv(header, delim, quote, escape) reads it under ON_ERROR = ABORT (any row it would
// refuse fails the load anyway): lines after the header. Nothing when the file is compressed (by option or
// extension), skips lines, has a carriage return, an empty line, a quote anywhere but at the start of a field or
// right after its closing quote, a doubled quote without ESCAPE = the quote, an ESCAPE other than the quote (where
// DuckDB's reading depends on its own rules), or cannot be read.
std::optional<int64_t> CountCsvRows(const std::string& path, const FileFormat& format);

// Records of a file read_json(format = 'newline_delimited') reads: its lines holding anything but blanks (DuckDB
// parses each such line as one JSON document and fails the load on a line that is not exactly one). Nothing when
// the file is compressed (by option or extension) or cannot be read.
std::optional<int64_t> CountJsonLines(const std::string& path, const FileFormat& format);

}  // namespace sluice::load
