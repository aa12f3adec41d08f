#include "executor/sql_guard.h"

#include "common/ascii.h"
#include "transform/query_functions.h"
#include "sql/lexer.h"

namespace sluice {

namespace {

// Table functions that compute rows and touch nothing outside the query.
const std::set<std::string>& ComputingTableFunctions() {
  static const std::set<std::string> names = {
      "range", "generate_series", "unnest", "json_each", "json_tree", "repeat", "repeat_row",
      "pg_timezone_names", "icu_calendar_names", "test_all_types", "test_vector_types", "duckdb_keywords",
      "duckdb_types", "duckdb_functions", "histogram", "histogram_values", "summary",
  };
  return names;
}

// The relations of Sluice's catalog that the docs point users at (TrackingSQL, pipes.md): read-only, root role.
bool IsObservabilityRelation(const std::vector<std::string>& parts, size_t schema_at) {
  if (schema_at + 1 >= parts.size() || AsciiLower(parts[schema_at]) != "__sluice") return false;
  std::string rel = AsciiLower(parts[schema_at + 1]);
  return rel == "routine_load_rejected_rows" || rel == "volume_loads" || rel == "volume_rejected_rows" ||
         rel == "load_history";
}

}  // namespace

Status CatalogNotReachable(std::string_view name) {
  return Status::AccessDenied(
      "Access denied; you need (at least one of) the SYSTEM privilege(s) for this operation: '" + std::string(name) +
      "' belongs to Sluice's own catalog, which no statement can read, write, alter or shadow; SHOW ROUTINE LOAD, "
      "SHOW PIPES, DESC PIPE and load_history('table') show what it holds");
}

namespace {

Status FunctionRefused(std::string_view name) {
  bool files = name.rfind("read_", 0) == 0 || name == "glob" || name.rfind("parquet_", 0) == 0 ||
               name == "sniff_csv" || name == "parquet_scan" || name == "arrow_scan";
  if (files)
    return Status::AccessDenied("Access denied; you need (at least one of) the FILE privilege(s) for this operation: " +
                                std::string(name) +
                                "() reads the server's files, which SQL cannot reach in Sluice; load files through a "
                                "volume instead (CREATE VOLUME, COPY INTO ... FROM VOLUME, DIRECTORY(volume))");
  return Status::AccessDenied("Access denied; you need (at least one of) the SYSTEM privilege(s) for this operation: "
                              "the table function " + std::string(name) +
                              "() reaches the engine's internals, which SQL cannot reach in Sluice; SHOW statements "
                              "and information_schema describe databases and tables");
}

}  // namespace

bool IsReservedName(std::string_view name) {
  std::string lower = AsciiLower(name);
  return lower.rfind("__sluice", 0) == 0 || lower == "sluice_batch";
}

Result<NameCheck> SqlGuard::CheckNames(const sql::StatementScan& scan) const {
  NameCheck out;
  std::vector<GuardedCall>& calls = out.calls;
  for (const auto& chain : scan.names) {
    for (size_t i = 0; i < chain.parts.size(); i++) {
      if (!IsReservedName(chain.parts[i])) continue;
      if (!chain.called && i + 2 == chain.parts.size() && IsObservabilityRelation(chain.parts, i)) {
        out.reads_observability = true;
        break;
      }
      return CatalogNotReachable(chain.parts[i]);
    }
    if (!chain.called) continue;
    std::string fn = AsciiLower(chain.parts.back());
    if (fn == "sluice_directory" || fn == "load_history" || fn == "directory") {
      if (!chain.literal_argument)
        return Status::InvalidArgument(fn + "() takes one name in quotes, e.g. " + fn + "('name')");
      // DIRECTORY(vol) becomes sluice_directory('vol'); both need USAGE on the volume.
      calls.push_back({fn == "load_history" ? GuardedCall::Kind::kLoadHistory : GuardedCall::Kind::kDirectory,
                       chain.first_argument});
      continue;
    }
    if (fn == "read_kafka") continue;
    if (table_functions_.count(fn) && !ComputingTableFunctions().count(fn)) return FunctionRefused(fn);
  }
  if (!scan.dotted_json_call.empty())
    return Status::InvalidArgument(
        "call " + scan.dotted_json_call + "(...) as a plain function, not after a '.' (x." + scan.dotted_json_call +
        "() or schema." + scan.dotted_json_call + "(x)): Sluice checks the nesting of its arguments, which it can "
        "only do in the plain form");
  if (scan.reads_file_by_name)
    return Status::AccessDenied("Access denied; you need (at least one of) the FILE privilege(s) for this operation: "
                                "FROM 'path' reads a file of the server, which SQL cannot reach in Sluice; load "
                                "files through a volume (COPY INTO ... FROM VOLUME) and query the table");
  if ((scan.verb == "CREATE" || scan.verb == "DROP") && scan.object_kind == "SECRET")
    return Status::AccessDenied("Access denied; you need (at least one of) the SYSTEM privilege(s) for this operation: "
                                "DuckDB secrets are not used by Sluice; give credentials to a storage connection "
                                "(CREATE STORAGE CONNECTION ... ACCESS_KEY = '...'), where they are sealed");
  // Objects Sluice defines for every session cannot be replaced by user objects of the same name.
  if ((scan.verb == "CREATE" || scan.verb == "ALTER" || scan.verb == "DROP") && !scan.target.empty()) {
    std::string name = AsciiLower(scan.target.back());
    bool starrocks_function = false;
    for (const std::string& f : transform::QueryFunctionNames()) starrocks_function = starrocks_function || name == f;
    if (name.rfind("sluice_", 0) == 0 || name == "load_history" || name == "read_kafka" || starrocks_function)
      return Status::AccessDenied("Access denied: the name '" + scan.target.back() +
                                  "' is reserved for Sluice's own functions; choose another name");
  }
  return out;
}

Status SqlGuard::CheckKind(storage::StatementKind kind, const sql::StatementScan& scan) const {
  using K = storage::StatementKind;
  switch (kind) {
    case K::kSelect:
    case K::kInsert:
    case K::kUpdate:
    case K::kDelete:
    case K::kExplain:
    case K::kCreate:
    case K::kCreateFunction:
    case K::kAlter:
    case K::kDrop:
    case K::kTransaction:
    case K::kAnalyze:
    case K::kMerge:
      return Status::Ok();
    case K::kOther:
      if (scan.verb == "MERGE") return Status::Ok();
      break;
    case K::kCopy:
      return Status::AccessDenied(
          "Access denied; you need (at least one of) the FILE privilege(s) for this operation: COPY to or from a "
          "path reaches the server's files, which SQL cannot reach in Sluice; use COPY INTO <table> FROM VOLUME "
          "to load files, and SELECT through a MySQL client to export");
    case K::kExport:
    case K::kAttach:
    case K::kDetach:
    case K::kLoadExtension:
      return Status::AccessDenied("Access denied; you need (at least one of) the FILE privilege(s) for this "
                                  "operation: " + std::string(storage::StatementKindName(kind)) +
                                  " reaches the server's files or extensions, which SQL cannot reach in Sluice");
    case K::kPragma:
    case K::kSet:
    case K::kCall:
    case K::kVacuum:
      return Status::AccessDenied("Access denied; you need (at least one of) the SYSTEM privilege(s) for this "
                                  "operation: " + std::string(storage::StatementKindName(kind)) +
                                  " changes or runs the engine itself; Sluice's settings are SET GLOBAL ones "
                                  "(SHOW VARIABLES lists them)");
    case K::kPrepare:
    case K::kExecute:
      return Status::NotSupported("PREPARE / EXECUTE in SQL are not supported: use your driver's prepared "
                                  "statements or plain statements");
  }
  return Status::NotSupported("this statement (" + scan.verb + ") is not supported by Sluice");
}

bool SqlGuard::IsEngineSetting(std::string_view name) const { return engine_settings_.count(AsciiLower(name)) > 0; }

}  // namespace sluice
