#include "catalog/table_alter.h"

#include <algorithm>

#include "catalog/type_mapping.h"
#include "common/ascii.h"

namespace sluice::catalog {

namespace {

using Kind = sql::AlterTableClause::Kind;

bool SameName(const std::string& a, const std::string& b) { return AsciiLower(a) == AsciiLower(b); }

bool Contains(const std::vector<std::string>& names, const std::string& n) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& x) { return SameName(x, n); });
}

void RenameIn(std::vector<std::string>& names, const std::string& from, const std::string& to) {
  for (auto& n : names)
    if (SameName(n, from)) n = to;
}

class Alteration {
 public:
  explicit Alteration(const TableMeta& current) : current_(current) {
    out_.meta = current;
    for (const auto& c : current.columns) out_.sources.emplace_back(c.name);
  }

  Status Apply(const sql::AlterTableClause& c) {
    switch (c.kind) {
      case Kind::kAddColumns: return Add(c);
      case Kind::kDropColumn: return Drop(c);
      case Kind::kModifyColumn: return Modify(c);
      case Kind::kAlterType: return AlterType(c);
      case Kind::kColumnComment: {
        ASSIGN_OR_RETURN(size_t i, Find(c.column));
        out_.meta.columns[i].comment = c.comment;
        return Status::Ok();
      }
      case Kind::kSetDefault: {
        ASSIGN_OR_RETURN(size_t i, Find(c.column));
        out_.meta.columns[i].default_sql = c.default_sql;
        out_.rebuild = true;
        return Status::Ok();
      }
      case Kind::kSetNullable: {
        ASSIGN_OR_RETURN(size_t i, Find(c.column));
        if (c.nullable) RETURN_IF_ERROR(KeyMayBeNull(out_.meta.columns[i]));
        out_.meta.columns[i].nullable = c.nullable;
        out_.rebuild = true;
        return Status::Ok();
      }
      case Kind::kRenameColumn: {
        ASSIGN_OR_RETURN(size_t i, Find(c.column));
        return Rename(i, c.new_name);
      }
      case Kind::kTableComment:
        out_.meta.comment = c.comment;
        return Status::Ok();
      case Kind::kRenameTable:
        out_.renamed_to = c.new_name;
        return Status::Ok();
    }
    return Status::Ok();
  }

  Result<AlteredTable> Finish() {
    auto& m = out_.meta;
    if (m.columns.empty())
      return Status::InvalidArgument("You can't delete all columns with ALTER TABLE; use DROP TABLE instead");
    // StarRocks sorts by the key columns, so they stay the leading columns, in order.
    if (keys_lead_) {
      for (size_t i = 0; i < m.key_columns.size(); i++) {
        if (i >= m.columns.size() || !SameName(m.columns[i].name, m.key_columns[i]))
          return Status::InvalidArgument("Invalid column order: value columns must come after the key columns (" +
                                         Join(m.key_columns) + "), which stay the first columns of table '" + m.name +
                                         "'; place '" + (i < m.columns.size() ? m.columns[i].name : "") +
                                         "' AFTER " + m.key_columns.back());
      }
    }
    return std::move(out_);
  }

 private:
  static std::string Join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  Result<size_t> Find(const std::string& name) const {
    for (size_t i = 0; i < out_.meta.columns.size(); i++)
      if (SameName(out_.meta.columns[i].name, name)) return i;
    return Status::UnknownColumn("Unknown column '" + name + "' in '" + out_.meta.name + "'");
  }
  bool Has(const std::string& name) const { return Find(name).ok(); }

  bool KeyNotNull() const { return out_.meta.key_model == "PRIMARY" || out_.meta.key_model == "UNIQUE"; }

  Status KeyMayBeNull(const ColumnMeta& c) const {
    if (c.is_key && KeyNotNull())
      return Status::InvalidArgument("key column '" + c.name + "' of a " + out_.meta.key_model +
                                     " KEY table cannot be NULL");
    return Status::Ok();
  }

  // Where a column goes: FIRST, AFTER x, or `otherwise` (its current place, or the end).
  Result<size_t> Position(const sql::AlterTableClause& c, size_t otherwise) const {
    if (c.first) return size_t{0};
    if (c.after.empty()) return otherwise;
    ASSIGN_OR_RETURN(size_t i, Find(c.after));
    return i + 1;
  }

  Result<ColumnMeta> FromDefinition(const sql::ColumnDef& d, const ColumnMeta* old) const {
    if (d.auto_increment)
      return Status::NotSupported("AUTO_INCREMENT (column '" + d.name + "') is not supported yet; load the ids from the source");
    if (d.primary_key_inline)
      return Status::NotSupported("PRIMARY KEY on column '" + d.name + "': a table's key columns are the ones CREATE "
                                  "TABLE gave it");
    ColumnMeta col;
    col.name = d.name;
    ASSIGN_OR_RETURN(col.duckdb_type, ToDuckDBType(d.type));
    col.type_text = DisplayType(d.type);
    col.is_key = old && old->is_key;
    col.default_sql = d.default_sql;
    col.comment = d.comment;
    col.aggregate = sql::AggregateFunctionName(d.aggregate);
    const bool aggregate_table = out_.meta.key_model == "AGGREGATE";
    if (old && !col.aggregate.empty() && col.aggregate != old->aggregate)
      return Status::InvalidArgument("Can not change aggregation type of column '" + old->name + "' (" +
                                     (old->aggregate.empty() ? std::string("none") : old->aggregate) + ")");
    if (old && col.aggregate.empty()) col.aggregate = old->aggregate;
    if (aggregate_table && !col.is_key && col.aggregate.empty())
      return Status::InvalidArgument("value column '" + d.name + "' of an AGGREGATE KEY table needs an aggregate "
                                     "function: SUM, MAX, MIN, REPLACE or REPLACE_IF_NOT_NULL");
    if (!aggregate_table && !col.aggregate.empty())
      return Status::InvalidArgument("column '" + d.name + "' has aggregate function " + col.aggregate +
                                     ", which only AGGREGATE KEY tables allow");
    if (col.is_key && KeyNotNull()) {
      if (d.nullable == std::optional<bool>(true)) RETURN_IF_ERROR(KeyMayBeNull(col));
      col.nullable = false;
    } else {
      col.nullable = d.nullable.value_or(true);
    }
    return col;
  }

  Status Add(const sql::AlterTableClause& c) {
    for (const auto& d : c.columns) {
      if (Has(d.name)) {
        if (c.if_exists) continue;  // ADD COLUMN IF NOT EXISTS
        return Status::AlreadyExists("Duplicate column name '" + d.name + "'");
      }
      ASSIGN_OR_RETURN(ColumnMeta col, FromDefinition(d, nullptr));
      ASSIGN_OR_RETURN(size_t at, Position(c, out_.meta.columns.size()));
      out_.meta.columns.insert(out_.meta.columns.begin() + at, std::move(col));
      out_.sources.insert(out_.sources.begin() + at, std::nullopt);
    }
    out_.rebuild = true;
    return Status::Ok();
  }

  Status Drop(const sql::AlterTableClause& c) {
    auto found = Find(c.column);
    if (!found.ok()) {
      if (c.if_exists) return Status::Ok();
      return Status::UnknownColumn("Can't DROP '" + c.column + "'; check that column/key exists in '" +
                                   out_.meta.name + "'");
    }
    const ColumnMeta& col = out_.meta.columns[*found];
    const auto& m = out_.meta;
    if (col.is_key) {
      if (m.key_model == "PRIMARY" || m.key_model == "UNIQUE")
        return Status::InvalidArgument("Can not drop key column '" + col.name + "' in " +
                                       (m.key_model == "PRIMARY" ? "primary" : "unique") +
                                       " data model table: the key identifies the rows");
      if (m.key_model == "AGGREGATE" &&
          std::any_of(m.columns.begin(), m.columns.end(), [](const ColumnMeta& x) {
            return x.aggregate == "REPLACE" || x.aggregate == "REPLACE_IF_NOT_NULL";
          }))
        return Status::InvalidArgument("Can not drop key column '" + col.name + "' when table has value column "
                                       "with REPLACE aggregation method: which row's value to keep is not defined");
      if (m.key_columns.size() == 1)
        return Status::InvalidArgument("Can not drop key column '" + col.name + "': it is the table's only key column");
    }
    if (Contains(m.partitioning.columns, col.name))
      return Status::InvalidArgument("Partition column[" + col.name + "] cannot be dropped: the table's partitions "
                                     "are defined on it");
    if (Contains(m.distribution_columns, col.name))
      return Status::InvalidArgument("Distribution column[" + col.name + "] cannot be dropped: DISTRIBUTED BY "
                                     "HASH names it");
    if (auto& src = out_.sources[*found]) out_.dropped_columns.push_back(*src);
    std::erase_if(out_.meta.key_columns, [&](const std::string& k) { return SameName(k, col.name); });
    out_.meta.columns.erase(out_.meta.columns.begin() + *found);
    out_.sources.erase(out_.sources.begin() + *found);
    out_.rebuild = true;
    return Status::Ok();
  }

  // A column's type changes: StarRocks refuses it for partition, distribution and primary-key columns.
  Status TypeMayChange(const ColumnMeta& old, const ColumnMeta& now) const {
    if (old.duckdb_type == now.duckdb_type && old.type_text == now.type_text) return Status::Ok();
    const auto& m = out_.meta;
    if (old.is_key && m.key_model == "PRIMARY")
      return Status::InvalidArgument("Can not modify key column: " + old.name + " for primary key table");
    if (Contains(m.partitioning.columns, old.name))
      return Status::InvalidArgument("Can not modify partition column[" + old.name + "]: the table's partitions are "
                                     "defined on its type");
    if (Contains(m.distribution_columns, old.name))
      return Status::InvalidArgument("Can not modify distribution column[" + old.name + "]");
    return Status::Ok();
  }

  Status Rename(size_t i, const std::string& to) {
    ColumnMeta& col = out_.meta.columns[i];
    if (!SameName(col.name, to) && Has(to)) return Status::AlreadyExists("Duplicate column name '" + to + "'");
    if (col.name == to) return Status::Ok();
    auto& m = out_.meta;
    RenameIn(m.key_columns, col.name, to);
    RenameIn(m.distribution_columns, col.name, to);
    RenameIn(m.partitioning.columns, col.name, to);
    if (out_.sources[i]) out_.renamed_columns.emplace_back(*out_.sources[i], to);
    col.name = to;
    out_.rebuild = true;
    return Status::Ok();
  }

  Status Modify(const sql::AlterTableClause& c) {
    ASSIGN_OR_RETURN(size_t i, Find(c.column));
    const ColumnMeta old = out_.meta.columns[i];
    sql::ColumnDef def = c.columns.at(0);
    def.name = old.name;  // CHANGE's new name is applied below, after the checks that name the old column
    ASSIGN_OR_RETURN(ColumnMeta now, FromDefinition(def, &old));
    RETURN_IF_ERROR(TypeMayChange(old, now));
    out_.meta.columns[i] = now;
    out_.rebuild = true;
    if (!c.new_name.empty()) RETURN_IF_ERROR(Rename(i, c.new_name));
    if (c.first || !c.after.empty()) {
      if (!c.after.empty() && SameName(c.after, out_.meta.columns[i].name))
        return Status::InvalidArgument("column '" + c.after + "' cannot be placed AFTER itself");
      ColumnMeta moved = std::move(out_.meta.columns[i]);
      auto source = out_.sources[i];
      out_.meta.columns.erase(out_.meta.columns.begin() + i);
      out_.sources.erase(out_.sources.begin() + i);
      ASSIGN_OR_RETURN(size_t at, Position(c, i));
      out_.meta.columns.insert(out_.meta.columns.begin() + at, std::move(moved));
      out_.sources.insert(out_.sources.begin() + at, source);
    }
    return Status::Ok();
  }

  Status AlterType(const sql::AlterTableClause& c) {
    ASSIGN_OR_RETURN(size_t i, Find(c.column));
    ColumnMeta now = out_.meta.columns[i];
    ASSIGN_OR_RETURN(now.duckdb_type, ToDuckDBType(c.type));
    now.type_text = DisplayType(c.type);
    RETURN_IF_ERROR(TypeMayChange(out_.meta.columns[i], now));
    out_.meta.columns[i] = std::move(now);
    out_.rebuild = true;
    return Status::Ok();
  }

  // StarRocks-form tables keep their key columns first (CREATE TABLE checks it); ALTER keeps it so.
  static bool KeysLead(const TableMeta& m) {
    if (m.key_columns.empty() || m.key_columns.size() > m.columns.size()) return false;
    for (size_t i = 0; i < m.key_columns.size(); i++)
      if (!SameName(m.columns[i].name, m.key_columns[i])) return false;
    return true;
  }

  const TableMeta& current_;
  AlteredTable out_;
  bool keys_lead_ = KeysLead(current_);
};

}  // namespace

Result<AlteredTable> ApplyAlterClauses(const TableMeta& current, const std::vector<sql::AlterTableClause>& clauses) {
  if (current.is_view)
    return Status::InvalidArgument("'" + current.name + "' is a view; ALTER TABLE changes tables (CREATE OR REPLACE "
                                   "VIEW changes a view)");
  Alteration a(current);
  for (const auto& c : clauses) RETURN_IF_ERROR(a.Apply(c));
  return a.Finish();
}

}  // namespace sluice::catalog
