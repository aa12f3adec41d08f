#include "lakehouse/lake_read.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include <set>

#include "common/ascii.h"
#include "iceberg/scan_filter.h"
#include "iceberg/time_travel.h"
#include "lakehouse/lake_cache.h"
#include "lakehouse/lake_predicates.h"
#include "iceberg/ids.h"
#include "iceberg/snapshot_files.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::lakehouse {

namespace fs = std::filesystem;

namespace {

// Words after a table reference that begin the next clause rather than name an alias.
bool EndsReference(const sql::Token& t) {
  if (t.kind != sql::TokenKind::kWord) return !t.IsIdentifier();
  for (std::string_view k : {"WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "POSITIONAL",
                             "ASOF", "ANTI", "SEMI", "ON", "USING", "GROUP", "ORDER", "LIMIT", "OFFSET", "HAVING",
                             "UNION", "EXCEPT", "INTERSECT", "WINDOW", "QUALIFY", "SAMPLE", "TABLESAMPLE", "USING",
                             "LATERAL", "PIVOT", "UNPIVOT", "RETURNING", "FOR", "SELECT", "VALUES", "SET"}) {
    if (t.IsWord(k)) return true;
  }
  return false;
}

// A relation of literal rows: (SELECT CAST(c0 AS T0) AS name0, ... FROM (VALUES (...), ...) AS v(c0, ...)).
std::string LiteralRelation(const std::vector<std::pair<std::string, std::string>>& columns,
                            const std::vector<std::vector<std::string>>& rows) {
  std::string select, names;
  for (size_t i = 0; i < columns.size(); i++) {
    const std::string c = "c" + std::to_string(i);
    select += (i ? ", " : "") + std::string("CAST(") + (rows.empty() ? "NULL" : c) + " AS " + columns[i].second +
              ") AS " + sql::QuoteIdentifier(columns[i].first);
    names += (i ? ", " : "") + c;
  }
  if (rows.empty()) return "(SELECT " + select + " LIMIT 0)";
  std::string values;
  for (const auto& row : rows) {
    std::string r;
    for (const auto& v : row) r += (r.empty() ? "" : ", ") + v;
    values += (values.empty() ? "(" : ", (") + r + ")";
  }
  return "(SELECT " + select + " FROM (VALUES " + values + ") AS v(" + names + "))";
}

std::string Literal(const std::string& s) { return sql::QuoteLiteral(s); }
std::string OptionalId(const std::optional<int64_t>& id) { return id ? std::to_string(*id) : "NULL"; }

std::string SummaryMap(const iceberg::Summary& summary) {
  std::string out;
  for (const auto& [k, v] : summary) out += (out.empty() ? "" : ", ") + Literal(k) + ": " + Literal(v);
  return "MAP {" + out + "}";
}

// The snapshot a reference reads: FOR VERSION / TIMESTAMP AS OF, or the current one (nullptr: no snapshot yet).
Result<const iceberg::Snapshot*> ChosenSnapshot(const iceberg::TableMetadata& m, const LakeReference& r) {
  if (r.version) return iceberg::SnapshotById(m, *r.version);
  if (r.as_of_time) {
    auto at = iceberg::ParseValueText(iceberg::MakeType(iceberg::TypeId::kTimestampTz), *r.as_of_time);
    if (!at.ok())
      return Status::InvalidArgument("FOR TIMESTAMP AS OF '" + *r.as_of_time +
                                     "': write the time as 'YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM]' (UTC without an "
                                     "offset)");
    const int64_t micros = std::get<int64_t>(at->v);
    return iceberg::SnapshotAsOfTime(m, micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000));
  }
  return m.CurrentSnapshot();
}

// catalog.db.t$snapshots / $history / $files: StarRocks' (and Iceberg's) metadata tables, a subset of columns.
Result<std::string> MetadataRelation(LakeCatalogs& lakes, LakeConnection& conn, const iceberg::LoadedTable& table,
                                     const std::string& kind, const LakeReference& r, const LakeTableRef& base) {
  const iceberg::TableMetadata& m = table.metadata;
  std::vector<std::vector<std::string>> rows;
  if (kind == "snapshots") {
    for (const auto& s : m.snapshots) {
      auto op = s.summary.find("operation");
      rows.push_back({Literal(iceberg::MillisToText(s.timestamp_ms)), std::to_string(s.snapshot_id),
                      OptionalId(s.parent_snapshot_id), op == s.summary.end() ? "NULL" : Literal(op->second),
                      Literal(s.manifest_list), SummaryMap(s.summary)});
    }
    return LiteralRelation({{"committed_at", "TIMESTAMP"}, {"snapshot_id", "BIGINT"}, {"parent_id", "BIGINT"},
                            {"operation", "VARCHAR"}, {"manifest_list", "VARCHAR"},
                            {"summary", "MAP(VARCHAR, VARCHAR)"}},
                           rows);
  }
  if (kind == "care") {
    // Table care since the server started, manual and by the table's policy (lake_care_log.h).
    for (const auto& run : lakes.care_log().RunsOf(base.ToString()))
      rows.push_back({Literal(iceberg::MillisToText(run.ran_at_ms)), Literal(run.procedure), Literal(run.trigger),
                      Literal(run.ok ? "ok" : "error"), Literal(run.detail)});
    return LiteralRelation({{"ran_at", "TIMESTAMP"}, {"procedure", "VARCHAR"}, {"trigger", "VARCHAR"},
                            {"outcome", "VARCHAR"}, {"detail", "VARCHAR"}},
                           rows);
  }
  if (kind == "history") {
    std::set<int64_t> ancestors;
    for (const iceberg::Snapshot* s = m.CurrentSnapshot(); s && !ancestors.count(s->snapshot_id);
         s = s->parent_snapshot_id ? m.FindSnapshot(*s->parent_snapshot_id) : nullptr)
      ancestors.insert(s->snapshot_id);
    for (const auto& e : m.snapshot_log) {
      const iceberg::Snapshot* s = m.FindSnapshot(e.snapshot_id);
      rows.push_back({Literal(iceberg::MillisToText(e.timestamp_ms)), std::to_string(e.snapshot_id),
                      s ? OptionalId(s->parent_snapshot_id) : "NULL",
                      ancestors.count(e.snapshot_id) ? "true" : "false"});
    }
    return LiteralRelation({{"made_current_at", "TIMESTAMP"}, {"snapshot_id", "BIGINT"}, {"parent_id", "BIGINT"},
                            {"is_current_ancestor", "BOOLEAN"}},
                           rows);
  }
  if (kind == "files") {
    ASSIGN_OR_RETURN(const iceberg::Snapshot* chosen, ChosenSnapshot(m, r));
    std::vector<iceberg::LiveDataFile> files;
    if (chosen) {
      ASSIGN_OR_RETURN(files, iceberg::ListLiveDataFiles(conn.store.get(), m, chosen->snapshot_id));
    }
    for (const auto& f : files) {
      std::string partition;
      for (const auto& v : f.file.partition)
        partition += (partition.empty() ? "" : ", ") + (v.is_null() ? std::string("null") : iceberg::ValueToText(v));
      rows.push_back({std::to_string(f.file.content), Literal(f.file.file_path), Literal(f.file.file_format),
                      std::to_string(f.spec_id), Literal("{" + partition + "}"), std::to_string(f.file.record_count),
                      std::to_string(f.file.file_size_in_bytes), std::to_string(f.snapshot_id)});
    }
    return LiteralRelation({{"content", "INTEGER"}, {"file_path", "VARCHAR"}, {"file_format", "VARCHAR"},
                            {"spec_id", "INTEGER"}, {"partition", "VARCHAR"}, {"record_count", "BIGINT"},
                            {"file_size_in_bytes", "BIGINT"}, {"snapshot_id", "BIGINT"}},
                           rows);
  }
  return Status::UnknownTable("Unknown table '" + r.ref.ToString() + "': an Iceberg table's metadata tables are " +
                              "$snapshots, $history, $files and $care");
}

Result<std::string> Relation(LakeCatalogs& lakes, const LakeReference& r, const std::string& tree_json,
                             const std::string& placeholder, std::vector<std::string>* needed, LakeReadNotes* notes) {
  if (!r.bad_period.empty()) return Status::InvalidArgument(r.bad_period);
  std::string base;
  const std::string kind = MetadataTableOf(r.ref.table, &base);
  LakeTableRef table_ref = r.ref;
  table_ref.table = base;
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(r.ref.catalog));
  auto table = conn->ops->Load(table_ref.Ident());
  if (!table.ok()) {
    if (table.status().code() == StatusCode::kUnknownTable)
      return Status::UnknownTable("Unknown table '" + table_ref.ToString() + "'");
    return table.status();
  }
  auto alias = [&](std::string out) {
    if (!r.has_alias) out += " AS " + sql::QuoteIdentifier(r.ref.table);
    return out;
  };
  if (!kind.empty()) {
    if ((r.as_of_time || r.version) && kind != "files")
      return Status::InvalidArgument("time travel applies to the table and to $files, not to " + r.ref.ToString());
    ASSIGN_OR_RETURN(std::string rel, MetadataRelation(lakes, *conn, *table, kind, r, table_ref));
    return alias(rel);
  }
  const iceberg::TableMetadata& m = table->metadata;
  auto chosen = ChosenSnapshot(m, r);
  if (!chosen.ok()) return Status(chosen.status().code(), table_ref.ToString() + ": " + chosen.status().message());
  const iceberg::Snapshot* snapshot = *chosen;
  const iceberg::Schema* schema = nullptr;
  if (snapshot && snapshot->schema_id) {
    for (const auto& s : m.schemas)
      if (s.schema_id == *snapshot->schema_id) schema = &s;
  }
  if (!schema) schema = m.CurrentSchema();
  if (!schema) return Status::Internal("Iceberg table " + table_ref.ToString() + " has no current schema");
  std::vector<iceberg::LiveDataFile> files;
  if (snapshot) {
    ASSIGN_OR_RETURN(files, iceberg::ListLiveDataFiles(conn->store.get(), m, snapshot->snapshot_id));
  }
  // Pruning: what the WHERE clause rules out is not fetched.
  const auto predicates = PredicatesFor(tree_json, placeholder, *schema);
  const size_t planned = files.size();
  if (!predicates.empty()) {
    std::vector<iceberg::LiveDataFile> kept;
    for (auto& f : files) {
      const iceberg::PartitionSpec* spec = nullptr;
      for (const auto& s : m.partition_specs)
        if (s.spec_id == f.spec_id) spec = &s;
      if (!spec || iceberg::FileMayMatch(*schema, *spec, f.file, predicates)) kept.push_back(std::move(f));
    }
    files = std::move(kept);
  }
  if (notes) {
    notes->lines.push_back(fmt::format("{}: read {} of {} data file(s) of snapshot {}, {} pruned by the WHERE clause",
                                       table_ref.ToString(), files.size(), planned,
                                       snapshot ? std::to_string(snapshot->snapshot_id) : std::string("(none)"),
                                       planned - files.size()));
  }
  std::string list;
  {
    std::lock_guard<std::mutex> lock(lakes.cache_mutex());
    for (const auto& f : files) {
      if (AsciiLower(f.file.file_format) != "parquet")
        return Status::NotSupported("Iceberg table " + table_ref.ToString() + " has a " + f.file.file_format +
                                    " data file; Sluice reads Parquet data files only");
      ASSIGN_OR_RETURN(std::string local, FetchToCache(lakes, conn->store.get(), f.file.file_path));
      needed->push_back(local);
      list += (list.empty() ? "" : ", ") + sql::QuoteLiteral(local);
    }
    EvictCache(lakes.cache_dir(), lakes.cache_bytes(), *needed);
  }
  std::string columns;
  for (const auto& f : schema->fields) {
    const std::string name = sql::QuoteIdentifier(f.name);
    const std::string type = iceberg::DuckDbTypeName(f.type);
    columns += (columns.empty() ? "" : ", ") +
               (files.empty() ? "CAST(NULL AS " + type + ")" : "CAST(" + name + " AS " + type + ")") + " AS " + name;
  }
  return alias(files.empty() ? "(SELECT " + columns + " LIMIT 0)"
                             : "(SELECT " + columns + " FROM read_parquet([" + list + "]))");
}

// The placeholder table a reference becomes in the text DuckDB parses for pruning: a name no user table has (a
// random part per statement).
std::string Placeholder(const std::string& nonce, size_t i) {
  return "sluice_lake_scan_" + nonce + "_" + std::to_string(i);
}

std::string Nonce() {
  std::string out;
  for (char c : iceberg::NewUuid())
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
  return out.substr(0, 12);
}

}  // namespace

std::vector<LakeReference> FindLakeReferences(std::string_view sql,
                                              const std::function<bool(const std::string&)>& is_external) {
  std::vector<sql::Token> tokens;
  sql::TokenReader reader(sql);
  for (sql::Token t = reader.Next(); t.kind != sql::TokenKind::kEnd; t = reader.Next()) tokens.push_back(t);
  std::vector<LakeReference> out;
  auto at = [&](size_t i) -> const sql::Token* { return i < tokens.size() ? &tokens[i] : nullptr; };
  for (size_t i = 0; i + 4 < tokens.size(); i++) {
    const sql::Token* a = at(i);
    const sql::Token* d1 = at(i + 1);
    const sql::Token* b = at(i + 2);
    const sql::Token* d2 = at(i + 3);
    const sql::Token* c = at(i + 4);
    if (!a || !d1 || !b || !d2 || !c) break;
    if (!a->IsIdentifier() || !d1->IsSymbol(".") || !b->IsIdentifier() || !d2->IsSymbol(".") || !c->IsIdentifier())
      continue;
    if (i > 0 && tokens[i - 1].IsSymbol(".")) continue;
    const sql::Token* next = at(i + 5);
    if (next && (next->IsSymbol(".") || next->IsSymbol("("))) continue;
    if (!is_external(a->text)) continue;
    LakeReference r;
    r.begin = a->offset;
    r.end = c->end();
    r.ref = LakeTableRef{a->text, b->text, c->text};
    size_t after = i + 5;
    // FOR VERSION AS OF <snapshot id> | FOR TIMESTAMP AS OF '<time>' (Trino, StarRocks), before any alias.
    if (next && next->IsWord("FOR") && at(after + 1) && (at(after + 1)->IsWord("VERSION") ||
                                                        at(after + 1)->IsWord("TIMESTAMP"))) {
      const sql::Token* what = at(after + 1);
      const sql::Token* as = at(after + 2);
      const sql::Token* of = at(after + 3);
      const sql::Token* value = at(after + 4);
      const bool version = what->IsWord("VERSION");
      if (!as || !as->IsWord("AS") || !of || !of->IsWord("OF") || !value) {
        r.bad_period = "write time travel as FOR VERSION AS OF <snapshot id> or FOR TIMESTAMP AS OF '<time>'";
      } else if (version) {
        int64_t id = 0;
        const std::string& v = value->text;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), id);
        if (value->kind != sql::TokenKind::kNumber || ec != std::errc() || p != v.data() + v.size())
          r.bad_period = "FOR VERSION AS OF takes a snapshot id (a number; SELECT snapshot_id FROM " +
                         r.ref.ToString() + "$snapshots lists them), not " + std::string(value->raw);
        else
          r.version = id;
      } else if (!value->IsString()) {
        r.bad_period = "FOR TIMESTAMP AS OF takes a time in quotes: '2024-05-01 10:00:00'";
      } else {
        r.as_of_time = value->text;
      }
      if (value) r.end = value->end();
      after += 5;
      next = at(after);
    }
    r.has_alias = next && (next->IsWord("AS") || !EndsReference(*next));
    out.push_back(std::move(r));
    i = after - 1;
  }
  return out;
}

Result<std::string> RewriteLakeReads(LakeCatalogs& lakes, storage::Connection& con, std::string_view sql,
                                     const std::vector<LakeReference>& refs, LakeReadNotes* notes) {
  // DuckDB's parse of the statement with a placeholder table for each reference, for pruning. A statement DuckDB
  // cannot parse this way is not pruned (it fails later with DuckDB's own message, or runs unpruned).
  std::string tree_json;
  const std::string nonce = Nonce();
  if (!refs.empty()) {
    std::string text;
    size_t pos = 0;
    for (size_t i = 0; i < refs.size(); i++) {
      text += std::string(sql.substr(pos, refs[i].begin - pos)) + Placeholder(nonce, i);
      if (!refs[i].has_alias) text += " AS " + sql::QuoteIdentifier(refs[i].ref.table);
      pos = refs[i].end;
    }
    text += std::string(sql.substr(pos));
    auto tree = SerializeSql(con, text);
    if (tree.ok()) tree_json = std::move(*tree);
  }
  std::string out;
  size_t pos = 0;
  std::vector<std::string> needed;
  for (size_t i = 0; i < refs.size(); i++) {
    const auto& r = refs[i];
    ASSIGN_OR_RETURN(std::string relation, Relation(lakes, r, tree_json, Placeholder(nonce, i), &needed, notes));
    out += std::string(sql.substr(pos, r.begin - pos)) + relation;
    pos = r.end;
  }
  out += std::string(sql.substr(pos));
  return out;
}

std::string MetadataTableOf(const std::string& table, std::string* base_table) {
  const size_t dollar = table.rfind('$');
  if (dollar == std::string::npos || dollar == 0) {
    *base_table = table;
    return "";
  }
  *base_table = table.substr(0, dollar);
  return AsciiLower(table.substr(dollar + 1));
}

}  // namespace sluice::lakehouse
