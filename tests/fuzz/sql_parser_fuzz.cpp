// libFuzzer target for sql/: splitting, parsing and translation must survive any bytes without crashing, hanging
// or recursing without bound, and must keep the few promises callers rely on (checked below; a broken promise
// traps so the fuzzer keeps the input).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "sql/parser.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

const sluice::sql::SessionContext& Session() {
  static const sluice::sql::SessionContext session = [] {
    sluice::sql::SessionContext s;
    s.variable = [](std::string_view name) -> std::optional<std::string> {
      if (name == "version_comment") return "Sluice";
      if (name == "autocommit") return "1";
      if (name == "negative") return "-7";
      if (name == "nul") return std::string("a\0b", 3);
      return std::nullopt;
    };
    s.current_database = "db";
    return s;
  }();
  return session;
}

void ParseOne(std::string_view sql) {
  auto result = sluice::sql::ParseStatement(sql, Session());
  if (!result.ok()) {
    Check(!result.status().message().empty());
    return;
  }
  if (auto* ct = std::get_if<sluice::sql::CreateTable>(&*result)) Check(!ct->source_text.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view sql(reinterpret_cast<const char*>(data), size);
  for (const std::string& piece : sluice::sql::SplitStatements(sql)) {
    // Pieces are trimmed, non-empty, and split no further.
    Check(!piece.empty() && !IsSpace(piece.front()) && !IsSpace(piece.back()));
    auto again = sluice::sql::SplitStatements(piece);
    Check(again.size() == 1 && again[0] == piece);
    ParseOne(piece);
  }
  ParseOne(sql);
  std::string translated = sluice::sql::TranslateForDuckDB(sql, Session());
  (void)translated;
  return 0;
}
