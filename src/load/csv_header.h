#pragma once
// The column names in a CSV file's header line, read by Sluice rather than left to DuckDB's sniffer: when a row of
// the file is short, the sniffer gives up on the delimiter and names one column after the whole header line
// ("id,name"), so a transform's `CAST(id AS INT)` fails with a binder error instead of naming the bad line.
#include <optional>
#include <string>
#include <vector>

#include "load/volume_copy.h"

namespace sluice::load {

// The names of the header line (after `skip` lines), or nothing when they cannot be read here: a compressed file,
// no header, an empty or duplicated name. Then DuckDB's own detection applies.
std::optional<std::vector<std::string>> ReadCsvHeader(const std::string& path, const FileFormat& format);

}  // namespace sluice::load
