#pragma once
// Catalog: where an Iceberg table's current metadata.json is recorded, and the compare-and-swap that commits a new
// one. Every catalog (JDBC over PostgreSQL, REST) offers the same calls; the commit's answer is "committed" or
// "conflict" (someone else committed first: reload and decide), errors are for the rest.
//
// Two kinds of catalog: one that only records locations (JDBC: the writer writes each metadata.json, the catalog
// swaps the location), and one that writes the metadata itself (REST: the writer sends what changed and the
// server writes the next metadata.json). Writers go through the *Version / CommitChange calls, which hand both
// the locations and the metadata, so each kind takes what it needs; their defaults fit the first kind.
#include <optional>
#include <string>
#include <vector>

#include "common/commit_guard.h"
#include "common/status.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

struct TableIdent {
  std::vector<std::string> ns;  // "db" or "a.b" -> {"a", "b"}
  std::string name;

  std::string NamespaceString() const;  // levels joined by '.', as Iceberg's JDBC catalog stores them
  std::string ToString() const;         // "db.t"
  static Result<TableIdent> Parse(const std::string& dotted);  // last part is the table
};

// kRefused: a guard of the commit (CommitGuard) returned no row, so nothing was swapped; only a commit given guards
// is refused.
enum class CommitOutcome { kCommitted, kConflict, kRefused };
const char* CommitOutcomeName(CommitOutcome o);  // "committed" / "conflict" / "refused"

// A table version as a catalog answers it: where its metadata.json is, and the metadata itself when the catalog
// hands it over (REST's answers carry it; a JDBC catalog knows only the location and the file is read).
struct TableVersion {
  std::string metadata_location;
  std::optional<TableMetadata> metadata;
};

// A commit: the version the writer started from and the one it made of it. `next_location` is the metadata.json
// the writer already wrote, empty when the catalog writes the metadata (WritesMetadata()).
struct TableChange {
  const std::string& base_location;
  const TableMetadata& base;
  const TableMetadata& next;
  std::string next_location;
  // Conditions the swap itself must meet (Catalog::RunsGuards); null or empty: none.
  const std::vector<CommitGuard>* guards = nullptr;
};

struct CommitResult {
  CommitOutcome outcome = CommitOutcome::kConflict;
  TableVersion committed;  // when committed: the new version (from a REST catalog, as the server wrote it)
  std::string refused;     // when refused: the guard's reason
};

class Catalog {
 public:
  virtual ~Catalog() = default;
  // The current metadata location; UnknownTable when the catalog has no such table.
  virtual Result<std::string> LoadTable(const TableIdent& table) = 0;
  // Records a new table whose first metadata.json is already written. TableExists when the name is taken;
  // UnknownDatabase when the namespace does not exist.
  virtual Status CreateTable(const TableIdent& table, const std::string& metadata_location) = 0;
  // Swaps the metadata location if it still is `expected_metadata_location`.
  virtual Result<CommitOutcome> CommitTable(const TableIdent& table, const std::string& expected_metadata_location,
                                            const std::string& new_metadata_location) = 0;
  virtual Status CreateNamespace(const std::vector<std::string>& ns) = 0;
  virtual Result<bool> NamespaceExists(const std::vector<std::string>& ns) = 0;
  // Every namespace (levels joined by '.'), sorted.
  virtual Result<std::vector<std::string>> ListNamespaces() = 0;
  // Forgets an empty namespace: InvalidArgument while it has tables, UnknownDatabase when it does not exist.
  virtual Status DropNamespace(const std::vector<std::string>& ns) = 0;
  virtual Result<std::vector<TableIdent>> ListTables(const std::vector<std::string>& ns) = 0;
  // Forgets the table (its files stay: purging is table care's job). UnknownTable when it is not there.
  virtual Status DropTable(const TableIdent& table) = 0;

  // Whether the catalog writes each metadata.json itself from the changes it is sent (REST). When false the
  // writer writes the file first and the catalog swaps locations.
  virtual bool WritesMetadata() const { return false; }
  // The current version, with its metadata when the catalog serves it. Default: LoadTable's location.
  virtual Result<TableVersion> LoadTableVersion(const TableIdent& table);
  // Records a new table. `metadata_location` is its first metadata.json, written already unless WritesMetadata().
  // Default: CreateTable(table, metadata_location).
  virtual Result<TableVersion> CreateTableVersion(const TableIdent& table, const TableMetadata& metadata,
                                                  const std::string& metadata_location);
  // Commits `change` if the table is still at its base. Default: CommitTableGuarded(base_location, next_location,
  // guards).
  virtual Result<CommitResult> CommitChange(const TableIdent& table, const TableChange& change);

  // Guards (common/commit_guard.h): whether this catalog runs its swaps in the database where `witness` returns a
  // row, so guards written for that database can run inside the swap. Default (REST, any catalog that is not a
  // database): false. An error only when the catalog cannot be reached.
  virtual Result<bool> RunsGuards(const CommitGuard& witness);
  // CommitTable whose swap lands only while every guard returns a row (kRefused, with the first failing guard's
  // reason, when one does not). Default: CommitTable, and an error when guards are given.
  virtual Result<CommitResult> CommitTableGuarded(const TableIdent& table, const std::string& expected_metadata_location,
                                                  const std::string& new_metadata_location,
                                                  const std::vector<CommitGuard>& guards);
};

}  // namespace sluice::iceberg
