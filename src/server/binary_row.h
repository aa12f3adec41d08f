#pragma once
// Binary-protocol result rows (the answer to COM_STMT_EXECUTE and COM_STMT_FETCH): a 0x00 header, a NULL bitmap
// offset by two bits, then each non-NULL value in the form its column type (result_encoder.h) announces --
// integers of 1, 2, 4 or 8 bytes, FLOAT/DOUBLE as IEEE bits, DATE/DATETIME/TIME as their packed fields, and
// length-encoded bytes for DECIMAL, strings, blobs and JSON. Values arrive as the text DuckDB printed.
#include <string>
#include <vector>

#include "common/result_set.h"

namespace sluice::server {

std::string EncodeBinaryRow(const std::vector<ColumnInfo>& columns, const Row& row);

}  // namespace sluice::server
