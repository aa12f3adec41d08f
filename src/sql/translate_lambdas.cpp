#include "sql/translate_lambdas.h"

#include <array>
#include <vector>

#include "common/ascii.h"

namespace sluice::sql {

namespace {

constexpr std::array<std::string_view, 6> kFunctions = {"array_map",  "transform",        "array_filter",
                                                        "map_filter", "transform_values", "transform_keys"};

// One top-level argument: its text and, for a lambda, the parameters and the body's text.
struct Argument {
  std::string_view text;
  bool lambda = false;
  std::vector<std::string> params;
  std::string_view body;
};

// Splits `args` at top-level commas and recognizes `x -> body`, `(x, y) -> body` and `() -> body`.
std::optional<std::vector<Argument>> SplitArguments(std::string_view args) {
  std::vector<Token> tokens = Tokenize(args);
  std::vector<Argument> out;
  size_t start = 0;       // index of the argument's first token
  size_t depth = 0;
  for (size_t i = 0; i < tokens.size(); i++) {
    const Token& t = tokens[i];
    if (t.kind == TokenKind::kInvalid) return std::nullopt;
    bool end = t.kind == TokenKind::kEnd;
    if (!end && (t.IsSymbol("(") || t.IsSymbol("[") || t.IsSymbol("{"))) depth++;
    if (!end && (t.IsSymbol(")") || t.IsSymbol("]") || t.IsSymbol("}"))) {
      if (depth == 0) return std::nullopt;
      depth--;
    }
    if (!end && !(depth == 0 && t.IsSymbol(","))) continue;
    if (i == start) return std::nullopt;  // an empty argument
    Argument a;
    size_t from = tokens[start].offset, to = tokens[i - 1].end();
    a.text = args.substr(from, to - from);
    // the lambda's parameter list
    size_t j = start;
    if (tokens[j].IsIdentifier() && j + 1 < i && tokens[j + 1].IsSymbol("->")) {
      a.params.push_back(tokens[j].text);
      j += 2;
      a.lambda = true;
    } else if (tokens[j].IsSymbol("(")) {
      size_t k = j + 1;
      std::vector<std::string> params;
      bool ok = true;
      if (!tokens[k].IsSymbol(")")) {
        while (true) {
          if (k >= i || !tokens[k].IsIdentifier()) { ok = false; break; }
          params.push_back(tokens[k].text);
          if (k + 1 < i && tokens[k + 1].IsSymbol(",")) { k += 2; continue; }
          k++;
          break;
        }
      }
      if (ok && k + 1 < i && tokens[k].IsSymbol(")") && tokens[k + 1].IsSymbol("->")) {
        a.params = std::move(params);
        a.lambda = true;
        j = k + 2;
      }
    }
    if (a.lambda) {
      if (j >= i) return std::nullopt;  // no body
      a.body = args.substr(tokens[j].offset, to - tokens[j].offset);
    }
    out.push_back(std::move(a));
    start = i + 1;
    if (end) break;
  }
  return out;
}

// The body with each parameter name (a bare or quoted word not after '.') replaced by how DuckDB reads it.
std::string Substitute(std::string_view body, const std::vector<std::string>& params,
                       const std::vector<std::string>& with) {
  std::string out;
  size_t copied = 0;
  const Token* prev = nullptr;
  std::vector<Token> tokens = Tokenize(body);
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::kEnd) break;
    if ((t.kind == TokenKind::kWord || t.kind == TokenKind::kQuotedIdent) && !(prev && prev->IsSymbol("."))) {
      for (size_t p = 0; p < params.size(); p++) {
        if (!EqualsIgnoreCase(params[p], t.text)) continue;
        out.append(body.substr(copied, t.offset - copied));
        out += " " + with[p] + " ";
        copied = t.end();
        break;
      }
    }
    prev = &t;
  }
  out.append(body.substr(copied));
  return out;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); i++) out += (i ? sep : "") + items[i];
  return out;
}

constexpr const char* kVar = "__sluice_lv";  // a name no user column has (the SQL guard refuses __sluice names)

}  // namespace

bool IsHigherOrderFunction(const Token& t) {
  if (t.kind != TokenKind::kWord) return false;
  for (std::string_view f : kFunctions) {
    if (t.IsWord(f)) return true;
  }
  return false;
}

std::optional<std::string> RewriteHigherOrderCall(const Token& name, std::string_view args,
                                                  const SessionContext& session) {
  std::optional<std::vector<Argument>> split = SplitArguments(args);
  if (!split || split->empty()) return std::nullopt;
  std::vector<Argument>& a = *split;
  const std::string fn = AsciiLower(name.raw);
  auto tr = [&](std::string_view text) { return "(" + TranslateForDuckDB(text, session) + ")"; };
  // The lambda comes first or last; the other arguments are values.
  const Argument* lambda = nullptr;
  std::vector<std::string> values;
  for (size_t i = 0; i < a.size(); i++) {
    if (a[i].lambda && (i == 0 || i + 1 == a.size()) && !lambda) {
      lambda = &a[i];
    } else if (a[i].lambda) {
      return std::nullopt;
    } else {
      values.push_back(tr(a[i].text));
    }
  }
  const bool is_map = fn == "map_filter" || fn == "transform_values" || fn == "transform_keys";
  if (!lambda) {
    // array_filter(arr, bool_array) / map_filter(map, bool_array): keep by position; a NULL flag is false.
    if ((fn != "array_filter" && fn != "map_filter") || values.size() != 2) return std::nullopt;
    std::string keep = "coalesce((TRY_CAST(" + values[1] + " AS BOOLEAN[]))[" + kVar + "_i], false)";
    std::string list = fn == "map_filter" ? "map_entries(" + values[0] + ")" : values[0];
    std::string filtered = "list_filter(" + list + ", lambda " + kVar + ", " + kVar + "_i: " + keep + ")";
    return fn == "map_filter" ? "map_from_entries(" + filtered + ")" : filtered;
  }
  if (is_map) {
    if (values.size() != 1 || lambda->params.size() != 2) return std::nullopt;
    std::string e = kVar;
    std::string body = tr(Substitute(lambda->body, lambda->params, {e + ".key", e + ".value"}));
    std::string entries = "map_entries(" + values[0] + ")";
    if (fn == "map_filter") return "map_from_entries(list_filter(" + entries + ", lambda " + e + ": " + body + "))";
    std::string entry = fn == "transform_values" ? "{'key': " + e + ".key, 'value': " + body + "}"
                                                 : "{'key': " + body + ", 'value': " + e + ".value}";
    return "map_from_entries(list_transform(" + entries + ", lambda " + e + ": " + entry + "))";
  }
  if (values.empty() || lambda->params.size() != values.size()) return std::nullopt;
  const bool filter = fn == "array_filter";
  const char* list_fn = filter ? "list_filter" : "list_transform";
  if (values.size() == 1) {
    std::string param = QuoteIdentifier(lambda->params[0]);
    return std::string(list_fn) + "(" + values[0] + ", lambda " + param + ": " + tr(lambda->body) + ")";
  }
  // Several arrays walk together through list_zip; arrays of different lengths give NULL.
  std::vector<std::string> fields, lengths;
  for (size_t i = 0; i < values.size(); i++) {
    fields.push_back(std::string(kVar) + "[" + std::to_string(i + 1) + "]");
    if (i > 0) lengths.push_back("len(" + values[0] + ") = len(" + values[i] + ")");
  }
  std::string body = tr(Substitute(lambda->body, lambda->params, fields));
  std::string sql = std::string(list_fn) + "(list_zip(" + Join(values, ", ") + "), lambda " + kVar + ": " + body + ")";
  if (filter) sql = "list_transform(" + sql + ", lambda " + kVar + ": " + kVar + "[1])";
  return "CASE WHEN " + Join(lengths, " AND ") + " THEN " + sql + " END";
}

}  // namespace sluice::sql
