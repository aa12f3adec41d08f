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
  ASSIGN_OR_RETURN(CommitOutcome outcome, CommitTable(table, change.base_location, change.next_location));
  CommitResult result;
  result.outcome = outcome;
  if (outcome == CommitOutcome::kCommitted) result.committed = TableVersion{change.next_location, change.next};
  return result;
}

const char* CommitOutcomeName(CommitOutcome o) { return o == CommitOutcome::kCommitted ? "committed" : "conflict"; }

}  // namespace sluice::iceberg
