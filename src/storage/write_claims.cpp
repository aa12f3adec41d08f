#include "storage/write_claims.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace sluice::storage {

namespace {

struct Token {
  enum Kind { kWord, kQuoted, kPunct } kind;
  std::string text;  // words upper-cased, quoted names lower-cased, punctuation as is
};

using Statement = std::vector<Token>;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Splits SQL into statements of tokens. String literals become nothing (their content never names a table),
// comments are skipped, and `;` outside them ends a statement.
std::vector<Statement> Tokenize(std::string_view sql) {
  std::vector<Statement> out(1);
  size_t i = 0;
  const size_t n = sql.size();
  while (i < n) {
    const char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      i++;
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      while (i < n && sql[i] != '\n') i++;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      size_t end = sql.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
    } else if (c == '\'') {
      for (i++; i < n; i++) {
        if (sql[i] != '\'') continue;
        if (i + 1 < n && sql[i + 1] == '\'') { i++; continue; }
        i++;
        break;
      }
    } else if (c == '"' || c == '`') {
      std::string name;
      for (i++; i < n; i++) {
        if (sql[i] != c) { name += sql[i]; continue; }
        if (i + 1 < n && sql[i + 1] == c) { name += c; i++; continue; }
        i++;
        break;
      }
      out.back().push_back({Token::kQuoted, Lower(std::move(name))});
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80) {
      size_t start = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(sql[i])) || sql[i] == '_' || sql[i] == '$' ||
                       static_cast<unsigned char>(sql[i]) >= 0x80))
        i++;
      out.back().push_back({Token::kWord, Upper(std::string(sql.substr(start, i - start)))});
    } else if (c == ';') {
      if (!out.back().empty()) out.emplace_back();
      i++;
    } else {
      out.back().push_back({Token::kPunct, std::string(1, c)});
      i++;
    }
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

bool IsWord(const Statement& s, size_t i, std::string_view word) {
  return i < s.size() && s[i].kind == Token::kWord && s[i].text == word;
}

bool HasWord(const Statement& s, size_t from, std::string_view word) {
  for (size_t i = from; i < s.size(); i++)
    if (IsWord(s, i, word)) return true;
  return false;
}

// A possibly qualified name starting at `i`: its last part, lower-cased ("*" when there is no name there).
std::string NameAt(const Statement& s, size_t i) {
  std::string last = "*";
  while (i < s.size() && s[i].kind != Token::kPunct) {
    last = s[i].kind == Token::kWord ? Lower(s[i].text) : s[i].text;
    if (i + 2 < s.size() && s[i + 1].kind == Token::kPunct && s[i + 1].text == ".") i += 2;
    else break;
  }
  return last;
}

struct StatementWrites {
  enum Transaction { kNone, kBegin, kCommit, kRollback } transaction = kNone;
  bool ddl = false;  // may change the catalog
  std::vector<std::string> updates;
  std::vector<std::string> appends;
};

StatementWrites Read(const Statement& s) {
  StatementWrites w;
  size_t i = 0;
  if (IsWord(s, i, "EXPLAIN")) {  // EXPLAIN ANALYZE runs the statement
    if (!IsWord(s, ++i, "ANALYZE")) return w;
    i++;
  }
  if (IsWord(s, i, "WITH")) {
    // WITH name AS (...) [, name AS (...)] <statement>: the statement after the CTEs, when nothing inside them
    // writes (Sluice's own prepared statements carry their parameters in a CTE: storage::Connection::QueryPrepared).
    int depth = 0;
    bool writes_inside = false;
    for (size_t j = i + 1; j < s.size(); j++) {
      if (s[j].kind == Token::kPunct) {
        if (s[j].text == "(") depth++;
        else if (s[j].text == ")") depth--;
        continue;
      }
      if (s[j].kind != Token::kWord) continue;
      const std::string& word = s[j].text;
      const bool statement = word == "SELECT" || word == "INSERT" || word == "UPDATE" || word == "MERGE" ||
                             word == "DELETE" || word == "REPLACE";
      if (depth > 0) {
        writes_inside |= statement && word != "SELECT" && word != "DELETE";
        continue;
      }
      if (statement) {
        if (!writes_inside) i = j;
        break;
      }
    }
  }
  if (i >= s.size() || s[i].kind != Token::kWord) return w;
  const std::string& verb = s[i].text;
  w.ddl = verb == "CREATE" || verb == "ALTER" || verb == "DROP" || verb == "ATTACH" || verb == "DETACH" ||
          verb == "COMMENT" || verb == "IMPORT" || verb == "LOAD" || verb == "INSTALL" || verb == "USE";
  if (verb == "BEGIN" || verb == "START") {
    w.transaction = StatementWrites::kBegin;
  } else if (verb == "COMMIT" || verb == "END") {
    w.transaction = StatementWrites::kCommit;
  } else if (verb == "ROLLBACK" || verb == "ABORT") {
    w.transaction = StatementWrites::kRollback;
  } else if (verb == "INSERT" || verb == "REPLACE") {
    size_t at = i + 1;
    bool upsert = verb == "REPLACE";
    if (IsWord(s, at, "OR")) {
      upsert = IsWord(s, at + 1, "REPLACE");
      at += 2;
    }
    if (IsWord(s, at, "INTO")) at++;
    const std::string table = NameAt(s, at);
    w.appends.push_back(table);
    if (upsert || (HasWord(s, at, "CONFLICT") && HasWord(s, at, "UPDATE"))) w.updates.push_back(table);
  } else if (verb == "UPDATE") {
    w.updates.push_back(NameAt(s, i + 1));
  } else if (verb == "MERGE") {
    const std::string table = NameAt(s, IsWord(s, i + 1, "INTO") ? i + 2 : i + 1);
    w.updates.push_back(table);
    w.appends.push_back(table);
  } else if (verb == "COPY") {
    if (i + 1 < s.size() && s[i + 1].kind != Token::kPunct && HasWord(s, i + 1, "FROM"))
      w.appends.push_back(NameAt(s, i + 1));
  } else if (verb == "WITH") {
    if (HasWord(s, i, "UPDATE") || HasWord(s, i, "MERGE")) w.updates.push_back("*");
    if (HasWord(s, i, "INSERT") || HasWord(s, i, "MERGE")) w.appends.push_back("*");
  }
  return w;
}

}  // namespace

std::vector<WriteGate::Claim> WriteClaims::For(std::string_view sql) {
  std::map<std::string, WriteGate::Mode> modes;
  auto add = [&](const std::string& table, WriteGate::Mode mode) {
    auto [it, fresh] = modes.emplace(table, mode);
    if (!fresh && it->second != mode) it->second = WriteGate::Mode::kExclusive;
  };
  changed_catalog_ = false;
  for (const Statement& s : Tokenize(sql)) {
    const StatementWrites w = Read(s);
    if (w.ddl) {
      if (in_transaction_) ddl_in_transaction_ = true;
      changed_catalog_ = true;  // in a transaction too: DuckDB's view of the catalog changes on this connection
    }
    switch (w.transaction) {
      case StatementWrites::kBegin:
        in_transaction_ = true;
        break;
      case StatementWrites::kCommit:
        for (const std::string& table : pending_appends_) add(table, WriteGate::Mode::kAppend);
        [[fallthrough]];
      case StatementWrites::kRollback:
        pending_appends_.clear();
        in_transaction_ = false;
        if (ddl_in_transaction_) changed_catalog_ = true;
        ddl_in_transaction_ = false;
        break;
      case StatementWrites::kNone:
        break;
    }
    for (const std::string& table : w.updates) add(table, WriteGate::Mode::kUpdate);
    for (const std::string& table : w.appends) {
      if (in_transaction_) pending_appends_.insert(table);
      else add(table, WriteGate::Mode::kAppend);
    }
  }
  std::vector<WriteGate::Claim> out;
  out.reserve(modes.size());
  for (const auto& [table, mode] : modes) out.push_back({table, mode});
  return out;
}

}  // namespace sluice::storage
