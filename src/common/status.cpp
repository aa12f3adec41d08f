#include "common/status.h"

namespace sluice {

namespace {
const char* CodeName(StatusCode c) {
  switch (c) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kSyntaxError: return "Syntax error";
    case StatusCode::kInvalidArgument: return "Invalid argument";
    case StatusCode::kUnknownDatabase: return "Unknown database";
    case StatusCode::kUnknownTable: return "Unknown table";
    case StatusCode::kUnknownColumn: return "Unknown column";
    case StatusCode::kDatabaseExists: return "Database exists";
    case StatusCode::kTableExists: return "Table exists";
    case StatusCode::kNotFound: return "Not found";
    case StatusCode::kAlreadyExists: return "Already exists";
    case StatusCode::kNotSupported: return "Not supported";
    case StatusCode::kAccessDenied: return "Access denied";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kTimeout: return "Timeout";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kConflict: return "Conflict";
    case StatusCode::kOutOfRange: return "Out of range";
    case StatusCode::kInternal: return "Internal error";
    case StatusCode::kInterrupted: return "Interrupted";
    case StatusCode::kDiskFull: return "Disk full";
  }
  return "Error";
}
}  // namespace

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace sluice
