// A recursive-descent parser for load expressions with MySQL's operator precedence, lowest first:
//   OR ||   XOR   AND &&   NOT   comparison/IS/IN/BETWEEN/LIKE   + -   * / % DIV MOD   unary - + !   primary
// Tokens come from the shared SQL lexer, so quoting and escapes are exactly those of the rest of Sluice.
#include <algorithm>
#include <array>
#include <limits>

#include "common/ascii.h"
#include "sql/lexer.h"
#include "transform/expression.h"

namespace sluice::transform {

namespace {

using sql::Token;
using sql::TokenKind;

// Words that can never be a bare column name, because the grammar gives them a meaning where an operand may stand.
constexpr std::array<std::string_view, 17> kReservedWords = {
    "AND", "OR",   "XOR",  "NOT",  "IS",   "NULL", "TRUE", "FALSE", "IN",
    "BETWEEN", "LIKE", "CASE", "WHEN", "THEN", "ELSE", "END", "DIV"};

// MySQL's niladic functions, which may be written without parentheses.
constexpr std::array<std::string_view, 7> kNiladicFunctions = {
    "CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "LOCALTIME", "LOCALTIMESTAMP", "UTC_TIMESTAMP", "UTC_DATE"};

constexpr std::array<std::string_view, 10> kIntervalUnits = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY",
                                                             "HOUR", "MINUTE",  "SECOND", "MILLISECOND",
                                                             "MICROSECOND"};

bool IsOneOf(const Token& t, auto const& words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return t.IsWord(w); });
}

// How a token is named in "found ..." messages.
std::string Describe(const Token& t) {
  if (t.kind == TokenKind::kEnd) return "the end of the expression";
  size_t cut = std::min<size_t>(t.raw.size(), 40);
  // Cut at a character boundary, never inside a UTF-8 sequence.
  while (cut < t.raw.size() && cut > 0 && (static_cast<unsigned char>(t.raw[cut]) & 0xC0) == 0x80) cut--;
  return "'" + std::string(t.raw.substr(0, cut)) + (cut < t.raw.size() ? "...'" : "'");
}

class Parser {
 public:
  explicit Parser(std::string_view text) : tokens_(sql::Tokenize(text)) {}

  Result<ExprPtr> Run() {
    for (const Token& t : tokens_) {
      if (t.kind == TokenKind::kInvalid) return Error(t, t.text);
    }
    if (Peek().kind == TokenKind::kEnd) return Error(Peek(), "the expression is empty");
    ASSIGN_OR_RETURN(ExprPtr e, ParseOr());
    if (Peek().IsSymbol("->")) return LambdaMisplaced(Peek());
    if (Peek().kind != TokenKind::kEnd) return Expected("an operator or the end of the expression");
    return e;
  }

 private:
  // Counts nested parse calls; parentheses nest calls without adding tree levels, so both are limited. Every
  // cycle of the grammar passes through one of the guarded rules (ParseOr, ParseNot, ParseUnary, ParseInterval).
  class RecursionGuard {
   public:
    explicit RecursionGuard(Parser* p) : p_(p) { ++p_->recursion_; }
    ~RecursionGuard() { --p_->recursion_; }
    bool too_deep() const { return p_->recursion_ > kMaxExpressionDepth; }

   private:
    Parser* p_;
  };

  const Token& Peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool AcceptWord(std::string_view w) {
    if (!Peek().IsWord(w)) return false;
    Next();
    return true;
  }
  bool AcceptSymbol(std::string_view s) {
    if (!Peek().IsSymbol(s)) return false;
    Next();
    return true;
  }

  static Status Error(const Token& t, const std::string& what) {
    return Status::InvalidArgument("syntax error at " + PositionText(t.line, t.column) + ": " + what);
  }
  Status Expected(const std::string& what) const {
    return Error(Peek(), "expected " + what + ", found " + Describe(Peek()));
  }
  Status ExpectSymbol(std::string_view s, const std::string& why = "") {
    if (AcceptSymbol(s)) return Status::Ok();
    return Expected("'" + std::string(s) + "'" + why);
  }
  Status ExpectWord(std::string_view w, const std::string& why = "") {
    if (AcceptWord(w)) return Status::Ok();
    return Expected(std::string(w) + why);
  }
  static Status LambdaMisplaced(const Token& t) {
    return Error(t, "a lambda (x -> expr) can only be an argument of array_map, array_filter, map_filter, "
                    "transform_values or transform_keys; the JSON arrow operator (j -> '$.path') is not supported "
                    "here, use json_query(j, '$.path')");
  }
  Status TooDeep() const {
    return Error(Peek(), "the expression is nested too deeply (more than " + std::to_string(kMaxExpressionDepth) +
                             " levels)");
  }

  static ExprPtr NewNode(ExprKind kind, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }
  // Adopts children and checks the tree height: left-deep chains (a+b+c+...) grow without recursion.
  Result<ExprPtr> Finish(ExprPtr e) {
    int depth = 0;
    for (const auto& c : e->children) depth = std::max(depth, c->depth);
    e->depth = depth + 1;
    if (e->depth > kMaxExpressionDepth) return TooDeep();
    return e;
  }
  Result<ExprPtr> Binary(std::string op, ExprPtr lhs, ExprPtr rhs) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kBinary;
    e->line = lhs->line;
    e->column = lhs->column;
    e->op = std::move(op);
    e->children.push_back(std::move(lhs));
    e->children.push_back(std::move(rhs));
    return Finish(std::move(e));
  }

  // AND and OR chains become one node with many children, so long lists of conditions do not nest deeply.
  template <typename Operand, typename IsOp>
  Result<ExprPtr> ParseChain(const std::string& op, Operand operand, IsOp is_op) {
    ASSIGN_OR_RETURN(ExprPtr first, (this->*operand)());
    if (!is_op(Peek())) return first;
    auto node = std::make_unique<Expr>();
    node->kind = ExprKind::kBinary;
    node->line = first->line;
    node->column = first->column;
    node->op = op;
    node->children.push_back(std::move(first));
    while (is_op(Peek())) {
      Next();
      ASSIGN_OR_RETURN(ExprPtr next, (this->*operand)());
      node->children.push_back(std::move(next));
    }
    return Finish(std::move(node));
  }

  Result<ExprPtr> ParseOr() {
    RecursionGuard guard(this);
    if (guard.too_deep()) return TooDeep();
    return ParseChain("OR", &Parser::ParseXor, [](const Token& t) { return t.IsWord("OR") || t.IsSymbol("||"); });
  }

  Result<ExprPtr> ParseXor() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseAnd());
    while (Peek().IsWord("XOR")) {
      Next();
      ASSIGN_OR_RETURN(ExprPtr rhs, ParseAnd());
      ASSIGN_OR_RETURN(lhs, Binary("XOR", std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }

  Result<ExprPtr> ParseAnd() {
    return ParseChain("AND", &Parser::ParseNot, [](const Token& t) { return t.IsWord("AND") || t.IsSymbol("&&"); });
  }

  Result<ExprPtr> ParseNot() {
    if (!Peek().IsWord("NOT")) return ParsePredicate();
    RecursionGuard guard(this);
    if (guard.too_deep()) return TooDeep();
    ExprPtr node = NewNode(ExprKind::kUnary, Next());
    node->op = "NOT";
    ASSIGN_OR_RETURN(ExprPtr operand, ParseNot());
    node->children.push_back(std::move(operand));
    return Finish(std::move(node));
  }

  static std::string ComparisonOp(const Token& t) {
    if (t.kind != TokenKind::kSymbol) return "";
    if (t.raw == "=" || t.raw == "<=>" || t.raw == "<" || t.raw == "<=" || t.raw == ">" || t.raw == ">=" ||
        t.raw == "<>")
      return std::string(t.raw);
    if (t.raw == "!=") return "<>";
    return "";
  }

  Result<ExprPtr> ParsePredicate() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseAdditive());
    while (true) {
      if (std::string op = ComparisonOp(Peek()); !op.empty()) {
        Next();
        ASSIGN_OR_RETURN(ExprPtr rhs, ParseAdditive());
        ASSIGN_OR_RETURN(lhs, Binary(op, std::move(lhs), std::move(rhs)));
        continue;
      }
      if (Peek().IsWord("IS")) {
        ExprPtr node = NewNode(ExprKind::kIsNull, Next());
        node->line = lhs->line;
        node->column = lhs->column;
        node->negated = AcceptWord("NOT");
        RETURN_IF_ERROR(ExpectWord("NULL", " after IS"));
        node->children.push_back(std::move(lhs));
        ASSIGN_OR_RETURN(lhs, Finish(std::move(node)));
        continue;
      }
      bool negated = false;
      if (Peek().IsWord("NOT") && (Peek(1).IsWord("IN") || Peek(1).IsWord("BETWEEN") || Peek(1).IsWord("LIKE"))) {
        Next();
        negated = true;
      }
      if (Peek().IsWord("IN")) {
        ASSIGN_OR_RETURN(lhs, ParseIn(std::move(lhs), negated));
      } else if (Peek().IsWord("BETWEEN")) {
        ASSIGN_OR_RETURN(lhs, ParseBetween(std::move(lhs), negated));
      } else if (Peek().IsWord("LIKE")) {
        ASSIGN_OR_RETURN(lhs, ParseLike(std::move(lhs), negated));
      } else {
        return lhs;
      }
    }
  }

  Result<ExprPtr> ParseIn(ExprPtr lhs, bool negated) {
    ExprPtr node = NewNode(ExprKind::kIn, Next());
    node->line = lhs->line;
    node->column = lhs->column;
    node->negated = negated;
    node->children.push_back(std::move(lhs));
    RETURN_IF_ERROR(ExpectSymbol("(", " after IN"));
    if (Peek().IsWord("SELECT")) return Error(Peek(), "subqueries are not supported in load expressions");
    do {
      ASSIGN_OR_RETURN(ExprPtr item, ParseOr());
      node->children.push_back(std::move(item));
    } while (AcceptSymbol(","));
    RETURN_IF_ERROR(ExpectSymbol(")", " or ',' in the IN list"));
    return Finish(std::move(node));
  }

  Result<ExprPtr> ParseBetween(ExprPtr lhs, bool negated) {
    ExprPtr node = NewNode(ExprKind::kBetween, Next());
    node->line = lhs->line;
    node->column = lhs->column;
    node->negated = negated;
    node->children.push_back(std::move(lhs));
    ASSIGN_OR_RETURN(ExprPtr low, ParseAdditive());
    RETURN_IF_ERROR(ExpectWord("AND", " in BETWEEN ... AND ..."));
    ASSIGN_OR_RETURN(ExprPtr high, ParseAdditive());
    node->children.push_back(std::move(low));
    node->children.push_back(std::move(high));
    return Finish(std::move(node));
  }

  Result<ExprPtr> ParseLike(ExprPtr lhs, bool negated) {
    ExprPtr node = NewNode(ExprKind::kLike, Next());
    node->line = lhs->line;
    node->column = lhs->column;
    node->negated = negated;
    node->children.push_back(std::move(lhs));
    ASSIGN_OR_RETURN(ExprPtr pattern, ParseAdditive());
    node->children.push_back(std::move(pattern));
    if (AcceptWord("ESCAPE")) {
      ASSIGN_OR_RETURN(ExprPtr escape, ParsePrimary());
      node->children.push_back(std::move(escape));
    }
    return Finish(std::move(node));
  }

  Result<ExprPtr> ParseAdditive() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseMultiplicative());
    while (Peek().IsSymbol("+") || Peek().IsSymbol("-")) {
      std::string op(Next().raw);
      ASSIGN_OR_RETURN(ExprPtr rhs, ParseMultiplicative());
      ASSIGN_OR_RETURN(lhs, Binary(op, std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }

  static std::string MultiplicativeOp(const Token& t) {
    if (t.IsSymbol("*") || t.IsSymbol("/") || t.IsSymbol("%")) return std::string(t.raw);
    if (t.IsWord("DIV")) return "DIV";
    if (t.IsWord("MOD")) return "%";
    return "";
  }

  Result<ExprPtr> ParseMultiplicative() {
    ASSIGN_OR_RETURN(ExprPtr lhs, ParseUnary());
    while (true) {
      std::string op = MultiplicativeOp(Peek());
      // `mod(` after an operand is still the operator: `a MOD (b)`.
      if (op.empty()) return lhs;
      Next();
      ASSIGN_OR_RETURN(ExprPtr rhs, ParseUnary());
      ASSIGN_OR_RETURN(lhs, Binary(op, std::move(lhs), std::move(rhs)));
    }
  }

  Result<ExprPtr> ParseUnary() {
    const Token& t = Peek();
    if (!t.IsSymbol("-") && !t.IsSymbol("+") && !t.IsSymbol("!")) return ParsePostfix();
    RecursionGuard guard(this);
    if (guard.too_deep()) return TooDeep();
    ExprPtr node = NewNode(ExprKind::kUnary, Next());
    node->op = t.IsSymbol("!") ? "NOT" : std::string(t.raw);
    ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary());
    node->children.push_back(std::move(operand));
    return Finish(std::move(node));
  }

  // Lakehouse postfix forms, binding tighter than any operator: `x::TYPE` (a CAST) and `x[key]` (a JSON key or
  // index, a map key, a list index), in any sequence: `PARSE_JSON(value::STRING)['a']['b']::INT`.
  Result<ExprPtr> ParsePostfix() {
    ASSIGN_OR_RETURN(ExprPtr node, ParsePrimary());
    while (true) {
      const Token& t = Peek();
      if (t.IsSymbol("::")) {
        ExprPtr cast = NewNode(ExprKind::kCast, Next());
        cast->line = node->line;
        cast->column = node->column;
        cast->children.push_back(std::move(node));
        ASSIGN_OR_RETURN(cast->cast_type, ParseTypeName());
        ASSIGN_OR_RETURN(node, Finish(std::move(cast)));
      } else if (t.IsSymbol("[")) {
        ExprPtr sub = NewNode(ExprKind::kSubscript, Next());
        sub->line = node->line;
        sub->column = node->column;
        sub->children.push_back(std::move(node));
        ASSIGN_OR_RETURN(ExprPtr key, ParseOr());
        sub->children.push_back(std::move(key));
        RETURN_IF_ERROR(ExpectSymbol("]", " to close the '[' at " + PositionText(t.line, t.column)));
        ASSIGN_OR_RETURN(node, Finish(std::move(sub)));
      } else {
        return node;
      }
    }
  }

  Result<ExprPtr> ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kNumber:
        return ParseNumber();
      case TokenKind::kString:
      case TokenKind::kDoubleQuoted: {
        ExprPtr e = NewNode(ExprKind::kLiteral, Next());
        e->literal = LiteralKind::kString;
        e->text = t.text;
        return e;
      }
      case TokenKind::kQuotedIdent: {
        ExprPtr e = NewNode(ExprKind::kColumn, Next());
        e->text = t.text;
        if (Peek().IsSymbol(".")) return Error(Peek(), "qualified names (table.column) are not supported here");
        return e;
      }
      case TokenKind::kWord:
        return ParseWord();
      case TokenKind::kSymbol:
        if (t.IsSymbol("[")) return ParseArray();
        if (t.IsSymbol("(")) {
          Next();
          if (Peek().IsWord("SELECT")) return Error(Peek(), "subqueries are not supported in load expressions");
          ASSIGN_OR_RETURN(ExprPtr inner, ParseOr());
          RETURN_IF_ERROR(ExpectSymbol(")", " to close the '(' at " + PositionText(t.line, t.column)));
          return inner;
        }
        break;
      default:
        break;
    }
    return Expected("an expression");
  }

  Result<ExprPtr> ParseNumber() {
    const Token& t = Next();
    ExprPtr e = NewNode(ExprKind::kLiteral, t);
    std::string_view raw = t.raw;
    if (raw.size() > 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X' || raw[1] == 'b' || raw[1] == 'B')) {
      // Hex and binary literals are plain integers in arithmetic; DuckDB's SQL has neither form.
      const int base = (raw[1] == 'x' || raw[1] == 'X') ? 16 : 2;
      uint64_t v = 0;
      for (char c : raw.substr(2)) {
        int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        if (v > (std::numeric_limits<uint64_t>::max() - digit) / base)
          return Error(t, "the number " + std::string(raw) + " is too large");
        v = v * base + digit;
      }
      e->literal = LiteralKind::kInteger;
      e->text = std::to_string(v);
      return e;
    }
    bool has_exponent = raw.find_first_of("eE") != std::string_view::npos;
    bool has_point = raw.find('.') != std::string_view::npos;
    e->literal = has_exponent ? LiteralKind::kFloat : has_point ? LiteralKind::kDecimal : LiteralKind::kInteger;
    e->text = raw[0] == '.' ? "0" + std::string(raw) : std::string(raw);
    return e;
  }

  Result<ExprPtr> ParseWord() {
    const Token& t = Peek();
    if (Peek(1).IsSymbol("(")) {
      if (t.IsWord("CAST")) return ParseCast("CAST", /*convert=*/false);
      // A failed CAST in a load expression is already NULL (never a failed batch), which is what DuckDB's and
      // Snowflake's TRY_CAST promise: the same node.
      if (t.IsWord("TRY_CAST")) return ParseCast("TRY_CAST", /*convert=*/false);
      if (t.IsWord("CONVERT")) return ParseCast("CONVERT", /*convert=*/true);
      return ParseCall();
    }
    if (t.IsWord("NULL") || t.IsWord("TRUE") || t.IsWord("FALSE")) {
      ExprPtr e = NewNode(ExprKind::kLiteral, Next());
      e->literal = t.IsWord("NULL") ? LiteralKind::kNull : LiteralKind::kBoolean;
      e->text = AsciiUpper(t.raw);
      return e;
    }
    if (t.IsWord("CASE")) return ParseCase();
    if (t.IsWord("INTERVAL")) return ParseInterval();
    if (IsOneOf(t, kNiladicFunctions)) {
      ExprPtr e = NewNode(ExprKind::kCall, Next());
      e->text = AsciiLower(t.raw);
      return e;
    }
    if (IsOneOf(t, kReservedWords)) return Expected("an expression");
    ExprPtr e = NewNode(ExprKind::kColumn, Next());
    e->text = t.text;
    if (Peek().IsSymbol(".")) return Error(Peek(), "qualified names (table.column) are not supported here");
    return e;
  }

  Result<ExprPtr> ParseCall() {
    const Token& name = Next();
    ExprPtr call = NewNode(ExprKind::kCall, name);
    call->text = AsciiLower(name.raw);
    Next();  // (
    if (!AcceptSymbol(")")) {
      do {
        if (Peek().IsSymbol("*"))
          return Error(Peek(), "'*' arguments (aggregates) are not supported in load expressions");
        if (Peek().IsWord("DISTINCT")) return Error(Peek(), "DISTINCT is not supported in load expressions");
        ExprPtr arg;
        if (size_t params = LambdaAhead()) {
          ASSIGN_OR_RETURN(arg, ParseLambda(params));
        } else {
          ASSIGN_OR_RETURN(arg, ParseOr());
        }
        call->children.push_back(std::move(arg));
      } while (AcceptSymbol(","));
      RETURN_IF_ERROR(ExpectSymbol(")", " or ',' in the arguments of " + call->text + "()"));
    }
    return Finish(std::move(call));
  }

  // Whether a lambda starts here: `x ->`, `(x, y) ->` or `() ->`. Returns how many tokens its parameter list
  // takes (0: not a lambda), so `(a + b) -> ...` and `(x)` stay ordinary expressions.
  size_t LambdaAhead() const {
    auto is_param = [](const Token& t) {
      return (t.kind == TokenKind::kWord && !IsOneOf(t, kReservedWords)) || t.kind == TokenKind::kQuotedIdent;
    };
    if (is_param(Peek()) && Peek(1).IsSymbol("->")) return 1;
    if (!Peek().IsSymbol("(")) return 0;
    size_t i = 1;
    if (Peek(i).IsSymbol(")")) return Peek(i + 1).IsSymbol("->") ? i + 1 : 0;
    while (true) {
      if (!is_param(Peek(i))) return 0;
      if (Peek(i + 1).IsSymbol(")")) return Peek(i + 2).IsSymbol("->") ? i + 2 : 0;
      if (!Peek(i + 1).IsSymbol(",")) return 0;
      i += 2;
    }
  }

  // StarRocks' lambda: parameters, `->`, and a body that may use them (and the columns in scope).
  Result<ExprPtr> ParseLambda(size_t param_tokens) {
    RecursionGuard guard(this);
    if (guard.too_deep()) return TooDeep();
    ExprPtr node = NewNode(ExprKind::kLambda, Peek());
    for (size_t i = 0; i < param_tokens; i++) {
      const Token& t = Next();
      if (t.kind != TokenKind::kWord && t.kind != TokenKind::kQuotedIdent) continue;
      for (const std::string& p : node->lambda_params) {
        if (AsciiLower(p) == AsciiLower(t.text))
          return Error(t, "the lambda parameter '" + t.text + "' is declared twice");
      }
      node->lambda_params.push_back(t.text);
    }
    Next();  // ->
    ASSIGN_OR_RETURN(ExprPtr body, ParseOr());
    node->children.push_back(std::move(body));
    return Finish(std::move(node));
  }

  // [a, b, ...]: an array literal ([] is the empty array).
  Result<ExprPtr> ParseArray() {
    RecursionGuard guard(this);
    if (guard.too_deep()) return TooDeep();
    const Token& open = Next();
    ExprPtr node = NewNode(ExprKind::kArray, open);
    if (!AcceptSymbol("]")) {
      do {
        ASSIGN_OR_RETURN(ExprPtr item, ParseOr());
        node->children.push_back(std::move(item));
      } while (AcceptSymbol(","));
      RETURN_IF_ERROR(ExpectSymbol("]", " or ',' to close the array at " + PositionText(open.line, open.column)));
    }
    return Finish(std::move(node));
  }

  // CAST(expr AS type), TRY_CAST(expr AS type) and MySQL's CONVERT(expr, type); `keyword` names it in errors.
  Result<ExprPtr> ParseCast(const std::string& keyword, bool convert) {
    ExprPtr node = NewNode(ExprKind::kCast, Next());
    Next();  // (
    ASSIGN_OR_RETURN(ExprPtr operand, ParseOr());
    node->children.push_back(std::move(operand));
    if (convert) {
      RETURN_IF_ERROR(ExpectSymbol(",", " in CONVERT(expr, type)"));
    } else {
      RETURN_IF_ERROR(ExpectWord("AS", " in " + keyword + "(expr AS type)"));
    }
    ASSIGN_OR_RETURN(node->cast_type, ParseTypeName());
    RETURN_IF_ERROR(ExpectSymbol(")", " to close " + keyword + "("));
    return Finish(std::move(node));
  }

  Result<TypeName> ParseTypeName() {
    if (Peek().kind != TokenKind::kWord) return Expected("a type name");
    TypeName type;
    type.name = AsciiUpper(Next().raw);
    // CAST(x AS SIGNED INTEGER), CAST(x AS UNSIGNED INT)
    bool integer_word = Peek().IsWord("INTEGER") || Peek().IsWord("INT");
    if ((type.name == "SIGNED" || type.name == "UNSIGNED") && integer_word) Next();
    // ARRAY<INT>, ARRAY<ARRAY<VARCHAR(10)>>
    if (type.name == "ARRAY" && AcceptSymbol("<")) {
      RecursionGuard guard(this);
      if (guard.too_deep()) return TooDeep();
      ASSIGN_OR_RETURN(TypeName element, ParseTypeName());
      type.element.push_back(std::move(element));
      RETURN_IF_ERROR(ExpectSymbol(">", " to close ARRAY<"));
      return type;
    }
    if (AcceptSymbol("(")) {
      do {
        if (Peek().kind != TokenKind::kNumber || Peek().raw.find_first_not_of("0123456789") != std::string_view::npos)
          return Expected("a whole number as a type parameter");
        const Token& n = Next();
        if (n.raw.size() > 9) return Error(n, "the type parameter " + std::string(n.raw) + " is too large");
        type.params.push_back(std::stoll(std::string(n.raw)));
      } while (AcceptSymbol(","));
      RETURN_IF_ERROR(ExpectSymbol(")", " after the type parameters"));
    }
    return type;
  }

  Result<ExprPtr> ParseCase() {
    ExprPtr node = NewNode(ExprKind::kCase, Next());
    if (!Peek().IsWord("WHEN")) {
      ASSIGN_OR_RETURN(ExprPtr operand, ParseOr());
      node->children.push_back(std::move(operand));
      node->has_operand = true;
    }
    if (!Peek().IsWord("WHEN")) return Expected("WHEN in CASE");
    while (AcceptWord("WHEN")) {
      ASSIGN_OR_RETURN(ExprPtr when, ParseOr());
      RETURN_IF_ERROR(ExpectWord("THEN", " after CASE ... WHEN <condition>"));
      ASSIGN_OR_RETURN(ExprPtr then, ParseOr());
      node->children.push_back(std::move(when));
      node->children.push_back(std::move(then));
    }
    if (AcceptWord("ELSE")) {
      ASSIGN_OR_RETURN(ExprPtr otherwise, ParseOr());
      node->children.push_back(std::move(otherwise));
      node->has_else = true;
    }
    RETURN_IF_ERROR(ExpectWord("END", " to close CASE (or another WHEN/ELSE)"));
    return Finish(std::move(node));
  }

  Result<ExprPtr> ParseInterval() {
    RecursionGuard guard(this);
    if (guard.too_deep()) return TooDeep();
    ExprPtr node = NewNode(ExprKind::kInterval, Next());
    ASSIGN_OR_RETURN(ExprPtr amount, ParseAdditive());
    node->children.push_back(std::move(amount));
    std::string unit = AsciiUpper(Peek().raw);
    if (Peek().kind == TokenKind::kWord && unit.size() > 1 && unit.back() == 'S') unit.pop_back();  // DAYS -> DAY
    if (Peek().kind != TokenKind::kWord ||
        std::find(kIntervalUnits.begin(), kIntervalUnits.end(), unit) == kIntervalUnits.end())
      return Expected("an interval unit (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, "
                      "MICROSECOND)");
    Next();
    node->text = unit;
    return Finish(std::move(node));
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int recursion_ = 0;
};

}  // namespace

Result<ExprPtr> ParseExpression(std::string_view text) { return Parser(text).Run(); }

}  // namespace sluice::transform
