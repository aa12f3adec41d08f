#pragma once
// Catalog: where an Iceberg table's current metadata.json is recorded, and the compare-and-swap that commits a new
// one. Every catalog (JDBC over PostgreSQL now; REST later) offers the same calls; the commit's answer is
// "committed" or "conflict" (someone else committed first: reload and decide), errors are for the rest.
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::iceberg {

struct TableIdent {
  std::vector<std::string> ns;  // "db" or "a.b" -> {"a", "b"}
  std::string name;

  std::string NamespaceString() const;  // levels joined by '.', as Iceberg's JDBC catalog stores them
  std::string ToString() const;         // "db.t"
  static Result<TableIdent> Parse(const std::string& dotted);  // last part is the table
};

enum class CommitOutcome { kCommitted, kConflict };
const char* CommitOutcomeName(CommitOutcome o);  // "committed" / "conflict"

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
};

}  // namespace sluice::iceberg
