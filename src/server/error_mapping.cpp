#include "server/error_mapping.h"

namespace sluice::server {

// Every code is listed (no default), so a new StatusCode makes -Wswitch point here.
MysqlError ToMysqlError(const Status& status) {
  const std::string& msg = status.message();
  switch (status.code()) {
    case StatusCode::kSyntaxError: return {er::kSyntaxError, "42000", msg};
    case StatusCode::kUnknownDatabase: return {er::kUnknownDatabase, "42000", msg};
    case StatusCode::kUnknownTable: return {1146, "42S02", msg};
    case StatusCode::kUnknownColumn: return {1054, "42S22", msg};
    case StatusCode::kDatabaseExists: return {1007, "HY000", msg};
    case StatusCode::kTableExists: return {1050, "42S01", msg};
    case StatusCode::kAccessDenied:
      // A refused statement is worded as MySQL words it (auth/access_denied.h); each wording has its number.
      if (msg.find(" command denied to user ") != std::string::npos) return {1142, "42000", msg};
      if (msg.rfind("Access denied for user ", 0) == 0 && msg.find("' to database '") != std::string::npos)
        return {1044, "42000", msg};
      if (msg.rfind("Access denied; you need", 0) == 0 || msg.rfind("Access denied:", 0) == 0)
        return {1227, "42000", msg};
      if (msg.rfind("You are not owner of thread", 0) == 0) return {er::kKillDenied, "HY000", msg};
      return {er::kAccessDenied, "28000", msg};
    case StatusCode::kInterrupted:
      if (msg.rfind("Server shutdown in progress", 0) == 0) return {er::kServerShutdown, "08S01", msg};
      if (msg.find("maximum statement execution time exceeded") != std::string::npos)
        return {er::kQueryTimeout, "HY000", msg};
      return {er::kQueryInterrupted, "70100", msg};
    case StatusCode::kNotSupported: return {1235, "42000", msg};
    // ER_DISK_FULL, as MySQL answers when its data directory's disk fills up.
    case StatusCode::kDiskFull: return {1021, "HY000", msg};
    // ER_LOCK_DEADLOCK: drivers and ORMs know 40001 means "run the transaction again", which is what a lost
    // write-write conflict in DuckDB asks for.
    case StatusCode::kConflict: return {1213, "40001", msg};
    case StatusCode::kInvalidArgument:
      // The executor reports a missing current database as an invalid argument; clients know it as 1046.
      if (msg.rfind("No database selected", 0) == 0) return {er::kNoDatabaseSelected, "3D000", msg};
      // ER_DATA_TOO_LONG, as MySQL's strict mode refuses a VARCHAR(n)/CHAR(n) value that does not fit.
      if (msg.rfind("Data too long for column '", 0) == 0) return {1406, "22001", msg};
      // ER_NO_PARTITION_FOR_GIVEN_VALUE: an INSERT row in none of the table's RANGE / LIST partitions.
      if (msg.rfind("no partition for this row: ", 0) == 0) return {1526, "HY000", msg};
      // The wordings storage/duckdb_error_table.cpp gives DuckDB's errors, with MySQL's numbers for them.
      if (msg.rfind("Column '", 0) == 0 && msg.find("' cannot be null") != std::string::npos)
        return {1048, "23000", msg};  // ER_BAD_NULL_ERROR
      if (msg.rfind("Column '", 0) == 0 && msg.find(" is ambiguous") != std::string::npos)
        return {1052, "23000", msg};  // ER_NON_UNIQ_ERROR
      if (msg.rfind("Expression '", 0) == 0 && msg.find("' isn't in GROUP BY") != std::string::npos)
        return {1055, "42000", msg};  // ER_WRONG_FIELD_WITH_GROUP
      if (msg.rfind("Incorrect ", 0) == 0 && msg.find(" value: '") != std::string::npos)
        return {1366, "HY000", msg};  // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
      if (msg.rfind("Truncated incorrect ", 0) == 0 && msg.find(" value: '") != std::string::npos)
        return {1292, "22007", msg};  // ER_TRUNCATED_WRONG_VALUE
      return {er::kUnknownError, "HY000", msg};
    case StatusCode::kOk:
      // A bug in the caller; still produce something a client can show.
      return {er::kUnknownError, "HY000", "internal error: success reported as an error"};
    case StatusCode::kNotFound:
      if (msg.rfind("Unknown thread id", 0) == 0) return {er::kUnknownThreadId, "HY000", msg};
      if (msg.rfind("FUNCTION ", 0) == 0) return {1305, "42000", msg};  // ER_SP_DOES_NOT_EXIST
      break;
    case StatusCode::kAlreadyExists:
      if (msg.rfind("Duplicate entry '", 0) == 0) return {1062, "23000", msg};  // ER_DUP_ENTRY
      if (msg.rfind("Duplicate column name '", 0) == 0) return {1060, "42S21", msg};  // ER_DUP_FIELDNAME
      break;
    case StatusCode::kOutOfRange:
      if (msg.rfind("Out of range value", 0) == 0) return {1264, "22003", msg};  // ER_WARN_DATA_OUT_OF_RANGE
      if (msg.find(" value is out of range in ") != std::string::npos)
        return {1690, "22003", msg};  // ER_DATA_OUT_OF_RANGE
      break;
    case StatusCode::kUnavailable:
    case StatusCode::kTimeout:
    case StatusCode::kIoError:
    case StatusCode::kInternal:
      break;
  }
  return {er::kUnknownError, "HY000", msg};
}

}  // namespace sluice::server
