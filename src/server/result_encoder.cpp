#include "server/result_encoder.h"

#include "server/ok_err.h"
#include "server/wire.h"

namespace sluice::server {

namespace {
// MySQL's "not a fixed number of decimals" marker for FLOAT/DOUBLE.
constexpr uint8_t kNotFixedDecimals = 31;
// DuckDB keeps microseconds.
constexpr uint8_t kFractionalDigits = 6;
// utf8mb4 takes up to 4 bytes a character; an unbounded string is reported as MySQL reports TEXT.
constexpr uint32_t kTextLength = 65535u * 4;

MysqlColumnType Number(ColumnType type, uint32_t length, bool is_unsigned = false,
                       uint8_t decimals = 0) {
  uint16_t flags = column_flag::kBinary;
  if (is_unsigned) flags |= column_flag::kUnsigned;
  return {type, charset::kBinary, length, flags, decimals};
}

MysqlColumnType Text(ColumnType type, uint32_t length, uint16_t flags = 0) {
  return {type, charset::kUtf8mb4GeneralCi, length, flags, 0};
}

// "true"/"false" as DuckDB prints them, or already 1/0.
std::string_view BooleanAsDigit(std::string_view v) {
  auto eq = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      char c = a[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != b[i]) return false;
    }
    return true;
  };
  if (eq(v, "true") || eq(v, "t")) return "1";
  if (eq(v, "false") || eq(v, "f")) return "0";
  return v;
}
}  // namespace

MysqlColumnType ToMysqlColumnType(const ColumnInfo& c) {
  switch (c.type) {
    case ValueType::kBoolean: return Number(ColumnType::kTiny, 1);
    case ValueType::kTinyInt: return Number(ColumnType::kTiny, 4);
    case ValueType::kSmallInt: return Number(ColumnType::kShort, 6);
    case ValueType::kInteger: return Number(ColumnType::kLong, 11);
    case ValueType::kBigInt: return Number(ColumnType::kLongLong, 20);
    // 128-bit integers do not fit LONGLONG; a DECIMAL(39,0) holds them and drivers parse it exactly.
    case ValueType::kHugeInt: return Number(ColumnType::kNewDecimal, 40);
    case ValueType::kUTinyInt: return Number(ColumnType::kTiny, 3, true);
    case ValueType::kUSmallInt: return Number(ColumnType::kShort, 5, true);
    case ValueType::kUInteger: return Number(ColumnType::kLong, 10, true);
    case ValueType::kUBigInt: return Number(ColumnType::kLongLong, 20, true);
    case ValueType::kFloat: return Number(ColumnType::kFloat, 12, false, kNotFixedDecimals);
    case ValueType::kDouble: return Number(ColumnType::kDouble, 22, false, kNotFixedDecimals);
    case ValueType::kDecimal: {
      uint32_t width = c.decimal_width ? c.decimal_width : 38;
      uint8_t scale = c.decimal_scale;
      // Display width: digits, a sign, and a decimal point when there is a fraction.
      return Number(ColumnType::kNewDecimal, width + 1 + (scale > 0 ? 1 : 0), false, scale);
    }
    // A declared VARCHAR(n) (n bytes in StarRocks, n characters at most) as MySQL announces VARCHAR(n) in utf8mb4,
    // so drivers show VARCHAR with precision n rather than TEXT.
    case ValueType::kVarchar:
      return Text(ColumnType::kVarString, c.char_length > 0 ? c.char_length * 4 : kTextLength);
    case ValueType::kBlob:
      return {ColumnType::kBlob, charset::kBinary, 65535, column_flag::kBlob | column_flag::kBinary, 0};
    case ValueType::kJson: return Text(ColumnType::kJson, 0xffffffffu, column_flag::kBlob);
    case ValueType::kDate: return Number(ColumnType::kDate, 10);
    case ValueType::kTime: return Number(ColumnType::kTime, 17, false, kFractionalDigits);
    case ValueType::kTimestamp: return Number(ColumnType::kDateTime, 26, false, kFractionalDigits);
    case ValueType::kTimestampTz: return Number(ColumnType::kTimestamp, 26, false, kFractionalDigits);
    case ValueType::kInterval:
    case ValueType::kOther:
      break;
  }
  return Text(ColumnType::kVarString, kTextLength);
}

std::string EncodeColumnDefinition(const ColumnInfo& column, std::string_view table, bool for_field_list) {
  MysqlColumnType t = ToMysqlColumnType(column);
  std::string out;
  out.reserve(32 + 2 * column.name.size() + 2 * table.size());
  PutLenencString(out, "def");  // catalog
  PutLenencString(out, "");     // schema
  PutLenencString(out, table);
  PutLenencString(out, table);  // original table
  PutLenencString(out, column.name);
  PutLenencString(out, column.name);  // original name
  PutLenencInt(out, 0x0c);            // length of the fixed-size fields that follow
  PutU16(out, t.charset);
  PutU32(out, t.length);
  PutU8(out, static_cast<uint8_t>(t.type));
  PutU16(out, t.flags);
  PutU8(out, t.decimals);
  PutU16(out, 0);  // filler
  if (for_field_list) PutU8(out, kNullValue);  // default value: not known here
  return out;
}

std::string EncodeTextRow(const std::vector<ColumnInfo>& columns, const Row& row) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i >= row.size() || !row[i]) {
      PutU8(out, kNullValue);
      continue;
    }
    std::string_view v = *row[i];
    if (columns[i].type == ValueType::kBoolean) v = BooleanAsDigit(v);
    PutLenencString(out, v);
  }
  return out;
}

Status EncodeResultSetHead(const std::vector<ColumnInfo>& columns, uint32_t client_capabilities,
                           uint16_t status_flags, const std::function<Status(std::string_view)>& emit) {
  std::string packet;
  PutLenencInt(packet, columns.size());
  RETURN_IF_ERROR(emit(packet));
  for (const ColumnInfo& c : columns) RETURN_IF_ERROR(emit(EncodeColumnDefinition(c)));
  if (!(client_capabilities & cap::kDeprecateEof)) RETURN_IF_ERROR(emit(EncodeEof(0, status_flags)));
  return Status::Ok();
}

Status EncodeResultSet(const ResultSet& result, uint32_t client_capabilities, uint16_t status_flags,
                       uint16_t warnings, const std::function<Status(std::string_view)>& emit) {
  RETURN_IF_ERROR(EncodeResultSetHead(result.columns, client_capabilities, status_flags, emit));
  for (const Row& row : result.rows) RETURN_IF_ERROR(emit(EncodeTextRow(result.columns, row)));
  return emit(EncodeEndOfRows(client_capabilities, warnings, status_flags));
}

}  // namespace sluice::server
