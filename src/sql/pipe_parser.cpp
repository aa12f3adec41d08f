// CREATE / DROP / ALTER PIPE, SHOW PIPES and DESC PIPE (the Lakehouse dialect, shared/reference/pipe.md).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.h"
#include "sql/statement_parsers.h"
#include "sql/volume_parser.h"

namespace sluice::sql {

namespace {

constexpr std::string_view kReadKafkaArguments =
    "READ_KAFKA(bootstrap_servers, topic, topic_pattern, group_id, starting_offsets, ending_offsets, "
    "starting_timestamp, ending_timestamp, key_format, value_format, max_errors, map(kafka settings))";

Status SplitName(const QualifiedName& q, std::string* db, std::string* name) {
  *db = q.db;
  *name = q.name;
  return Status::Ok();
}

// A property value: 'text', a number or a bare word (true / false).
Result<std::string> ExpectValue(TokenStream& ts, std::string_view what) {
  const Token& t = ts.Peek();
  if (t.IsString()) return ts.ExpectString(what);
  if (t.kind == TokenKind::kNumber || t.kind == TokenKind::kWord) {
    ts.Next();
    return std::string(t.raw);
  }
  return ts.Error(what);
}

// Tokens from the current one up to (not including) a top-level token for which `stop` holds; nesting counts
// (), [] and {}. Returns the index of the last token consumed, or the error when the input ends first.
template <typename Stop>
Result<std::pair<const Token*, const Token*>> TakeUntil(TokenStream& ts, Stop stop, std::string_view expected) {
  int depth = 0;
  const Token* first = nullptr;
  const Token* last = nullptr;
  while (true) {
    const Token& t = ts.Peek();
    if (t.kind == TokenKind::kEnd) return ts.Error(expected);
    if (depth == 0 && stop(t)) break;
    if (t.IsSymbol("(") || t.IsSymbol("[") || t.IsSymbol("{")) depth++;
    if (t.IsSymbol(")") || t.IsSymbol("]") || t.IsSymbol("}")) {
      if (depth == 0) return ts.Error(expected);
      depth--;
    }
    if (!first) first = &t;
    last = &t;
    ts.Next();
  }
  if (!first) return ts.Error(expected);
  return std::make_pair(first, last);
}

Result<PipeSelectItem> ParseSelectItem(TokenStream& ts) {
  ASSIGN_OR_RETURN(auto range, TakeUntil(ts, [](const Token& t) { return t.IsSymbol(",") || t.IsWord("FROM"); },
                                         "an expression in the SELECT list"));
  PipeSelectItem item;
  // `expr AS alias`: the alias is the last token after a top-level AS.
  const Token* first = range.first;
  const Token* last = range.second;
  if (last != first && last->IsIdentifier()) {
    const Token* before = last - 1;
    if (before->IsWord("AS") && before != first) {
      item.alias = last->text;
      last = before - 1;
    }
  }
  item.expr = std::string(ts.SourceText(*first, *last));
  return item;
}

Result<std::vector<std::pair<std::string, std::string>>> ParseMapArgument(TokenStream& ts) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!ts.AcceptWord("MAP")) return ts.Error("map('key', 'value', ...) as argument 12 of " + std::string(kReadKafkaArguments));
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  if (ts.AcceptSymbol(")")) return out;
  do {
    ASSIGN_OR_RETURN(std::string k, ts.ExpectString("a setting name in map('key', 'value', ...)"));
    RETURN_IF_ERROR(ts.ExpectSymbol(","));
    ASSIGN_OR_RETURN(std::string v, ExpectValue(ts, "a setting value in map('key', 'value', ...)"));
    out.emplace_back(k, v);
  } while (ts.AcceptSymbol(","));
  RETURN_IF_ERROR(ts.ExpectSymbol(")"));
  return out;
}

Status ParseReadKafka(TokenStream& ts, CreatePipe* out) {
  const Token& fn = ts.Peek();
  if (!fn.IsWord("READ_KAFKA"))
    return ts.NotSupportedAt(fn, "a pipe reads FROM READ_KAFKA(...) or FROM VOLUME vol");
  ts.Next();
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  size_t count = 0;
  if (!ts.AcceptSymbol(")")) {
    while (true) {
      const Token& t = ts.Peek();
      if (count == 11) {
        ASSIGN_OR_RETURN(out->kafka_settings, ParseMapArgument(ts));
      } else if (t.IsString()) {
        out->kafka_args.push_back(t.text);
        ts.Next();
      } else if (t.kind == TokenKind::kNumber) {
        out->kafka_args.push_back(std::string(t.raw));
        ts.Next();
      } else {
        return ts.Error("argument " + std::to_string(count + 1) + " (a string or number) of " +
                        std::string(kReadKafkaArguments));
      }
      count++;
      if (ts.AcceptSymbol(")")) break;
      if (count == 12) return ts.Error("')': " + std::string(kReadKafkaArguments) + " takes 12 arguments");
      if (!ts.AcceptSymbol(",")) return ts.Error("',' or ')' in " + std::string(kReadKafkaArguments));
    }
  }
  if (count != 12)
    return ts.ErrorAt(fn, "12 arguments, got " + std::to_string(count) + ": " + std::string(kReadKafkaArguments));
  return Status::Ok();
}

// Whether the COPY after AS reads a volume: FROM VOLUME appears in it (a Kafka pipe reads FROM READ_KAFKA).
bool IsVolumeCopy(const TokenStream& ts) {
  for (size_t i = 0; ts.Peek(i).kind != TokenKind::kEnd; i++)
    if (ts.Peek(i).IsWord("FROM") && ts.PeekWord("VOLUME", i + 1)) return true;
  return false;
}

// `COPY INTO t FROM VOLUME ...` (or its transform form) through the COPY INTO parser.
Status ParseVolumeCopy(TokenStream& ts, CreatePipe* s) {
  if (!IsCopyInto(ts)) return ts.Error("COPY INTO after AS");
  const Token& copy = ts.Peek();
  const Token* last = &copy;
  for (size_t i = 0; ts.Peek(i).kind != TokenKind::kEnd; i++) last = &ts.Peek(i);
  ASSIGN_OR_RETURN(Statement parsed, ParseCopyInto(ts));
  auto* st = std::get_if<CopyIntoFromVolume>(&parsed);
  if (!st) return ts.ErrorAt(copy, "COPY INTO table FROM VOLUME volume USING CSV|JSON|PARQUET ...");
  if (!st->files.empty())
    return Status::InvalidArgument("a volume pipe loads every new file of its volume: FILES (...) is for one-shot "
                                   "COPY INTO; choose files with SUBDIRECTORY or REGEXP");
  if (st->force)
    return Status::InvalidArgument("a volume pipe loads each file once: FORCE is for one-shot COPY INTO");
  // INTO catalog.db.table: each task commits its files in one snapshot of the Iceberg table, their identities in
  // its summary, as one-shot COPY INTO does.
  s->table_catalog = st->catalog;
  s->table_db = st->db;
  s->table = st->table;
  s->copy_text = std::string(ts.SourceText(copy, *last));
  s->volume_copy = std::make_shared<const CopyIntoFromVolume>(std::move(*st));
  return Status::Ok();
}

Result<Statement> ParseCreatePipe(TokenStream& ts) {
  CreatePipe s;
  RETURN_IF_ERROR(ts.ExpectWord("CREATE"));
  RETURN_IF_ERROR(ts.ExpectWord("PIPE"));
  s.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("a pipe name"));
  RETURN_IF_ERROR(SplitName(name, &s.db, &s.name));
  while (!ts.PeekWord("AS")) {
    if (ts.AcceptWord("COMMENT")) {
      ts.AcceptSymbol("=");
      ASSIGN_OR_RETURN(std::string c, ts.ExpectString("the comment text"));
      s.comment = c;
      continue;
    }
    if (ts.Peek().kind != TokenKind::kWord) return ts.Error("a pipe property (VIRTUAL_CLUSTER = '...', ...), COMMENT or AS");
    std::string key = AsciiUpper(ts.Next().raw);
    RETURN_IF_ERROR(ts.ExpectSymbol("="));
    ASSIGN_OR_RETURN(std::string v, ExpectValue(ts, "a quoted value for " + key));
    s.properties.emplace_back(key, v);
  }
  ts.Next();  // AS
  if (IsVolumeCopy(ts)) {
    RETURN_IF_ERROR(ParseVolumeCopy(ts, &s));
    return Statement{std::move(s)};
  }
  const Token& copy = ts.Peek();
  RETURN_IF_ERROR(ts.ExpectWord("COPY"));
  RETURN_IF_ERROR(ts.ExpectWord("INTO"));
  ASSIGN_OR_RETURN(QualifiedName table, ts.ExpectTableName("the target table"));
  // INTO catalog.db.table: a table of an external (Iceberg) catalog (default_catalog.db.t reads as db.t).
  s.table_catalog = table.catalog;
  s.table_db = table.db;
  s.table = table.name;
  RETURN_IF_ERROR(ts.ExpectWord("FROM"));
  RETURN_IF_ERROR(ts.ExpectSymbol("("));
  RETURN_IF_ERROR(ts.ExpectWord("SELECT"));
  do {
    ASSIGN_OR_RETURN(PipeSelectItem item, ParseSelectItem(ts));
    s.select.push_back(std::move(item));
  } while (ts.AcceptSymbol(","));
  RETURN_IF_ERROR(ts.ExpectWord("FROM"));
  RETURN_IF_ERROR(ParseReadKafka(ts, &s));
  if (ts.AcceptWord("WHERE")) {
    ASSIGN_OR_RETURN(auto range, TakeUntil(ts, [](const Token& t) { return t.IsSymbol(")"); },
                                           "a condition after WHERE, then ')'"));
    s.where = std::string(ts.SourceText(*range.first, *range.second));
  }
  const Token& close = ts.Peek();
  RETURN_IF_ERROR(ts.ExpectSymbol(")"));
  s.copy_text = std::string(ts.SourceText(copy, close));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(s)};
}

Result<Statement> ParseDropPipe(TokenStream& ts) {
  DropPipe s;
  ts.Next();  // DROP
  ts.Next();  // PIPE
  s.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("a pipe name"));
  RETURN_IF_ERROR(SplitName(name, &s.db, &s.name));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(s)};
}

Result<Statement> ParseAlterPipe(TokenStream& ts) {
  AlterPipe s;
  ts.Next();  // ALTER
  ts.Next();  // PIPE
  ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("a pipe name"));
  RETURN_IF_ERROR(SplitName(name, &s.db, &s.name));
  if (ts.AcceptWord("EXECUTE")) {
    s.execute = true;
  } else {
    RETURN_IF_ERROR(ts.ExpectWord("SET"));
    if (ts.PeekWord("COPY") || ts.PeekWord("AS"))
      return ts.NotSupportedAt(ts.Peek(), "the COPY statement of a pipe cannot change; drop and create the pipe");
    if (ts.Peek().kind != TokenKind::kWord) return ts.Error("a pipe property, e.g. PIPE_EXECUTION_PAUSED = true");
    s.property = AsciiUpper(ts.Next().raw);
    RETURN_IF_ERROR(ts.ExpectSymbol("="));
    ASSIGN_OR_RETURN(s.value, ExpectValue(ts, "a value for " + s.property));
    if (ts.PeekSymbol(","))
      return ts.Complain(ts.Peek(), "ALTER PIPE sets one property per statement");
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(s)};
}

Result<Statement> ParseShowPipes(TokenStream& ts) {
  ShowPipes s;
  ts.Next();  // SHOW
  ts.Next();  // PIPES
  if (ts.AcceptWord("FROM") || ts.AcceptWord("IN")) {
    ASSIGN_OR_RETURN(s.db, ts.ExpectIdentifier("a database name"));
  }
  if (ts.AcceptWord("LIKE")) {
    ASSIGN_OR_RETURN(std::string like, ts.ExpectString("a pattern after LIKE"));
    s.like = like;
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(s)};
}

Result<Statement> ParseDescPipe(TokenStream& ts) {
  DescPipe s;
  ts.Next();  // DESC
  ts.Next();  // PIPE
  s.extended = ts.AcceptWord("EXTENDED");
  ASSIGN_OR_RETURN(QualifiedName name, ts.ExpectQualifiedName("a pipe name"));
  RETURN_IF_ERROR(SplitName(name, &s.db, &s.name));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(s)};
}

// The properties CREATE VCLUSTER and ALTER VCLUSTER ... SET take, in any order (commas between them optional).
struct VclusterProperties {
  std::optional<int64_t> size;
  std::optional<std::vector<std::string>> nodes;
};

// `every_node`: NODES = () is accepted (ALTER: back to every node); CREATE leaves NODES out for that.
// `expected`: what the statement takes, for the error on anything else.
Result<VclusterProperties> ParseVclusterProperties(TokenStream& ts, bool every_node, std::string_view expected) {
  VclusterProperties p;
  while (!ts.AtEnd()) {
    if (ts.AcceptWord("SIZE") || ts.AcceptWord("VCLUSTER_SIZE")) {
      ts.AcceptSymbol("=");
      const Token& t = ts.Peek();
      std::string text = t.IsString() ? t.text : std::string(t.raw);
      if (!t.IsString() && t.kind != TokenKind::kNumber) return ts.Error("a whole number of tasks after SIZE");
      if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos ||
          std::stoll(text) < 1)
        return ts.Complain(t, "the size of a virtual cluster is a whole number of tasks from 1 to 999999");
      ts.Next();
      p.size = std::stoll(text);
    } else if (ts.AcceptWord("COMMENT")) {
      ts.AcceptSymbol("=");
      ASSIGN_OR_RETURN(std::string ignored, ts.ExpectString("the comment text"));
      (void)ignored;
    } else if (ts.AcceptWord("NODES")) {
      // NODES = ('n1', 'n2'): the cluster nodes that run the virtual cluster's pipes, by SHOW NODES' names.
      ts.AcceptSymbol("=");
      RETURN_IF_ERROR(ts.ExpectSymbol("("));
      std::vector<std::string> nodes;
      if (!(every_node && ts.PeekSymbol(")"))) {
        do {
          ASSIGN_OR_RETURN(std::string node, ts.ExpectString("a node name in quotes, as SHOW NODES lists it"));
          if (node.empty()) return ts.Error("a node name (NODES = ('n1', 'n2'))");
          if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(std::move(node));
        } while (ts.AcceptSymbol(","));
      }
      RETURN_IF_ERROR(ts.ExpectSymbol(")"));
      p.nodes = std::move(nodes);
    } else {
      return ts.Error(expected);
    }
    ts.AcceptSymbol(",");
  }
  return p;
}

Result<Statement> ParseVcluster(TokenStream& ts) {
  const Token& verb = ts.Next();
  if (verb.IsWord("SHOW")) {
    ts.Next();  // VCLUSTERS
    ShowVclusters s;
    if (ts.AcceptWord("LIKE")) {
      ASSIGN_OR_RETURN(std::string like, ts.ExpectString("a pattern after LIKE"));
      s.like = like;
    }
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(s)};
  }
  ts.Next();  // VCLUSTER
  if (verb.IsWord("DROP")) {
    DropVcluster s;
    s.if_exists = ts.AcceptWords({"IF", "EXISTS"});
    ASSIGN_OR_RETURN(s.name, ts.ExpectIdentifier("a virtual cluster name"));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(s)};
  }
  if (verb.IsWord("ALTER")) {
    AlterVcluster s;
    s.if_exists = ts.AcceptWords({"IF", "EXISTS"});
    ASSIGN_OR_RETURN(s.name, ts.ExpectIdentifier("a virtual cluster name"));
    RETURN_IF_ERROR(ts.ExpectWord("SET"));
    constexpr std::string_view kAlterable = "VCLUSTER_SIZE = n and/or NODES = ('node', ...) (NODES = (): every node)";
    if (ts.AtEnd()) return ts.Error(kAlterable);
    ASSIGN_OR_RETURN(VclusterProperties p, ParseVclusterProperties(ts, true, kAlterable));
    if (!p.size && !p.nodes) return ts.Error(kAlterable);  // COMMENT alone
    s.size = p.size;
    s.nodes = std::move(p.nodes);
    return Statement{std::move(s)};
  }
  CreateVcluster s;
  s.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(s.name, ts.ExpectIdentifier("a virtual cluster name"));
  ASSIGN_OR_RETURN(VclusterProperties p,
                   ParseVclusterProperties(ts, false, "VCLUSTER_SIZE = n (or SIZE n) [NODES = ('node', ...)]"));
  if (!p.size) return ts.Error("VCLUSTER_SIZE = n (or SIZE n)");
  s.size = *p.size;
  if (p.nodes) s.nodes = std::move(*p.nodes);
  return Statement{std::move(s)};
}

}  // namespace

bool IsPipeStatement(const TokenStream& ts) {
  const Token& a = ts.Peek();
  const Token& b = ts.Peek(1);
  if ((a.IsWord("CREATE") || a.IsWord("DROP") || a.IsWord("ALTER") || a.IsWord("DESC") || a.IsWord("DESCRIBE")) &&
      b.IsWord("PIPE"))
    return true;
  if ((a.IsWord("CREATE") || a.IsWord("DROP") || a.IsWord("ALTER")) && b.IsWord("VCLUSTER")) return true;
  return a.IsWord("SHOW") && (b.IsWord("PIPES") || b.IsWord("VCLUSTERS"));
}

Result<Statement> ParsePipeStatement(TokenStream& ts) {
  const Token& a = ts.Peek();
  if (ts.PeekWord("VCLUSTER", 1) || ts.PeekWord("VCLUSTERS", 1)) return ParseVcluster(ts);
  if (a.IsWord("CREATE")) return ParseCreatePipe(ts);
  if (a.IsWord("DROP")) return ParseDropPipe(ts);
  if (a.IsWord("ALTER")) return ParseAlterPipe(ts);
  if (a.IsWord("SHOW")) return ParseShowPipes(ts);
  return ParseDescPipe(ts);
}

}  // namespace sluice::sql
