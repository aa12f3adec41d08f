#include "lakehouse/lake_read.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/ascii.h"
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

// A cache file name for a data file's location: readable tail plus a hash, so two locations never share one.
std::string CacheName(const std::string& location) {
  std::string tail;
  for (char c : location.substr(location.size() > 60 ? location.size() - 60 : 0))
    tail += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return std::to_string(std::hash<std::string>{}(location)) + "-" + tail;
}

// Keeps the cache under its bound: the least recently used files that this statement does not need go first.
void EvictCache(const std::string& dir, uint64_t max_bytes, const std::vector<std::string>& needed) {
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    total += e.file_size(ec);
    files.emplace_back(e.last_write_time(ec), e.path());
  }
  if (total <= max_bytes) return;
  std::sort(files.begin(), files.end());
  for (const auto& [time, path] : files) {
    if (total <= max_bytes) break;
    if (std::find(needed.begin(), needed.end(), path.string()) != needed.end()) continue;
    uint64_t size = fs::file_size(path, ec);
    if (fs::remove(path, ec)) total -= size;
  }
}

Result<std::string> FetchToCache(LakeCatalogs& lakes, iceberg::ObjectStore* store, const std::string& location) {
  const std::string local = (fs::path(lakes.cache_dir()) / CacheName(location)).string();
  std::error_code ec;
  if (fs::exists(local, ec)) {
    fs::last_write_time(local, fs::file_time_type::clock::now(), ec);  // recently used
    return local;
  }
  ASSIGN_OR_RETURN(std::string bytes, store->Get(location));
  const std::string tmp = local + ".part-" + iceberg::NewUuid();
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return Status::IoError("cannot write the cached copy of " + location + " under " + lakes.cache_dir());
  }
  fs::rename(tmp, local, ec);
  if (ec) return Status::IoError("cannot keep the cached copy of " + location + ": " + ec.message());
  return local;
}

Result<std::string> Relation(LakeCatalogs& lakes, const LakeReference& r, std::vector<std::string>* needed) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(r.ref.catalog));
  auto table = conn->ops->Load(r.ref.Ident());
  if (!table.ok()) {
    if (table.status().code() == StatusCode::kUnknownTable)
      return Status::UnknownTable("Unknown table '" + r.ref.ToString() + "'");
    return table.status();
  }
  const iceberg::Schema* schema = table->metadata.CurrentSchema();
  if (!schema) return Status::Internal("Iceberg table " + r.ref.ToString() + " has no current schema");
  ASSIGN_OR_RETURN(auto files, iceberg::ListLiveDataFiles(conn->store.get(), table->metadata));
  std::string list;
  {
    std::lock_guard<std::mutex> lock(lakes.cache_mutex());
    for (const auto& f : files) {
      if (AsciiLower(f.file.file_format) != "parquet")
        return Status::NotSupported("Iceberg table " + r.ref.ToString() + " has a " + f.file.file_format +
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
  std::string out = files.empty() ? "(SELECT " + columns + " LIMIT 0)"
                                  : "(SELECT " + columns + " FROM read_parquet([" + list + "]))";
  if (!r.has_alias) out += " AS " + sql::QuoteIdentifier(r.ref.table);
  return out;
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
    r.has_alias = next && (next->IsWord("AS") || !EndsReference(*next));
    out.push_back(std::move(r));
    i += 4;
  }
  return out;
}

Result<std::string> RewriteLakeReads(LakeCatalogs& lakes, std::string_view sql,
                                     const std::vector<LakeReference>& refs) {
  std::string out;
  size_t pos = 0;
  std::vector<std::string> needed;
  for (const auto& r : refs) {
    ASSIGN_OR_RETURN(std::string relation, Relation(lakes, r, &needed));
    out += std::string(sql.substr(pos, r.begin - pos)) + relation;
    pos = r.end;
  }
  out += std::string(sql.substr(pos));
  return out;
}

}  // namespace sluice::lakehouse
