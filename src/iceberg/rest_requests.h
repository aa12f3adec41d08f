#pragma once
// The JSON bodies Sluice sends to an Iceberg REST catalog (apache/iceberg open-api/rest-catalog-open-api.yaml),
// built from the table model, and the path pieces they go to. Pure functions, no HTTP: rest_catalog.* sends them.
//
// A commit (CommitTableRequest) is derived from two versions of the table: the one the writer loaded (`base`) and
// the one it made of it (`next`, what a JDBC catalog would have written as the next metadata.json). Requirements:
// assert-table-uuid (the table was not dropped and re-created) and assert-ref-snapshot-id on main (no other writer
// committed since `base`: the REST form of the JDBC catalog's compare-and-swap). Updates: add-snapshot for each new
// snapshot (with set-snapshot-ref for every ref that moved), remove-snapshots for those `next` dropped,
// remove-snapshot-ref, set-properties and remove-properties. Sluice changes nothing else of a table (schema,
// partition spec, sort order, location): a `next` that differs there is refused, as the REST catalog could not be
// told.
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/catalog.h"
#include "iceberg/table_model.h"

namespace sluice::iceberg {

// A namespace in a URL path: levels joined by the unit separator (0x1F), percent-encoded ("a%1Fb").
std::string RestNamespacePath(const std::vector<std::string>& ns);
// One path segment or query value, percent-encoded (everything but A-Z a-z 0-9 - _ . ~).
std::string RestEscape(const std::string& text);

// CommitTableRequest for `table` from `base` to `next`.
Result<std::string> RestCommitBody(const TableIdent& table, const TableMetadata& base, const TableMetadata& next);
// CreateTableRequest for a new table made by NewTableMetadata (schema, spec, sort order, properties; the location
// only when not empty: otherwise the catalog chooses it).
std::string RestCreateTableBody(const std::string& name, const TableMetadata& metadata, const std::string& location);

}  // namespace sluice::iceberg
