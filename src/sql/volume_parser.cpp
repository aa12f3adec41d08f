// CREATE STORAGE CONNECTION, CREATE [EXTERNAL] VOLUME, SHOW / DESC / DROP of both, and COPY INTO ... FROM VOLUME,
// in the Lakehouse grammar (shared/reference/pipe.md). Values are kept as written; catalog/ validates them.
#include "sql/volume_parser.h"

#include "common/ascii.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

// After `offset` words: CONNECTION, STORAGE CONNECTION, VOLUME or EXTERNAL VOLUME (and the plural forms when
// `plural`). Returns how many words name the kind, 0 when they do not.
size_t KindWords(const TokenStream& ts, size_t offset, bool plural, StorageObjectKind* kind) {
  std::string_view connection = plural ? "CONNECTIONS" : "CONNECTION";
  std::string_view volume = plural ? "VOLUMES" : "VOLUME";
  if (ts.PeekWord(connection, offset)) { *kind = StorageObjectKind::kConnection; return 1; }
  if (ts.PeekWord("STORAGE", offset) && ts.PeekWord(connection, offset + 1)) {
    *kind = StorageObjectKind::kConnection;
    return 2;
  }
  if (ts.PeekWord(volume, offset)) { *kind = StorageObjectKind::kVolume; return 1; }
  if (ts.PeekWord("EXTERNAL", offset) && ts.PeekWord(volume, offset + 1)) {
    *kind = StorageObjectKind::kVolume;
    return 2;
  }
  return 0;
}

void Skip(TokenStream& ts, size_t n) {
  for (size_t i = 0; i < n; i++) ts.Next();
}

// A value after a setting name: 'text', "text", a number or a bare word (TYPE S3, RECURSIVE = TRUE).
Result<std::string> ExpectValue(TokenStream& ts, std::string_view what) {
  const Token& t = ts.Peek();
  if (t.IsString() || t.kind == TokenKind::kNumber || t.kind == TokenKind::kWord) return ts.Next().text;
  return ts.Error(what);
}

Result<Statement> ParseCreateConnection(TokenStream& ts) {
  CreateStorageConnection st;
  st.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a connection name"));
  static constexpr std::string_view kKeys[] = {"TYPE", "ENDPOINT", "ACCESS_ID", "ACCESS_KEY", "REGION", "COMMENT"};
  while (!ts.AtEnd()) {
    if (ts.AcceptSymbol(",")) continue;
    const Token& at = ts.Peek();
    std::string key;
    for (auto k : kKeys)
      if (at.IsWord(k)) key = std::string(k);
    if (key.empty())
      return ts.Error("one of TYPE, ENDPOINT, ACCESS_ID, ACCESS_KEY, REGION or COMMENT (the settings of an S3 "
                      "connection)");
    ts.Next();
    for (const auto& [k, v] : st.settings)
      if (k == key) return ts.Complain(at, key + " is given twice: give each setting once");
    ts.AcceptSymbol("=");
    ASSIGN_OR_RETURN(std::string value, ExpectValue(ts, "a quoted value for " + key));
    st.settings.emplace_back(std::move(key), std::move(value));
  }
  return Statement{std::move(st)};
}

Result<Statement> ParseCreateVolume(TokenStream& ts) {
  CreateVolume st;
  st.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a volume name"));
  RETURN_IF_ERROR(ts.ExpectWord("LOCATION"));
  ts.AcceptSymbol("=");
  ASSIGN_OR_RETURN(st.location, ts.ExpectString("the volume's location in quotes, like 's3://bucket/path/' or "
                                                "'file:///abs/path/'"));
  bool have_connection = false, have_comment = false;
  while (!ts.AtEnd()) {
    if (ts.AcceptSymbol(",")) continue;
    const Token& at = ts.Peek();
    if (ts.AcceptWord("USING")) {
      RETURN_IF_ERROR(ts.ExpectWord("CONNECTION"));
      if (have_connection) return ts.Complain(at, "USING CONNECTION is given twice");
      have_connection = true;
      ASSIGN_OR_RETURN(st.connection, ts.ExpectIdentifier("a connection name"));
    } else if (ts.AcceptWord("RECURSIVE")) {
      if (st.recursive) return ts.Complain(at, "RECURSIVE is given twice");
      ts.AcceptSymbol("=");
      const Token& v = ts.Peek();
      std::string text = AsciiUpper(v.text);
      if (text == "TRUE") st.recursive = true;
      else if (text == "FALSE") st.recursive = false;
      else return ts.Error("TRUE or FALSE after RECURSIVE =");
      ts.Next();
    } else if (ts.AcceptWord("COMMENT")) {
      if (have_comment) return ts.Complain(at, "COMMENT is given twice");
      have_comment = true;
      ts.AcceptSymbol("=");
      ASSIGN_OR_RETURN(st.comment, ts.ExpectString("a comment in quotes"));
    } else {
      return ts.ErrorExpecting({"USING CONNECTION", "RECURSIVE", "COMMENT", "end of statement"});
    }
  }
  return Statement{std::move(st)};
}

Result<std::vector<std::string>> ExpectStringList(TokenStream& ts, std::string_view what) {
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  std::vector<std::string> out;
  while (true) {
    ASSIGN_OR_RETURN(std::string s, ts.ExpectString(what));
    out.push_back(std::move(s));
    if (ts.AcceptSymbol(")")) return out;
    if (!ts.AcceptSymbol(",")) return ts.ErrorExpecting({"','", "')'"});
  }
}

}  // namespace

bool IsCreateStorageObject(const TokenStream& ts) {
  StorageObjectKind kind;
  return ts.PeekWord("CREATE") && KindWords(ts, 1, false, &kind) > 0;
}

Result<Statement> ParseCreateStorageObject(TokenStream& ts) {
  StorageObjectKind kind = StorageObjectKind::kConnection;
  size_t words = KindWords(ts, 1, false, &kind);
  Skip(ts, 1 + words);
  if (kind == StorageObjectKind::kConnection) return ParseCreateConnection(ts);
  return ParseCreateVolume(ts);
}

bool IsShowStorageObjects(const TokenStream& ts) {
  StorageObjectKind kind;
  return ts.PeekWord("SHOW") && KindWords(ts, 1, true, &kind) > 0;
}

Result<Statement> ParseShowStorageObjects(TokenStream& ts) {
  ShowStorageObjects st;
  Skip(ts, 1 + KindWords(ts, 1, true, &st.kind));
  if (ts.AcceptWord("LIKE")) {
    ASSIGN_OR_RETURN(std::string pattern, ts.ExpectString("a pattern string, like 'abc%'"));
    st.like = std::move(pattern);
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

bool IsStorageObjectStatement(const TokenStream& ts) {
  StorageObjectKind kind;
  bool verb = ts.PeekWord("DESC") || ts.PeekWord("DESCRIBE") || ts.PeekWord("DROP");
  // DESC volume (a table named volume) stays a table description: the kind must be followed by a name.
  size_t words = verb ? KindWords(ts, 1, false, &kind) : 0;
  return words > 0 && ts.Peek(1 + words).kind != TokenKind::kEnd;
}

Result<Statement> ParseDescribeOrDropStorageObject(TokenStream& ts) {
  bool drop = ts.PeekWord("DROP");
  StorageObjectKind kind = StorageObjectKind::kConnection;
  Skip(ts, 1 + KindWords(ts, 1, false, &kind));
  const char* what = kind == StorageObjectKind::kConnection ? "a connection name" : "a volume name";
  if (drop) {
    DropStorageObject st;
    st.kind = kind;
    st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
    ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier(what));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  DescribeStorageObject st;
  st.kind = kind;
  ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier(what));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

bool IsCopyInto(const TokenStream& ts) { return ts.PeekWord("COPY") && ts.PeekWord("INTO", 1); }

Result<Statement> ParseCopyInto(TokenStream& ts) {
  Skip(ts, 2);  // COPY INTO
  CopyIntoFromVolume st;
  ASSIGN_OR_RETURN(QualifiedName table, ts.ExpectTableName("a table name"));
  // COPY INTO catalog.db.table: a table of an external (Iceberg) catalog; the session checks that it is one.
  if (!table.catalog.empty() && AsciiLower(table.catalog) != "default_catalog") st.catalog = table.catalog;
  st.db = table.db;
  st.table = table.name;
  RETURN_IF_ERROR(ts.ExpectWord("FROM"));
  const bool transform = ts.AcceptSymbol("(");
  if (transform) {
    RETURN_IF_ERROR(ts.ExpectWord("SELECT"));
    const Token* first = nullptr;
    const Token* last = nullptr;
    int depth = 0;
    while (!ts.AtEnd() && !(depth == 0 && ts.PeekWord("FROM") && ts.PeekWord("VOLUME", 1))) {
      const Token& t = ts.Peek();
      if (t.IsSymbol("(")) depth++;
      if (t.IsSymbol(")") && --depth < 0) break;
      if (depth > kMaxNestingDepth) return ts.Complain(t, "expression nested too deeply");
      if (!first) first = &t;
      last = &t;
      ts.Next();
    }
    if (!first) return ts.Error("the columns to load after SELECT");
    st.select_list = std::string(ts.SourceText(*first, *last));
    RETURN_IF_ERROR(ts.ExpectWord("FROM"));
  }
  RETURN_IF_ERROR(ts.ExpectWord("VOLUME"));
  ASSIGN_OR_RETURN(st.volume, ts.ExpectIdentifier("a volume name"));
  if (ts.AcceptSymbol("(")) {
    while (true) {
      ASSIGN_OR_RETURN(std::string name, ts.ExpectIdentifier("a column name"));
      ASSIGN_OR_RETURN(TypeSpec type, ParseType(ts));
      st.file_columns.emplace_back(std::move(name), std::move(type));
      if (ts.AcceptSymbol(")")) break;
      if (!ts.AcceptSymbol(",")) return ts.ErrorExpecting({"','", "')'"});
    }
  }
  RETURN_IF_ERROR(ts.ExpectWord("USING"));
  const Token& fmt = ts.Peek();
  if (!(fmt.IsWord("CSV") || fmt.IsWord("JSON") || fmt.IsWord("PARQUET"))) return ts.ErrorExpecting({"CSV", "JSON", "PARQUET"});
  st.format = AsciiUpper(ts.Next().text);
  bool have_options = false, have_files = false, have_on_error = false, have_force = false;
  bool inside = transform;  // still inside FROM ( ... )
  while (!ts.AtEnd()) {
    if (inside && (ts.PeekWord("WHERE") || ts.PeekSymbol(")"))) {
      if (ts.AcceptWord("WHERE")) {
        const Token* first = nullptr;
        const Token* last = nullptr;
        int depth = 0;
        while (!ts.AtEnd()) {
          const Token& t = ts.Peek();
          if (t.IsSymbol("(")) depth++;
          if (t.IsSymbol(")") && --depth < 0) break;
          if (!first) first = &t;
          last = &t;
          ts.Next();
        }
        if (!first) return ts.Error("a condition after WHERE");
        st.where = std::string(ts.SourceText(*first, *last));
      }
      RETURN_IF_ERROR(ts.ExpectSymbol(")"));
      inside = false;
      continue;
    }
    const Token& at = ts.Peek();
    if (ts.AcceptWord("OPTIONS")) {
      if (have_options) return ts.Complain(at, "OPTIONS is given twice: list every option in one OPTIONS (...)");
      have_options = true;
      RETURN_IF_ERROR(ts.ExpectSymbol("("));
      if (ts.AcceptSymbol(")")) continue;
      while (true) {
        const Token& k = ts.Peek();
        if (!k.IsString() && !k.IsIdentifier()) return ts.Error("an option name in quotes, like 'header'");
        std::string key = ts.Next().text;
        RETURN_IF_ERROR(ts.ExpectSymbol("="));
        ASSIGN_OR_RETURN(std::string value, ExpectValue(ts, "a quoted value for option '" + key + "'"));
        st.options.emplace_back(std::move(key), std::move(value));
        if (ts.AcceptSymbol(")")) break;
        if (!ts.AcceptSymbol(",")) return ts.ErrorExpecting({"','", "')'"});
      }
    } else if (at.IsWord("FILES") || at.IsWord("REGEXP") || at.IsWord("SUBDIRECTORY")) {
      if (have_files)
        return ts.Complain(at, "only one of FILES, REGEXP or SUBDIRECTORY may choose the files");
      have_files = true;
      ts.Next();
      if (at.IsWord("FILES")) {
        ASSIGN_OR_RETURN(st.files, ExpectStringList(ts, "a file name in quotes"));
      } else if (at.IsWord("REGEXP")) {
        ts.AcceptSymbol("=");
        ASSIGN_OR_RETURN(st.regexp, ts.ExpectString("a regular expression in quotes"));
      } else {
        ts.AcceptSymbol("=");
        ASSIGN_OR_RETURN(st.subdirectory, ts.ExpectString("a subdirectory in quotes, like '2024/01/'"));
      }
    } else if (ts.AcceptWord("ON_ERROR")) {
      if (have_on_error) return ts.Complain(at, "ON_ERROR is given twice");
      have_on_error = true;
      RETURN_IF_ERROR(ts.ExpectSymbol("="));
      const Token& v = ts.Peek();
      std::string value = AsciiUpper(v.text);
      if (!(v.IsString() || v.kind == TokenKind::kWord) || (value != "CONTINUE" && value != "ABORT"))
        return ts.Error("CONTINUE or ABORT after ON_ERROR =");
      ts.Next();
      st.on_error = value;
    } else if (ts.AcceptWord("FORCE")) {
      if (have_force) return ts.Complain(at, "FORCE is given twice");
      have_force = true;
      RETURN_IF_ERROR(ts.ExpectSymbol("="));
      const Token& v = ts.Peek();
      std::string value = AsciiUpper(v.text);
      if (!(v.IsString() || v.kind == TokenKind::kWord) || (value != "TRUE" && value != "FALSE"))
        return ts.Error("TRUE or FALSE after FORCE =");
      ts.Next();
      st.force = value == "TRUE";
    } else {
      if (inside)
        return ts.ErrorExpecting({"OPTIONS", "FILES", "REGEXP", "SUBDIRECTORY", "ON_ERROR", "FORCE", "WHERE", "')'"});
      return ts.ErrorExpecting({"OPTIONS", "FILES", "REGEXP", "SUBDIRECTORY", "ON_ERROR", "FORCE",
                                "end of statement"});
    }
  }
  if (inside) return ts.Error("')' to close FROM (SELECT ...");
  return Statement{std::move(st)};
}

}  // namespace sluice::sql
