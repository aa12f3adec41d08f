// TranslateForDuckDB: rewrites the MySQL-isms of passed-through SQL token by token and copies everything else
// byte for byte, so DuckDB's error positions still match what the user wrote wherever nothing was rewritten.
// The rules (and why) are listed in README.md.
#include <algorithm>
#include <array>
#include <deque>
#include <optional>

#include "common/ascii.h"
#include "common/json_nesting.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "sql/translate_driver_sql.h"
#include "sql/translate_lambdas.h"

namespace sluice::sql {

namespace {

// Keywords after which a SELECT's item list is over; a bare `@@x` before one of them is a whole select item.
constexpr std::array<std::string_view, 17> kClauseWords = {
    "FROM", "WHERE", "GROUP", "HAVING", "ORDER",  "LIMIT", "UNION",     "EXCEPT", "INTERSECT",
    "INTO", "WINDOW", "QUALIFY", "OFFSET", "FETCH", "ON",   "RETURNING", "FOR"};

// MySQL charset introducers (`_utf8mb4'abc'`): DuckDB strings are UTF-8 already, so the introducer goes.
constexpr std::array<std::string_view, 6> kIntroducers = {"_utf8mb4", "_utf8", "_utf8mb3", "_latin1", "_ascii",
                                                          "_binary"};

bool IsClauseWord(const Token& t) {
  for (std::string_view k : kClauseWords) {
    if (t.IsWord(k)) return true;
  }
  return false;
}

// MySQL hands integers back as numbers (@@autocommit is 1, not '1'); everything else is a string.
bool IsPlainInteger(std::string_view v) {
  if (!v.empty() && v[0] == '-') v.remove_prefix(1);
  if (v.empty() || v.size() > 18 || (v[0] == '0' && v.size() > 1)) return false;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A string value as a DuckDB literal. DuckDB cannot take a NUL byte inside a literal, so NULs (MySQL's \0) become
// chr(0) pieces.
std::string StringLiteral(std::string_view value) {
  if (value.find('\0') == std::string_view::npos) return QuoteLiteral(value);
  std::string out = "(";
  size_t start = 0;
  while (true) {
    size_t nul = value.find('\0', start);
    out += QuoteLiteral(value.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    out += " || chr(0) || ";
    start = nul + 1;
  }
  return out + ")";
}

bool Contains(std::string_view s, char c) { return s.find(c) != std::string_view::npos; }

// Reads tokens through a window of a few significant tokens, so memory stays flat however long the statement.
class Translator {
 public:
  Translator(std::string_view sql, const SessionContext& session)
      : sql_(sql), session_(session), reader_(sql, /*keep_comments=*/true) {
    frames_.emplace_back();
    out_.reserve(sql.size() + 16);
  }

  std::string Run() {
    while (Ahead(0) != nullptr) {
      CopyUpTo(ahead_[0].offset);
      size_t consumed = TranslateCurrent();  // significant tokens used up, at least 1
      copied_to_ = ahead_[consumed - 1].end();
      prev_ = std::move(ahead_[consumed - 1]);
      ahead_.erase(ahead_.begin(), ahead_.begin() + static_cast<std::ptrdiff_t>(consumed));
    }
    CopyUpTo(sql_.size());
    return std::move(out_);
  }

 private:
  // What the parser of the surrounding SQL would know, kept per parenthesis level.
  struct Frame {
    bool select_list = false;  // between SELECT and its FROM/WHERE/...
    bool values = false;       // after VALUES: parenthesized groups at this level are rows of values
    bool value_list = false;   // this parenthesis is a VALUES row or an IN (...) list
    bool from_list = false;    // between FROM and its WHERE/GROUP/...: a ',' starts another table
  };

  // The i-th significant token from the current one (0), or null past the end.
  const Token* Ahead(size_t i) {
    while (ahead_.size() <= i && !at_end_) {
      Token t = reader_.Next();
      if (t.kind == TokenKind::kEnd) {
        at_end_ = true;
      } else if (t.kind == TokenKind::kComment) {
        comments_.push_back(std::move(t));
      } else {
        ahead_.push_back(std::move(t));
      }
    }
    return i < ahead_.size() ? &ahead_[i] : nullptr;
  }
  // The significant token before the current one.
  const Token* Prev() const { return prev_ ? &*prev_ : nullptr; }

  // Copies source text (whitespace and comments) up to `offset`; MySQL's `#` comments become `--` ones.
  void CopyUpTo(size_t offset) {
    while (!comments_.empty() && comments_.front().offset < offset) {
      const Token c = std::move(comments_.front());
      comments_.pop_front();
      if (c.offset < copied_to_) continue;  // inside tokens a rewrite dropped
      Append(sql_.substr(copied_to_, c.offset - copied_to_), false);
      if (c.IsExecutableCommentMarker()) {
        Append(" ", false);  // its content is statement text now; the marker must not make DuckDB skip it
      } else if (c.raw[0] == '#') {
        Append("--", false);
        Append(c.raw.substr(1), false);
      } else {
        Append(c.raw, false);
      }
      copied_to_ = c.end();
    }
    if (offset > copied_to_) Append(sql_.substr(copied_to_, offset - copied_to_), false);
    copied_to_ = std::max(copied_to_, offset);
  }

  // Rewritten text may touch its neighbours where the original had none between different tokens; a space keeps
  // `NULL` from gluing onto a word and `-5` from turning a preceding '-' into a comment.
  void Append(std::string_view s, bool rewritten) {
    if (s.empty()) return;
    if ((rewritten || last_rewritten_) && !out_.empty()) {
      char a = out_.back(), b = s.front();
      bool glue = (IsIdentifierChar(a) && (IsIdentifierChar(b) || b == '\'' || b == '"')) || (a == '-' && b == '-') ||
                  (a == '/' && b == '*') || (a == '\'' && b == '\'') || (a == '"' && b == '"');
      if (glue) out_.push_back(' ');
    }
    out_.append(s);
    last_rewritten_ = rewritten;
  }

  // Translates the current token (and any it swallows); returns how many significant tokens it used up.
  size_t TranslateCurrent() {
    if (size_t used = InformationSchemaReference()) return used;
    const Token& t = *Ahead(0);
    switch (t.kind) {
      case TokenKind::kQuotedIdent: {
        if (IsGuardedJsonCall()) {
          if (size_t used = JsonNestingGuardedCall()) return used;
        }
        Append(QuoteIdentifier(Ahead(0)->text), true);
        return 1;
      }
      case TokenKind::kString:
        // MySQL strings know backslash escapes, DuckDB's do not: 'it\'s' must reach DuckDB as 'it''s'. DuckDB's
        // own escape strings (E'\n') already mean what they say.
        if (Contains(t.raw, '\\') && !IsEscapeStringPrefix(Prev(), t)) {
          Append(StringLiteral(t.text), true);
        } else {
          Append(t.raw, false);
        }
        return 1;
      case TokenKind::kDoubleQuoted:
        if (IsGuardedJsonCall()) {
          if (size_t used = JsonNestingGuardedCall()) return used;
        }
        if (IsValuePosition()) {
          Append(StringLiteral(t.text), true);
        } else {
          Append(t.raw, false);
        }
        return 1;
      case TokenKind::kVariable:
        Append(t.raw.substr(0, 2) == "@@" ? VariableValue(t.raw) : UserVariableValue(t), true);
        AliasIfSelectItem(1);
        return 1;
      case TokenKind::kSymbol:
        // MySQL's NULL-safe equality.
        if (t.IsSymbol("<=>")) {
          Append(" IS NOT DISTINCT FROM ", true);
          return 1;
        }
        TrackSymbol(t);
        break;
      case TokenKind::kWord:
        return TranslateWord();
      default:
        break;
    }
    Append(t.raw, false);
    return 1;
  }

  size_t TranslateWord() {
    const Token* n1 = Ahead(1);
    const Token* n2 = Ahead(2);
    const Token* n3 = Ahead(3);
    const Token& t = *Ahead(0);  // after the look-ahead: the deque may have moved its elements
    // LIMIT offset, count -> LIMIT count OFFSET offset
    if (t.IsWord("LIMIT") && n1 && n2 && n3 && n1->kind == TokenKind::kNumber && n2->IsSymbol(",") &&
        n3->kind == TokenKind::kNumber) {
      EndClause();
      Append(std::string(t.raw) + " " + std::string(n3->raw) + " OFFSET " + std::string(n1->raw), true);
      return 4;
    }
    // SELECT 1 FROM DUAL: DuckDB needs no FROM at all.
    if (t.IsWord("FROM") && n1 && n1->IsWord("DUAL") && !(n2 && (n2->IsSymbol(".") || n2->IsSymbol(",")))) {
      EndClause();
      return 2;
    }
    if (n1 && n2 && n1->IsSymbol("(") && n2->IsSymbol(")") && !NamesAnObject(Prev())) {
      if (std::optional<std::string> value = SessionFunction(t)) {
        Append(*value, true);
        AliasIfSelectItem(3);
        return 3;
      }
    }
    if (n1 && n1->IsSymbol("(") && IsHigherOrderFunction(t) && !(Prev() && Prev()->IsSymbol("."))) {
      if (size_t used = HigherOrderCall(RewriteHigherOrderCall)) return used;
    }
    if (n1 && n1->IsSymbol("(") && IsDriverCall(t) && !(Prev() && Prev()->IsSymbol("."))) {
      if (size_t used = HigherOrderCall(RewriteDriverCall)) return used;
    }
    if (n1 && n1->IsSymbol("(") && t.IsWord("STR_TO_DATE") && !(Prev() && Prev()->IsSymbol("."))) {
      if (size_t used = HigherOrderCall(RewriteStrToDate)) {
        AliasIfSelectItem(used);  // named as written, as MySQL names it, not after the CAST around it
        return used;
      }
    }
    // CAST(x AS SIGNED [INTEGER]) / AS UNSIGNED [INTEGER]: MySQL's integer cast types.
    if (Prev() && Prev()->IsWord("AS")) {
      if (std::optional<std::string> type = CastTypeFor(t)) {
        size_t used = n1 && (n1->IsWord("INTEGER") || n1->IsWord("INT")) ? 2 : 1;
        const Token* after = Ahead(used);
        if (after && after->IsSymbol(")")) {
          Append(*type, true);
          return used;
        }
      }
    }
    // COLLATION is a column of SHOW/information_schema results that DuckDB's grammar reads as a keyword.
    if (t.IsWord("COLLATION") && !(n1 && (n1->IsSymbol("(") || n1->IsSymbol(".")))) {
      Append(QuoteIdentifier(t.raw), true);
      return 1;
    }
    // `SELECT 3 TYPE`: an alias DuckDB needs AS for.
    if (frames_.back().select_list && NeedsExplicitAlias(t) && EndsValue(Prev()) &&
        (!n1 || n1->IsSymbol(",") || n1->IsSymbol(")") || n1->IsSymbol(";") || n1->IsWord("FROM"))) {
      Append("AS " + std::string(t.raw), true);
      return 1;
    }
    // START TRANSACTION WITH CONSISTENT SNAPSHOT (mariadb-dump --single-transaction): every DuckDB transaction
    // reads one snapshot from its start, which is what the clause asks for.
    if (t.IsWord("WITH") && n1 && n1->IsWord("CONSISTENT") && n2 && n2->IsWord("SNAPSHOT") && Prev() &&
        Prev()->IsWord("TRANSACTION"))
      return 3;
    if (IsGuardedJsonCall()) {
      if (size_t used = JsonNestingGuardedCall()) return used;
    }
    if (t.IsWord("GROUP_CONCAT") && n1 && n1->IsSymbol("(") && !(Prev() && Prev()->IsSymbol("."))) {
      if (size_t used = GroupConcatCall()) return used;
    }
    // a DIV b: MySQL's integer division, which truncates toward zero as DuckDB's // does on integers.
    if (t.IsWord("DIV") && Prev() && n1 && EndsOperand(*Prev()) && StartsOperand(*n1)) {
      Append("//", true);
      return 1;
    }
    // SELECT SQL_NO_CACHE ... (mariadb-dump's `SELECT /*!40001 SQL_NO_CACHE */ * FROM t`): query-cache and
    // scheduling hints mean nothing to DuckDB and are dropped.
    if (IsSelectModifier(t) && Prev() && (Prev()->IsWord("SELECT") || IsSelectModifier(*Prev())) && n1 &&
        StartsOperand(*n1))
      return 1;
    if (Prev() && Prev()->IsWord("AS")) {
      if (size_t used = CastTarget()) return used;
    }
    if (t.IsWord("DIRECTORY") && n1 && n1->IsSymbol("(") && Prev() &&
        (Prev()->IsWord("FROM") || Prev()->IsWord("JOIN") || Prev()->IsSymbol(","))) {
      if (size_t used = DirectoryCall()) return used;
    }
    if (n1 && n1->kind == TokenKind::kString) {
      for (std::string_view intro : kIntroducers) {
        if (t.IsWord(intro)) return 1;
      }
      if (t.IsWord("N") && n1->offset == t.end()) return 1;  // N'text': national strings are plain strings
    }
    if (t.IsWord("SELECT")) {
      frames_.back().select_list = true;
      frames_.back().values = false;
    } else if (t.IsWord("VALUES")) {
      frames_.back().values = true;
      frames_.back().select_list = false;
    } else if (IsClauseWord(t)) {
      EndClause();
      if (t.IsWord("FROM")) frames_.back().from_list = true;
    }
    Append(t.raw, false);
    return 1;
  }

  // information_schema.X (any case, quoted or not) and, with information_schema the current database, a bare X
  // right after FROM / JOIN / a FROM list's comma: the session's relation for X, aliased to X unless the query
  // gives its own alias, so `tables.table_name` still resolves. Returns the tokens used, 0 when not such a name.
  size_t InformationSchemaReference() {
    if (!session_.information_schema) return 0;
    const Token& t = *Ahead(0);
    if (!t.IsIdentifier() || (Prev() && Prev()->IsSymbol("."))) return 0;
    size_t used = 0;
    std::string name;
    const Token* dot = Ahead(1);
    const Token* view = Ahead(2);
    if (EqualsIgnoreCase(t.text, "information_schema") && dot && dot->IsSymbol(".") && view && view->IsIdentifier()) {
      const Token* after = Ahead(3);
      if (after && (after->IsSymbol(".") || after->IsSymbol("("))) return 0;  // a column or a function, not a table
      name = view->text;
      used = 3;
    } else if (EqualsIgnoreCase(session_.current_database, "information_schema") && InTablePosition() &&
               !t.IsWord("DUAL")) {
      if (dot && (dot->IsSymbol(".") || dot->IsSymbol("("))) return 0;
      name = ahead_[0].text;
      used = 1;
    } else {
      return 0;
    }
    std::string relation = session_.information_schema(AsciiLower(name));
    const Token* next = Ahead(used);
    bool aliased = next && (next->IsWord("AS") || (next->kind == TokenKind::kQuotedIdent) ||
                            (next->kind == TokenKind::kWord && !IsClauseWord(*next) && !IsJoinWord(*next)));
    if (!aliased) relation += " AS " + QuoteIdentifier(name);
    Append(relation, true);
    return used;
  }

  bool InTablePosition() const {
    const Token* prev = Prev();
    if (!prev) return false;
    if (prev->IsWord("FROM") || prev->IsWord("JOIN")) return true;
    return prev->IsSymbol(",") && frames_.back().from_list;
  }

  static bool IsJoinWord(const Token& t) {
    for (std::string_view w : {"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "OUTER", "USING",
                               "SEMI", "ANTI", "POSITIONAL", "ASOF", "LATERAL", "TABLESAMPLE", "USING"}) {
      if (t.IsWord(w)) return true;
    }
    return false;
  }

  // array_filter(x -> ..., arr) and the other StarRocks higher-order calls (translate_lambdas.h): the whole call,
  // read ahead to its closing parenthesis, is rewritten. Returns the tokens used, 0 when it is left as written.
  using CallRewrite = std::optional<std::string> (*)(const Token&, std::string_view, const SessionContext&);

  // Whether `prev` ends a value for sure, so a word after it can only be an alias.
  static bool EndsValue(const Token* prev) {
    if (!prev) return false;
    if (prev->kind == TokenKind::kNumber || prev->kind == TokenKind::kString || prev->kind == TokenKind::kQuotedIdent)
      return true;
    return prev->IsSymbol(")") || prev->IsWord("NULL") || prev->IsWord("END") || prev->IsWord("TRUE") ||
           prev->IsWord("FALSE");
  }

  size_t HigherOrderCall(CallRewrite rewrite) {
    constexpr size_t kMaxTokens = 100000;  // a longer call passes through as written
    size_t depth = 0;
    for (size_t i = 1; i < kMaxTokens; i++) {
      const Token* t = Ahead(i);
      if (t == nullptr) return 0;
      if (t->IsSymbol("(") || t->IsSymbol("[") || t->IsSymbol("{")) depth++;
      if (t->IsSymbol(")") || t->IsSymbol("]") || t->IsSymbol("}")) depth--;
      if (t->IsSymbol(";")) return 0;
      if (depth != 0) continue;
      size_t begin = ahead_[1].end();
      std::optional<std::string> call =
          rewrite(ahead_[0], sql_.substr(begin, ahead_[i].offset - begin), session_);
      if (!call) return 0;
      Append(*call, true);
      return i + 1;
    }
    return 0;
  }

  // After AS, the MySQL cast targets DuckDB reads otherwise (SIGNED/UNSIGNED are handled above with CastTypeFor):
  // DECIMAL without precision -> DECIMAL(10,0) (MySQL's default; DuckDB's is (18,3)) and BINARY -> BLOB, each only
  // when `)` follows, so an alias stays one. Returns the tokens used (0: none).
  size_t CastTarget() {
    const Token& t = *Ahead(0);
    if ((t.IsWord("DECIMAL") || t.IsWord("DEC") || t.IsWord("NUMERIC")) && Ahead(1) && Ahead(1)->IsSymbol(")")) {
      Append("DECIMAL(10,0)", true);
      return 1;
    }
    if (t.IsWord("BINARY") && Ahead(1) && Ahead(1)->IsSymbol(")")) {
      Append("BLOB", true);
      return 1;
    }
    return 0;
  }

  // json_structure(a, ...) and the other JSON functions that recurse per nesting level (common/json_nesting.h) ->
  // json_structure(sluice_json_nesting_guard((a)), ...): every argument is checked at run time, where its value
  // exists. A leading DISTINCT / ALL (of json_group_structure) stays outside. Reads to the closing parenthesis
  // however long the call is; returns 0 (left as written, a syntax error for DuckDB) only when there is none.
  // The current token (a word, `quoted` or "double-quoted") names one of those functions and a call follows.
  bool IsGuardedJsonCall() {
    const Token* n1 = Ahead(1);
    return n1 && n1->IsSymbol("(") && IsNestingGuardedJsonFunction(AsciiLower(Ahead(0)->text)) &&
           !(Prev() && Prev()->IsSymbol("."));
  }

  size_t JsonNestingGuardedCall() {
    size_t depth = 0;
    for (size_t i = 1;; i++) {
      const Token* t = Ahead(i);
      if (t == nullptr) return 0;
      if (t->IsSymbol("(") || t->IsSymbol("[") || t->IsSymbol("{")) depth++;
      if (t->IsSymbol(")") || t->IsSymbol("]") || t->IsSymbol("}")) depth--;
      if (depth != 0) continue;
      auto text = [&](size_t from, size_t to) {  // source text of tokens [from, to)
        return sql_.substr(ahead_[from].offset, ahead_[to - 1].end() - ahead_[from].offset);
      };
      std::string call = ahead_[0].kind == TokenKind::kWord ? std::string(ahead_[0].raw)
                                                            : QuoteIdentifier(ahead_[0].text);
      call += "(";
      size_t first = 2;
      if (first < i && (ahead_[first].IsWord("DISTINCT") || ahead_[first].IsWord("ALL"))) {
        call += std::string(ahead_[first].raw) + " ";
        first++;
      }
      size_t from = first, d = 0;
      bool any = false;
      for (size_t k = first; k <= i && first < i; k++) {
        if (k < i) {
          const Token& x = ahead_[k];
          if (x.IsSymbol("(") || x.IsSymbol("[") || x.IsSymbol("{")) d++;
          if (x.IsSymbol(")") || x.IsSymbol("]") || x.IsSymbol("}")) d--;
          if (!(d == 0 && x.IsSymbol(","))) continue;
        }
        call += std::string(any ? ", " : "") + std::string(kJsonNestingGuard) + "((" +
                (k > from ? TranslateForDuckDB(text(from, k), session_) : std::string()) + "))";
        any = true;
        from = k + 1;
      }
      Append(call + ")", true);
      AliasIfSelectItem(i + 1);
      return i + 1;
    }
  }

  // GROUP_CONCAT([DISTINCT] e [, e ...] [ORDER BY ...] [SEPARATOR 's']) -> string_agg([DISTINCT] CAST(e AS
  // VARCHAR), 's' [ORDER BY ...]); several expressions are concatenated, the separator defaults to ','.
  // Each piece is translated on its own. Returns the tokens used, 0 when it is left as written.
  size_t GroupConcatCall() {
    constexpr size_t kMaxTokens = 100000;
    size_t depth = 0;
    size_t order_at = 0, separator_at = 0;  // token indexes (0: absent)
    for (size_t i = 1; i < kMaxTokens; i++) {
      const Token* t = Ahead(i);
      if (t == nullptr || t->IsSymbol(";")) return 0;
      if (t->IsSymbol("(") || t->IsSymbol("[") || t->IsSymbol("{")) depth++;
      if (t->IsSymbol(")") || t->IsSymbol("]") || t->IsSymbol("}")) depth--;
      if (depth == 1 && t->IsWord("ORDER") && Ahead(i + 1) && Ahead(i + 1)->IsWord("BY") && !order_at) order_at = i;
      if (depth == 1 && t->IsWord("SEPARATOR")) separator_at = i;
      if (depth != 0) continue;
      auto text = [&](size_t from, size_t to) {  // source text of tokens [from, to)
        return sql_.substr(ahead_[from].offset, ahead_[to - 1].end() - ahead_[from].offset);
      };
      size_t items_end = order_at ? order_at : separator_at ? separator_at : i;
      size_t first = 2;
      std::string distinct;
      if (first < items_end && ahead_[first].IsWord("DISTINCT")) {
        distinct = "DISTINCT ";
        first++;
      }
      if (first >= items_end) return 0;
      std::vector<std::string> items;
      size_t item_from = first, d = 0;
      for (size_t k = first; k <= items_end; k++) {
        if (k < items_end) {
          const Token& x = ahead_[k];
          if (x.IsSymbol("(") || x.IsSymbol("[") || x.IsSymbol("{")) d++;
          if (x.IsSymbol(")") || x.IsSymbol("]") || x.IsSymbol("}")) d--;
          if (!(d == 0 && x.IsSymbol(","))) continue;
        }
        if (k == item_from) return 0;
        items.push_back("CAST((" + TranslateForDuckDB(text(item_from, k), session_) + ") AS VARCHAR)");
        item_from = k + 1;
      }
      std::string value = items[0];
      if (items.size() > 1) {
        value = "concat(";
        for (size_t k = 0; k < items.size(); k++) value += (k ? ", " : "") + items[k];
        value += ")";
      }
      std::string separator = "','";
      if (separator_at) {
        if (separator_at + 2 != i || !ahead_[separator_at + 1].IsString()) return 0;
        separator = StringLiteral(ahead_[separator_at + 1].text);
      }
      std::string order;
      if (order_at) order = " " + TranslateForDuckDB(text(order_at, separator_at ? separator_at : i), session_);
      Append("string_agg(" + distinct + value + ", " + separator + order + ")", true);
      AliasIfSelectItem(i + 1);
      return i + 1;
    }
    return 0;
  }

  // FROM DIRECTORY(vol), DIRECTORY(VOLUME vol) or DIRECTORY('vol') -> sluice_directory('vol'), the table function
  // that lists a volume's files. Returns the tokens used, 0 when the call has another shape.
  size_t DirectoryCall() {
    const Token* a = Ahead(2);
    const Token* b = Ahead(3);
    const Token* c = Ahead(4);
    if (!a || !b) return 0;
    if (a->IsWord("VOLUME") && b->IsIdentifier() && c && c->IsSymbol(")")) {
      Append(std::string(kDirectoryFunction) + "(" + QuoteLiteral(b->text) + ")", true);
      return 5;
    }
    if ((a->IsIdentifier() || a->kind == TokenKind::kString) && b->IsSymbol(")")) {
      Append(std::string(kDirectoryFunction) + "(" + QuoteLiteral(a->text) + ")", true);
      return 4;
    }
    return 0;
  }

  // Whether a token can end / start an operand of a binary operator (`a DIV b`): not a keyword that begins or
  // separates clauses, so `SELECT div FROM t` keeps its column.
  static bool IsOperatorContextWord(const Token& t) {
    for (std::string_view w : {"SELECT", "DISTINCT", "ALL", "WHERE", "AND", "OR", "NOT", "ON", "BY", "WHEN", "THEN",
                               "ELSE", "HAVING", "SET", "AS", "CASE", "IN", "IS", "LIKE", "BETWEEN"}) {
      if (t.IsWord(w)) return true;
    }
    return IsClauseWord(t);
  }
  static bool EndsOperand(const Token& t) {
    if (t.kind == TokenKind::kWord) return !IsOperatorContextWord(t);
    return t.IsIdentifier() || t.kind == TokenKind::kNumber || t.IsString() || t.kind == TokenKind::kVariable ||
           t.IsSymbol(")") || t.IsSymbol("]");
  }
  static bool StartsOperand(const Token& t) {
    if (t.kind == TokenKind::kWord) return !IsOperatorContextWord(t);
    return t.IsIdentifier() || t.kind == TokenKind::kNumber || t.IsString() || t.kind == TokenKind::kVariable ||
           t.IsSymbol("(") || t.IsSymbol("-") || t.IsSymbol("+") || t.IsSymbol("*") || t.IsSymbol("[");
  }

  static bool IsSelectModifier(const Token& t) {
    for (std::string_view w : {"SQL_NO_CACHE", "SQL_CACHE", "HIGH_PRIORITY", "SQL_BUFFER_RESULT", "SQL_SMALL_RESULT",
                               "SQL_BIG_RESULT", "STRAIGHT_JOIN"}) {
      if (t.IsWord(w)) return true;
    }
    return false;
  }

  static bool IsEscapeStringPrefix(const Token* prev, const Token& string) {
    return prev != nullptr && prev->IsWord("E") && prev->end() == string.offset;
  }

  // `user()` after INTO, a '.' or FUNCTION is a table or a function being defined, not MySQL's USER().
  static bool NamesAnObject(const Token* prev) {
    if (prev == nullptr) return false;
    if (prev->IsSymbol(".")) return true;
    for (std::string_view w : {"INTO", "TABLE", "FROM", "JOIN", "UPDATE", "FUNCTION", "MACRO"}) {
      if (prev->IsWord(w)) return true;
    }
    return false;
  }

  void EndClause() {
    frames_.back().select_list = false;
    frames_.back().values = false;
    frames_.back().from_list = false;
  }

  void TrackSymbol(const Token& t) {
    if (t.IsSymbol("(")) {
      const Token* prev = Prev();
      Frame f;
      f.value_list = prev && (prev->IsWord("IN") || (frames_.back().values && (prev->IsWord("VALUES") ||
                                                                                  prev->IsSymbol(","))));
      frames_.push_back(f);
    } else if (t.IsSymbol(")")) {
      if (frames_.size() > 1) frames_.pop_back();
    } else if (t.IsSymbol(";")) {
      frames_.assign(1, Frame{});
    }
  }

  // MySQL reads "x" as a string, DuckDB as a name. Only where a value is certain does it become a string literal:
  // after a comparison, LIKE, THEN/ELSE/WHEN or DEFAULT, and as an item of a VALUES row or an IN list.
  // Everywhere else it stays a name ("t"."c", CREATE TABLE "t", SELECT "c" FROM ...).
  bool IsValuePosition() {
    const Token* next = Ahead(1);
    if (next && next->IsSymbol(".")) return false;
    const Token* prev = Prev();
    if (prev == nullptr) return false;
    for (std::string_view op : {"=", "<>", "!=", "<", ">", "<=", ">=", "<=>"}) {
      if (prev->IsSymbol(op)) return true;
    }
    for (std::string_view w : {"LIKE", "ILIKE", "THEN", "ELSE", "WHEN", "DEFAULT"}) {
      if (prev->IsWord(w)) return true;
    }
    return frames_.back().value_list && (prev->IsSymbol("(") || prev->IsSymbol(","));
  }

  // @@[session.|global.|local.]name -> its value as a literal, or NULL for an unknown variable.
  std::string VariableValue(std::string_view raw) const {
    std::string_view name = raw.substr(2);
    for (std::string_view scope : {"global.", "session.", "local."}) {
      if (name.size() > scope.size() && EqualsIgnoreCase(name.substr(0, scope.size()), scope)) {
        name.remove_prefix(scope.size());
        break;
      }
    }
    std::optional<std::string> value;
    if (session_.variable) value = session_.variable(AsciiLower(name));
    if (!value) return "NULL";
    if (IsPlainInteger(*value)) return (*value)[0] == '-' ? "(" + *value + ")" : *value;
    return StringLiteral(*value);
  }

  // @name (also @`name`, @'name') -> the literal SET @name gave it, or NULL, as MySQL reads an unset one.
  std::string UserVariableValue(const Token& t) const {
    std::string_view name = t.raw.substr(1);
    if (name.size() >= 2 && (name[0] == '`' || name[0] == '\'' || name[0] == '"')) name = name.substr(1, name.size() - 2);
    std::optional<std::string> literal;
    if (session_.user_variable) literal = session_.user_variable(AsciiLower(name));
    return literal ? "(" + *literal + ")" : "NULL";
  }

  // DATABASE(), USER(), VERSION(), CONNECTION_ID() ...: answered from the session, as MySQL would.
  std::optional<std::string> SessionFunction(const Token& t) const {
    if (t.IsWord("DATABASE") || t.IsWord("SCHEMA")) {
      return session_.current_database.empty() ? std::string("NULL") : StringLiteral(session_.current_database);
    }
    for (std::string_view f : {"USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER"}) {
      if (t.IsWord(f)) return StringLiteral(session_.user);
    }
    if (t.IsWord("VERSION")) return StringLiteral(session_.version);
    if (t.IsWord("CONNECTION_ID")) return std::to_string(session_.connection_id);
    return std::nullopt;
  }

  // A select item that is exactly `@@name` or `DATABASE()` (the current `count` tokens) gets the column name MySQL
  // gives it: its own text.
  void AliasIfSelectItem(size_t count) {
    if (!frames_.back().select_list) return;
    const Token* prev = Prev();
    if (!prev || !(prev->IsWord("SELECT") || prev->IsWord("DISTINCT") || prev->IsWord("ALL") || prev->IsSymbol(","))) {
      return;
    }
    const Token* next = Ahead(count);
    if (next && !(next->IsSymbol(",") || next->IsSymbol(")") || next->IsSymbol(";") || IsClauseWord(*next))) return;
    size_t begin = ahead_[0].offset;
    size_t end = ahead_[count - 1].end();
    Append(" AS " + QuoteIdentifier(sql_.substr(begin, end - begin)), true);
  }

  std::string_view sql_;
  const SessionContext& session_;
  TokenReader reader_;
  bool at_end_ = false;
  std::deque<Token> ahead_;     // significant tokens read ahead; [0] is the current one
  std::deque<Token> comments_;  // comments read ahead, not yet copied
  std::optional<Token> prev_;   // the significant token before the current one
  size_t copied_to_ = 0;        // source bytes before this offset are in out_ (or were dropped)
  std::vector<Frame> frames_;
  std::string out_;
  bool last_rewritten_ = false;
};

}  // namespace

std::string TranslateForDuckDB(std::string_view sql, const SessionContext& session) {
  return Translator(sql, session).Run();
}

}  // namespace sluice::sql
