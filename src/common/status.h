#pragma once
// Status and Result<T>: how Sluice reports errors a user can cause. The message tells the user what to do;
// the code lets the front door pick a MySQL error number and lets the scheduler decide whether to retry.
#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace sluice {

enum class StatusCode {
  kOk = 0,
  kSyntaxError,        // the statement cannot be parsed
  kInvalidArgument,    // parsed, but a value or combination is not allowed
  kUnknownDatabase,
  kUnknownTable,
  kUnknownColumn,
  kDatabaseExists,
  kTableExists,
  kNotFound,           // some other named thing does not exist
  kAlreadyExists,      // some other named thing already exists
  kNotSupported,
  kAccessDenied,
  kUnavailable,        // a service or peer cannot be reached right now (retriable)
  kTimeout,            // retriable
  kIoError,
  kConflict,           // a concurrent change won (e.g. a fenced progress update)
  kOutOfRange,         // e.g. a Kafka offset no longer (or not yet) available
  kInternal,           // a bug or an unexpected library failure
  kInterrupted,        // a running statement was stopped: KILL QUERY, query_timeout, shutdown
  kDiskFull,           // the disk holding the data directory has no room; nothing was committed
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status SyntaxError(std::string m) { return {StatusCode::kSyntaxError, std::move(m)}; }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status UnknownDatabase(std::string m) { return {StatusCode::kUnknownDatabase, std::move(m)}; }
  static Status UnknownTable(std::string m) { return {StatusCode::kUnknownTable, std::move(m)}; }
  static Status UnknownColumn(std::string m) { return {StatusCode::kUnknownColumn, std::move(m)}; }
  static Status DatabaseExists(std::string m) { return {StatusCode::kDatabaseExists, std::move(m)}; }
  static Status TableExists(std::string m) { return {StatusCode::kTableExists, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status AccessDenied(std::string m) { return {StatusCode::kAccessDenied, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status Timeout(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Conflict(std::string m) { return {StatusCode::kConflict, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Retriable errors are worth trying again later without a user's help.
  bool retriable() const { return code_ == StatusCode::kUnavailable || code_ == StatusCode::kTimeout; }
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose, like absl::StatusOr
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace sluice

#define SLUICE_CONCAT_INNER(a, b) a##b
#define SLUICE_CONCAT(a, b) SLUICE_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when `expr` failed.
#define RETURN_IF_ERROR(expr)                 \
  do {                                        \
    ::sluice::Status _st = (expr);            \
    if (!_st.ok()) return _st;                \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, MakeX());` unwraps a Result or returns its Status.
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(SLUICE_CONCAT(_res_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
