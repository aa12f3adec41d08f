#include "iceberg/catalog.h"

#include <fmt/format.h>

namespace sluice::iceberg {

std::string TableIdent::NamespaceString() const {
  std::string out;
  for (size_t i = 0; i < ns.size(); i++) out += (i ? "." : "") + ns[i];
  return out;
}

std::string TableIdent::ToString() const { return ns.empty() ? name : NamespaceString() + "." + name; }

Result<TableIdent> TableIdent::Parse(const std::string& dotted) {
  TableIdent t;
  size_t start = 0;
  std::vector<std::string> parts;
  while (true) {
    size_t dot = dotted.find('.', start);
    parts.push_back(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& p : parts) {
    if (p.empty()) return Status::InvalidArgument(fmt::format("'{}' is not a table name like db.table", dotted));
  }
  if (parts.size() < 2) {
    return Status::InvalidArgument(fmt::format("'{}' has no namespace: name Iceberg tables as db.table", dotted));
  }
  t.name = parts.back();
  parts.pop_back();
  t.ns = std::move(parts);
  return t;
}

Result<TableVersion> Catalog::LoadTableVersion(const TableIdent& table) {
  ASSIGN_OR_RETURN(std::string location, LoadTable(table));
  return TableVersion{std::move(location), std::nullopt};
}

Result<TableVersion> Catalog::CreateTableVersion(const TableIdent& table, const TableMetadata& metadata,
                                                 const std::string& metadata_location) {
  RETURN_IF_ERROR(CreateTable(table, metadata_location));
  return TableVersion{metadata_location, metadata};
}

Result<CommitResult> Catalog::CommitChange(const TableIdent& table, const TableChange& change) {
  static const std::vector<CommitGuard> kNone;
  ASSIGN_OR_RETURN(CommitResult result, CommitTableGuarded(table, change.base_location, change.next_location,
                                                           change.guards ? *change.guards : kNone));
  if (result.outcome == CommitOutcome::kCommitted) result.committed = TableVersion{change.next_location, change.next};
  return result;
}

Result<bool> Catalog::RunsGuards(const CommitGuard&) { return false; }

Result<CommitResult> Catalog::CommitTableGuarded(const TableIdent& table, const std::string& expected_metadata_location,
                                                 const std::string& new_metadata_location,
                                                 const std::vector<CommitGuard>& guards) {
  if (!guards.empty())
    return Status::Internal("Iceberg table " + table.ToString() + ": this catalog cannot check a commit's guards "
                            "inside its swap");
  ASSIGN_OR_RETURN(CommitOutcome outcome, CommitTable(table, expected_metadata_location, new_metadata_location));
  CommitResult result;
  result.outcome = outcome;
  return result;
}

const char* CommitOutcomeName(CommitOutcome o) {
  switch (o) {
    case CommitOutcome::kCommitted: return "committed";
    case CommitOutcome::kConflict: return "conflict";
    case CommitOutcome::kRefused: return "refused";
  }
  return "conflict";
}

}  // namespace sluice::iceberg
