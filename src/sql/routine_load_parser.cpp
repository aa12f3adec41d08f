// CREATE / ALTER / PAUSE / RESUME / STOP / SHOW [CREATE] ROUTINE LOAD, in StarRocks' grammar
// (shared/reference/routine-load.md). Property values are kept as written and expressions as source text.
#include "sql/routine_load_parser.h"

#include "common/ascii.h"

namespace sluice::sql {

// ( "key" = "value" [, ...] ): keys and values quoted with ' or ", keys also as bare names.
Result<PropertyList> ParsePropertyList(TokenStream& ts, std::string_view clause) {
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  PropertyList out;
  if (ts.AcceptSymbol(")")) return out;
  while (true) {
    std::string key;
    if (ts.Peek().IsString() || ts.Peek().IsIdentifier()) {
      key = ts.Next().text;
      // property.group.id written bare lexes as several words joined by dots.
      while (ts.PeekSymbol(".") && ts.Peek(1).IsIdentifier()) {
        ts.Next();
        key += "." + ts.Next().text;
      }
    } else {
      return ts.Error(std::string("a property name in ") + std::string(clause));
    }
    RETURN_IF_ERROR(ts.ExpectSymbol("="));
    std::string value;
    if (ts.Peek().IsString() || ts.Peek().kind == TokenKind::kNumber || ts.Peek().kind == TokenKind::kWord) {
      value = ts.Next().text;
    } else {
      return ts.Error("a quoted value for property \"" + key + "\"");
    }
    out.emplace_back(std::move(key), std::move(value));
    if (ts.AcceptSymbol(")")) return out;
    if (!ts.AcceptSymbol(",")) return ts.ErrorExpecting({"','", "')'"});
  }
}

namespace {

// db.job or job.
Status ParseJobName(TokenStream& ts, std::string* db, std::string* name) {
  ASSIGN_OR_RETURN(QualifiedName q, ts.ExpectQualifiedName("a routine load name"));
  *db = q.db;
  *name = q.name;
  return Status::Ok();
}


// The text of an expression that runs until a top-level ',' or ')' or one of the stop words.
Result<std::string> CaptureExpression(TokenStream& ts, std::string_view what,
                                      std::initializer_list<std::string_view> stop_words) {
  const Token* first = nullptr;
  const Token* last = nullptr;
  int depth = 0;
  while (!ts.AtEnd()) {
    const Token& t = ts.Peek();
    if (depth == 0) {
      if (t.IsSymbol(",") || t.IsSymbol(")")) break;
      bool stop = false;
      for (auto w : stop_words) stop |= t.IsWord(w);
      if (stop) break;
    }
    if (t.IsSymbol("(")) depth++;
    if (t.IsSymbol(")")) depth--;
    if (depth > kMaxNestingDepth) return ts.Complain(t, "expression nested too deeply");
    if (!first) first = &t;
    last = &t;
    ts.Next();
  }
  if (!first) return ts.Error(std::string(what));
  return std::string(ts.SourceText(*first, *last));
}

// The content of a quoted separator exactly as written (escapes are resolved later, StarRocks' way).
Result<std::string> ExpectRawString(TokenStream& ts, std::string_view what) {
  const Token& t = ts.Peek();
  if (!t.IsString() || t.raw.size() < 2) return ts.Error(what);
  ts.Next();
  return std::string(t.raw.substr(1, t.raw.size() - 2));
}

Status Repeated(TokenStream& ts, const Token& at, std::string_view what) {
  return ts.Complain(at, "repeat setting of " + std::string(what) + ": each load property may appear once");
}

// Load properties, separated by commas, in any order; stops before PROPERTIES, FROM or the end.
Status ParseLoadProperties(TokenStream& ts, LoadProperties& load) {
  bool first = true;
  while (!ts.AtEnd() && !ts.PeekWord("PROPERTIES") && !ts.PeekWord("FROM")) {
    if (!first && !ts.AcceptSymbol(",")) return ts.ErrorExpecting({"','", "PROPERTIES", "FROM KAFKA"});
    first = false;
    const Token& at = ts.Peek();
    if (ts.PeekWord("COLUMNS") && ts.PeekWord("TERMINATED", 1)) {
      ts.Next();
      ts.Next();
      RETURN_IF_ERROR(ts.ExpectWord("BY"));
      if (load.column_separator) return Repeated(ts, at, "COLUMNS TERMINATED BY");
      ASSIGN_OR_RETURN(load.column_separator, ExpectRawString(ts, "a quoted column separator"));
    } else if (ts.PeekWord("ROWS") && ts.PeekWord("TERMINATED", 1)) {
      ts.Next();
      ts.Next();
      RETURN_IF_ERROR(ts.ExpectWord("BY"));
      if (load.row_delimiter) return Repeated(ts, at, "ROWS TERMINATED BY");
      ASSIGN_OR_RETURN(load.row_delimiter, ExpectRawString(ts, "a quoted row delimiter"));
    } else if (ts.PeekWord("COLUMNS")) {
      ts.Next();
      if (load.columns) return Repeated(ts, at, "COLUMNS");
      RETURN_IF_ERROR(ts.ExpectSymbol("("));
      std::vector<ColumnMapping> cols;
      while (true) {
        ColumnMapping m;
        ASSIGN_OR_RETURN(m.name, ts.ExpectIdentifier("a column name"));
        if (ts.AcceptSymbol("=")) {
          ASSIGN_OR_RETURN(m.expr, CaptureExpression(ts, "an expression after '='", {}));
        }
        cols.push_back(std::move(m));
        if (ts.AcceptSymbol(")")) break;
        if (!ts.AcceptSymbol(",")) return ts.ErrorExpecting({"','", "')'", "'='"});
      }
      load.columns = std::move(cols);
    } else if (ts.PeekWord("WHERE")) {
      ts.Next();
      if (load.where) return Repeated(ts, at, "WHERE");
      ASSIGN_OR_RETURN(load.where, CaptureExpression(ts, "a condition after WHERE", {"PROPERTIES", "FROM"}));
    } else if (ts.PeekWord("PARTITION") || ts.PeekWord("PARTITIONS") ||
               (ts.PeekWord("TEMPORARY") && (ts.PeekWord("PARTITION", 1) || ts.PeekWord("PARTITIONS", 1)))) {
      // PARTITIONS is StarRocks' other spelling of the same property.
      load.temporary_partitions = ts.AcceptWord("TEMPORARY");
      ts.Next();
      if (load.partitions) return Repeated(ts, at, "PARTITION");
      ASSIGN_OR_RETURN(load.partitions, ts.ExpectNameList("partition names"));
    } else if (ts.PeekWord("INCLUDE") && ts.PeekWord("METADATA", 1)) {
      ts.Next();
      ts.Next();
      if (load.include_metadata) return Repeated(ts, at, "INCLUDE METADATA");
      RETURN_IF_ERROR(ts.ExpectSymbol("("));
      std::vector<MetadataKey> keys;
      while (true) {
        MetadataKey k;
        ASSIGN_OR_RETURN(k.key, ts.ExpectIdentifier("a metadata key"));
        k.key = AsciiUpper(k.key);
        if (ts.AcceptWord("AS")) {
          ASSIGN_OR_RETURN(k.alias, ts.ExpectIdentifier("an alias"));
        }
        keys.push_back(std::move(k));
        if (ts.AcceptSymbol(")")) break;
        if (!ts.AcceptSymbol(",")) return ts.ErrorExpecting({"','", "')'", "AS"});
      }
      load.include_metadata = std::move(keys);
    } else {
      return ts.ErrorExpecting({"COLUMNS TERMINATED BY", "ROWS TERMINATED BY", "COLUMNS", "WHERE", "PARTITION",
                                "INCLUDE METADATA", "PROPERTIES", "FROM KAFKA"});
    }
  }
  return Status::Ok();
}

Status ParseFromSource(TokenStream& ts, std::string* type, PropertyList* props) {
  RETURN_IF_ERROR(ts.ExpectWord("FROM"));
  ASSIGN_OR_RETURN(*type, ts.ExpectIdentifier("a data source such as KAFKA"));
  *type = AsciiUpper(*type);
  ASSIGN_OR_RETURN(*props, ParsePropertyList(ts, "FROM " + *type));
  return Status::Ok();
}

}  // namespace

Result<Statement> ParseCreateRoutineLoad(TokenStream& ts) {
  ts.Next();  // CREATE
  ts.Next();  // ROUTINE
  RETURN_IF_ERROR(ts.ExpectWord("LOAD"));
  CreateRoutineLoad st;
  RETURN_IF_ERROR(ParseJobName(ts, &st.db, &st.job_name));
  RETURN_IF_ERROR(ts.ExpectWord("ON"));
  ASSIGN_OR_RETURN(st.table, ts.ExpectIdentifier("a table name"));
  if (ts.PeekSymbol(".") && ts.Peek(1).IsIdentifier() && ts.PeekSymbol(".", 2)) {
    // ON catalog.db.table: a table of an external (Iceberg) catalog, which the registry checks. db.table stays a
    // syntax error, as in StarRocks, which takes the database from the job's name.
    ts.Next();  // .
    st.table_catalog = st.table;
    ASSIGN_OR_RETURN(st.table_db, ts.ExpectIdentifier("a database name"));
    ts.Next();  // .
    ASSIGN_OR_RETURN(st.table, ts.ExpectIdentifier("a table name"));
  }
  RETURN_IF_ERROR(ParseLoadProperties(ts, st.load));
  if (ts.AcceptWord("PROPERTIES")) {
    ASSIGN_OR_RETURN(st.job_properties, ParsePropertyList(ts, "PROPERTIES"));
  }
  RETURN_IF_ERROR(ParseFromSource(ts, &st.source_type, &st.source_properties));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ParseAlterRoutineLoad(TokenStream& ts) {
  ts.Next();  // ALTER
  ts.Next();  // ROUTINE
  RETURN_IF_ERROR(ts.ExpectWord("LOAD"));
  RETURN_IF_ERROR(ts.ExpectWord("FOR"));
  AlterRoutineLoad st;
  RETURN_IF_ERROR(ParseJobName(ts, &st.db, &st.job_name));
  RETURN_IF_ERROR(ParseLoadProperties(ts, st.load));
  if (ts.AcceptWord("PROPERTIES")) {
    ASSIGN_OR_RETURN(st.job_properties, ParsePropertyList(ts, "PROPERTIES"));
  }
  if (ts.PeekWord("FROM")) RETURN_IF_ERROR(ParseFromSource(ts, &st.source_type, &st.source_properties));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ParseControlRoutineLoad(TokenStream& ts) {
  ControlRoutineLoad st;
  const Token& verb = ts.Next();
  st.action = verb.IsWord("PAUSE") ? ControlRoutineLoad::Action::kPause
              : verb.IsWord("RESUME") ? ControlRoutineLoad::Action::kResume
                                      : ControlRoutineLoad::Action::kStop;
  ts.Next();  // ROUTINE
  RETURN_IF_ERROR(ts.ExpectWord("LOAD"));
  RETURN_IF_ERROR(ts.ExpectWord("FOR"));
  RETURN_IF_ERROR(ParseJobName(ts, &st.db, &st.job_name));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

Result<Statement> ParseShowRoutineLoad(TokenStream& ts) {
  ts.Next();  // SHOW
  if (ts.AcceptWord("CREATE")) {
    ts.Next();  // ROUTINE
    RETURN_IF_ERROR(ts.ExpectWord("LOAD"));
    ShowCreateRoutineLoad st;
    RETURN_IF_ERROR(ParseJobName(ts, &st.db, &st.job_name));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  bool all = ts.AcceptWord("ALL");
  ts.Next();  // ROUTINE
  RETURN_IF_ERROR(ts.ExpectWord("LOAD"));
  if (!all && ts.AcceptWord("TASK")) {
    ShowRoutineLoadTask st;
    if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
      ASSIGN_OR_RETURN(st.db, ts.ExpectIdentifier("a database name"));
    }
    RETURN_IF_ERROR(ts.ExpectWord("WHERE"));
    const Token& key = ts.Peek();
    ASSIGN_OR_RETURN(std::string column, ts.ExpectIdentifier("JobName"));
    if (!EqualsIgnoreCase(column, "JobName")) return ts.Complain(key, "SHOW ROUTINE LOAD TASK filters by JobName = \"job\"");
    RETURN_IF_ERROR(ts.ExpectSymbol("="));
    ASSIGN_OR_RETURN(st.job_name, ts.ExpectString("a quoted job name"));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  ShowRoutineLoad st;
  st.all = all;
  if (ts.AcceptWord("FOR")) {
    RETURN_IF_ERROR(ParseJobName(ts, &st.db, &st.job_name));
  } else if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
    ASSIGN_OR_RETURN(st.db, ts.ExpectIdentifier("a database name"));
  }
  if (ts.AcceptWord("WHERE")) {
    const Token& key = ts.Peek();
    ASSIGN_OR_RETURN(std::string column, ts.ExpectIdentifier("State"));
    if (!EqualsIgnoreCase(column, "State")) return ts.Complain(key, "SHOW ROUTINE LOAD filters by State = \"...\"");
    RETURN_IF_ERROR(ts.ExpectSymbol("="));
    ASSIGN_OR_RETURN(std::string state, ts.ExpectString("a quoted state such as \"RUNNING\""));
    st.state = AsciiUpper(state);
  }
  if (ts.AcceptWords({"ORDER", "BY"})) {
    ASSIGN_OR_RETURN(st.order_by, ts.ExpectIdentifier("a column name"));
    if (ts.AcceptWord("DESC")) st.order_desc = true;
    else ts.AcceptWord("ASC");
  }
  // LIMIT count | LIMIT offset, count | LIMIT count OFFSET offset, as in StarRocks.
  if (ts.AcceptWord("LIMIT")) {
    ASSIGN_OR_RETURN(int64_t n, ts.ExpectInteger("a row count"));
    if (ts.AcceptSymbol(",")) {
      st.offset = n;
      ASSIGN_OR_RETURN(n, ts.ExpectInteger("a row count after the offset"));
    } else if (ts.AcceptWord("OFFSET")) {
      ASSIGN_OR_RETURN(st.offset, ts.ExpectInteger("an offset"));
    }
    st.limit = n;
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

bool IsShowRoutineLoad(const TokenStream& ts) {
  size_t i = 1;
  if (ts.PeekWord("CREATE", i) || ts.PeekWord("ALL", i)) i++;
  return ts.PeekWord("ROUTINE", i);
}

}  // namespace sluice::sql
