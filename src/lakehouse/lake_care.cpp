#include "lakehouse/lake_care.h"

#include <algorithm>
#include <map>

#include "common/ascii.h"
#include "iceberg/table_care.h"
#include "iceberg/value.h"
#include "lakehouse/lake_care_policy.h"
#include "lakehouse/lake_rewrite.h"
#include "sql/lexer.h"

namespace sluice::lakehouse {

namespace {

constexpr const char* kSyntax =
    "write ALTER TABLE catalog.db.t EXECUTE expire_snapshots(older_than = '<time>', retain_last = <n>) or "
    "EXECUTE remove_orphan_files(older_than = '<time>') or EXECUTE rewrite_data_files(target_file_size_bytes = "
    "<n>, min_input_files = <n>, min_file_size_bytes = <n>) or SET (\"key\" = \"value\", ...)";

// SET ("key" = "value" [, ...]) after the table name (StarRocks' ALTER TABLE ... SET), read up to the end.
Status ParseSetProperties(sql::TokenReader& reader, LakeCare* care) {
  care->procedure = "set_properties";
  if (!reader.Next().IsSymbol("("))
    return Status::InvalidArgument("ALTER TABLE " + care->table.ToString() + " SET takes (\"key\" = \"value\", ...)");
  for (;;) {
    const sql::Token key = reader.Next();
    const sql::Token eq = reader.Next();
    const sql::Token value = reader.Next();
    auto quoted = [](const sql::Token& t) {
      return t.kind == sql::TokenKind::kString || t.kind == sql::TokenKind::kDoubleQuoted;
    };
    if (!quoted(key) || !eq.IsSymbol("=") || !quoted(value))
      return Status::InvalidArgument("ALTER TABLE " + care->table.ToString() +
                                     " SET: properties are quoted pairs, (\"key\" = \"value\", ...)");
    for (const auto& a : care->arguments)
      if (a.name == key.text) return Status::InvalidArgument("SET: property " + key.text + " is given twice");
    care->arguments.push_back(LakeCareArgument{key.text, value.text, true});
    const sql::Token next = reader.Next();
    if (next.IsSymbol(")")) break;
    if (!next.IsSymbol(",")) return Status::InvalidArgument("SET: expected ',' or ')' after property " + key.text);
  }
  sql::Token t = reader.Next();
  if (t.IsSymbol(";")) t = reader.Next();
  if (t.kind != sql::TokenKind::kEnd) return Status::InvalidArgument("unexpected text after SET (...)");
  return Status::Ok();
}

constexpr int64_t kHourMs = 3600 * 1000;
constexpr int64_t kDayMs = 24 * kHourMs;

Result<int64_t> TimeArgument(const LakeCareArgument& a) {
  auto v = iceberg::ParseValueText(iceberg::MakeType(iceberg::TypeId::kTimestampTz), a.value);
  if (!a.is_string || !v.ok())
    return Status::InvalidArgument("older_than: write the time as 'YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM]' (UTC "
                                   "without an offset), not " + a.value);
  const int64_t micros = std::get<int64_t>(v->v);
  return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}

Result<int64_t> IntArgument(const LakeCareArgument& a, const std::string& what) {
  try {
    size_t used = 0;
    const long long v = std::stoll(a.value, &used);
    if (!a.is_string && used == a.value.size()) return static_cast<int64_t>(v);
  } catch (const std::exception&) {
  }
  return Status::InvalidArgument(what + " takes a whole number, not " + a.value);
}

// Positional arguments take the names in `order`; named ones must be among them.
Result<std::map<std::string, LakeCareArgument>> Named(const LakeCare& care, const std::vector<std::string>& order) {
  std::map<std::string, LakeCareArgument> out;
  for (size_t i = 0; i < care.arguments.size(); i++) {
    const auto& a = care.arguments[i];
    std::string name = a.name.empty() ? (i < order.size() ? order[i] : "") : AsciiLower(a.name);
    if (std::find(order.begin(), order.end(), name) == order.end()) {
      std::string known;
      for (const auto& o : order) known += (known.empty() ? "" : ", ") + o;
      return Status::InvalidArgument(care.procedure + " takes " + known + (a.name.empty() ? ": too many arguments"
                                                                                             : ", not " + a.name));
    }
    if (!out.emplace(name, a).second) return Status::InvalidArgument(care.procedure + ": " + name + " given twice");
  }
  return out;
}

}  // namespace

Result<std::optional<LakeCare>> ParseLakeCare(std::string_view sql,
                                              const std::function<bool(const std::string&)>& is_external) {
  sql::TokenReader reader(sql);
  sql::Token t = reader.Next();
  if (!t.IsWord("ALTER")) return std::optional<LakeCare>();
  t = reader.Next();
  if (!t.IsWord("TABLE")) return std::optional<LakeCare>();
  std::vector<std::string> parts;
  for (t = reader.Next(); t.IsIdentifier();) {
    parts.push_back(t.text);
    t = reader.Next();
    if (!t.IsSymbol(".")) break;
    t = reader.Next();
  }
  if (parts.size() != 3 || !is_external(parts[0])) return std::optional<LakeCare>();
  LakeCare care;
  care.table = LakeTableRef{parts[0], parts[1], parts[2]};
  if (t.IsWord("SET")) {
    RETURN_IF_ERROR(ParseSetProperties(reader, &care));
    return std::optional<LakeCare>(std::move(care));
  }
  if (!t.IsWord("EXECUTE"))
    return Status::NotSupported("ALTER TABLE on the Iceberg table " + care.table.ToString() +
                                " runs table care only: " + kSyntax);
  t = reader.Next();
  if (t.kind != sql::TokenKind::kWord) return Status::InvalidArgument(kSyntax);
  care.procedure = AsciiLower(t.text);
  if (!reader.Next().IsSymbol("(")) return Status::InvalidArgument(kSyntax);
  t = reader.Next();
  while (!t.IsSymbol(")")) {
    LakeCareArgument a;
    if (t.kind == sql::TokenKind::kWord) {
      const sql::Token eq = reader.Next();
      if (!eq.IsSymbol("=") && !eq.IsSymbol("=>")) return Status::InvalidArgument(kSyntax);
      a.name = t.text;
      t = reader.Next();
    }
    bool negative = false;
    if (t.IsSymbol("-")) {
      negative = true;
      t = reader.Next();
    }
    if (t.kind == sql::TokenKind::kString) {
      a.value = t.text;
      a.is_string = !negative;
    } else if (t.kind == sql::TokenKind::kNumber) {
      a.value = (negative ? "-" : "") + t.text;
    } else {
      return Status::InvalidArgument(care.procedure + ": arguments are quoted times and numbers; " + kSyntax);
    }
    care.arguments.push_back(std::move(a));
    t = reader.Next();
    if (t.IsSymbol(",")) {
      t = reader.Next();
    } else if (!t.IsSymbol(")")) {
      return Status::InvalidArgument(kSyntax);
    }
  }
  t = reader.Next();
  if (t.IsSymbol(";")) t = reader.Next();
  if (t.kind != sql::TokenKind::kEnd) return Status::InvalidArgument("unexpected text after the arguments; " +
                                                                     std::string(kSyntax));
  if (care.procedure != "expire_snapshots" && care.procedure != "remove_orphan_files" &&
      care.procedure != "rewrite_data_files")
    return Status::NotSupported("Iceberg tables take EXECUTE expire_snapshots(...), remove_orphan_files(...) and "
                                "rewrite_data_files(...); " + care.procedure + " is not supported");
  return std::optional<LakeCare>(std::move(care));
}

namespace {

Result<ResultSet> RunUnlogged(LakeCatalogs& lakes, const LakeCare& care, int64_t now_ms,
                              const LakeCareWriter& writer) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(care.table.catalog));
  auto table = conn->ops->Load(care.table.Ident());
  if (!table.ok()) {
    if (table.status().code() == StatusCode::kUnknownTable)
      return Status::UnknownTable("Unknown table '" + care.table.ToString() + "'");
    return table.status();
  }
  ResultSet rs;
  auto prefixed = [&](const Status& st) {
    return Status(st.code(), care.table.ToString() + ": " + st.message());
  };
  if (care.procedure == "expire_snapshots") {
    ASSIGN_OR_RETURN(auto args, Named(care, {"older_than", "retain_last"}));
    const auto& m = table->metadata;
    int64_t older_than = now_ms - m.IntProperty("history.expire.max-snapshot-age-ms", 5 * kDayMs);
    int64_t retain_last = m.IntProperty("history.expire.min-snapshots-to-keep", 1);
    if (args.count("older_than")) {
      ASSIGN_OR_RETURN(older_than, TimeArgument(args["older_than"]));
    }
    if (args.count("retain_last")) {
      ASSIGN_OR_RETURN(retain_last, IntArgument(args["retain_last"], "retain_last"));
    }
    if (retain_last < 1 || retain_last > 1000000)
      return Status::InvalidArgument("retain_last must be at least 1: the current snapshot always stays");
    auto r = iceberg::ExpireSnapshots(conn->catalog.get(), conn->store.get(), care.table.Ident(), older_than,
                                      static_cast<int>(retain_last), now_ms);
    if (!r.ok()) return prefixed(r.status());
    for (const char* c : {"expired_snapshots", "deleted_manifest_lists", "deleted_manifests", "deleted_data_files"})
      rs.AddColumn(c, ValueType::kBigInt);
    rs.rows.push_back({std::to_string(r->expired_snapshots), std::to_string(r->deleted_manifest_lists),
                       std::to_string(r->deleted_manifests), std::to_string(r->deleted_data_files)});
    return rs;
  }
  if (care.procedure == "set_properties") {
    std::map<std::string, std::string> properties;
    for (const auto& a : care.arguments) properties[a.name] = a.value;
    // A sluice.care.* value the policy could not read is refused here rather than skipped by the policy later.
    std::map<std::string, std::string> merged = table->metadata.properties;
    for (const auto& [k, v] : properties) merged[k] = v;
    std::vector<std::string> problems;
    (void)CarePolicyOf(merged, &problems);
    for (const auto& [k, v] : properties)
      for (const auto& problem : problems)
        if (problem.find(k) != std::string::npos) return Status::InvalidArgument(care.table.ToString() + ": " + problem);
    auto r = iceberg::SetTableProperties(conn->catalog.get(), conn->store.get(), care.table.Ident(), properties,
                                         now_ms);
    if (!r.ok()) return prefixed(r.status());
    rs.AddColumn("properties_set", ValueType::kBigInt);
    rs.rows.push_back({std::to_string(r->changed)});
    return rs;
  }
  if (care.procedure == "rewrite_data_files") {
    ASSIGN_OR_RETURN(auto args, Named(care, {"target_file_size_bytes", "min_input_files", "min_file_size_bytes"}));
    RewriteOptions o = DefaultRewriteOptions(table->metadata.properties);
    if (args.count("target_file_size_bytes")) {
      ASSIGN_OR_RETURN(o.target_file_size_bytes, IntArgument(args["target_file_size_bytes"], "target_file_size_bytes"));
      o.min_file_size_bytes = o.target_file_size_bytes / 4 * 3;
    }
    if (args.count("min_input_files")) {
      ASSIGN_OR_RETURN(o.min_input_files, IntArgument(args["min_input_files"], "min_input_files"));
    }
    if (args.count("min_file_size_bytes")) {
      ASSIGN_OR_RETURN(o.min_file_size_bytes, IntArgument(args["min_file_size_bytes"], "min_file_size_bytes"));
    }
    if (!writer.con) return Status::Internal("rewrite_data_files needs a DuckDB connection");
    auto r = RewriteDataFiles(lakes, *conn, care.table, *writer.con, o, writer.work_dir);
    if (!r.ok()) return prefixed(r.status());
    for (const char* c : {"rewritten_data_files", "added_data_files", "rewritten_bytes", "added_bytes"})
      rs.AddColumn(c, ValueType::kBigInt);
    rs.rows.push_back({std::to_string(r->rewritten_files), std::to_string(r->added_files),
                       std::to_string(r->rewritten_bytes), std::to_string(r->added_bytes)});
    return rs;
  }
  ASSIGN_OR_RETURN(auto args, Named(care, {"older_than"}));
  int64_t older_than = now_ms - 3 * kDayMs;
  if (args.count("older_than")) {
      ASSIGN_OR_RETURN(older_than, TimeArgument(args["older_than"]));
    }
  if (older_than > now_ms - kHourMs)
    return Status::InvalidArgument("remove_orphan_files: older_than must be at least an hour ago -- younger files "
                                   "may belong to a load whose commit is under way");
  auto r = iceberg::RemoveOrphanFiles(conn->catalog.get(), conn->store.get(), care.table.Ident(), older_than);
  if (!r.ok()) return prefixed(r.status());
  rs.AddColumn("removed_files", ValueType::kBigInt);
  rs.AddColumn("kept_recent_files", ValueType::kBigInt);
  rs.rows.push_back({std::to_string(r->removed_files), std::to_string(r->kept_recent_files)});
  return rs;
}

}  // namespace

Result<ResultSet> RunLakeCare(LakeCatalogs& lakes, const LakeCare& care, int64_t now_ms,
                              const LakeCareWriter& writer) {
  auto rs = RunUnlogged(lakes, care, now_ms, writer);
  LakeCareRun run;
  run.ran_at_ms = now_ms;
  run.procedure = care.procedure;
  run.trigger = care.trigger;
  run.ok = rs.ok();
  if (!rs.ok()) {
    run.detail = rs.status().message();
  } else if (!rs->rows.empty()) {
    for (size_t i = 0; i < rs->columns.size() && i < rs->rows[0].size(); i++)
      run.detail += (i ? ", " : "") + rs->columns[i].name + "=" + rs->rows[0][i].value_or("NULL");
  }
  lakes.care_log().Record(care.table.ToString(), std::move(run));
  return rs;
}

}  // namespace sluice::lakehouse
