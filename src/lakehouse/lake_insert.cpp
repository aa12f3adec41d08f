#include "lakehouse/lake_insert.h"

#include <filesystem>

#include "common/ascii.h"
#include "lakehouse/lake_append.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::lakehouse {


Result<std::optional<LakeInsert>> ParseLakeInsert(std::string_view sql,
                                                  const std::function<bool(const std::string&)>& is_external) {
  sql::TokenReader reader(sql);
  sql::Token t = reader.Next();
  if (!t.IsWord("INSERT")) return std::optional<LakeInsert>();
  t = reader.Next();
  bool overwrite = false;
  if (t.IsWord("OR")) {
    overwrite = true;
    reader.Next();
    t = reader.Next();
  }
  if (t.IsWord("OVERWRITE")) {
    overwrite = true;
    t = reader.Next();
  }
  if (!t.IsWord("INTO")) {
    if (!overwrite) return std::optional<LakeInsert>();
  } else {
    t = reader.Next();
  }
  std::vector<std::string> parts;
  while (t.IsIdentifier()) {
    parts.push_back(t.text);
    t = reader.Next();
    if (!t.IsSymbol(".")) break;
    t = reader.Next();
  }
  if (parts.size() != 3 || !is_external(parts[0])) return std::optional<LakeInsert>();
  LakeInsert out;
  out.target = LakeTableRef{parts[0], parts[1], parts[2]};
  if (overwrite)
    return Status::NotSupported("INSERT OVERWRITE / INSERT OR REPLACE into the Iceberg table " +
                                out.target.ToString() + " is not supported yet: INSERT INTO appends");
  if (t.IsSymbol("(")) {
    // A column list, unless the parenthesis opens the query itself: INSERT INTO t (SELECT ...).
    sql::TokenReader probe = reader;
    sql::Token first = probe.Next();
    if (!(first.IsWord("SELECT") || first.IsWord("WITH") || first.IsWord("VALUES") || first.IsWord("FROM"))) {
      while (true) {
        t = reader.Next();
        if (!t.IsIdentifier())
          return Status::SyntaxError("INSERT INTO " + out.target.ToString() + ": expected a column name in the "
                                     "column list");
        out.columns.push_back(t.text);
        t = reader.Next();
        if (t.IsSymbol(")")) break;
        if (!t.IsSymbol(","))
          return Status::SyntaxError("INSERT INTO " + out.target.ToString() + ": expected ',' or ')' in the column "
                                     "list");
      }
      t = reader.Next();
    }
  }
  if (t.kind == sql::TokenKind::kEnd)
    return Status::SyntaxError("INSERT INTO " + out.target.ToString() + " needs the rows: SELECT ... or VALUES ...");
  out.query = std::string(sql.substr(t.offset));
  return std::optional<LakeInsert>(std::move(out));
}

Result<uint64_t> RunLakeInsert(LakeCatalogs& lakes, storage::Connection& con, const LakeInsert& insert,
                               const std::string& work_dir) {
  ASSIGN_OR_RETURN(auto conn, lakes.Connect(insert.target.catalog));
  AppendRequest request;
  request.query = insert.query;
  request.columns = insert.columns;
  ASSIGN_OR_RETURN(AppendOutcome outcome, AppendRows(*conn, insert.target, con, request, work_dir));
  return outcome.rows;
}

}  // namespace sluice::lakehouse
