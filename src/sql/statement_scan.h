#pragma once
// What a statement names, read from the text the client sent (MySQL's lexing, the same the translation to DuckDB
// reads, so a name the scan misses cannot reach DuckDB as a name). The executor checks privileges and the sandbox
// from this: every chain of names (t, db.t, catalog.db.t) that may name a table, every function called, and the
// head of the statement (verb, the kind and name of the object it creates, writes, alters or drops).
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sluice::sql {

struct NameChain {
  std::vector<std::string> parts;  // as resolved by the lexer (quotes removed), in written case
  bool called = false;             // followed by '(' : a function call
  std::string first_argument;      // a call's first argument when it is a lone string or name: f('x'), f(x)
  bool literal_argument = false;
};

struct StatementScan {
  std::string verb;          // first keyword, upper case: SELECT, INSERT, UPDATE, DELETE, MERGE, CREATE, ...
  std::string object_kind;   // CREATE / DROP / ALTER / COMMENT: TABLE, VIEW, MACRO, FUNCTION, SEQUENCE, INDEX, TYPE
  bool temporary = false;    // CREATE TEMP ...
  bool creates_from_query = false;  // CREATE TABLE ... AS
  std::vector<std::string> target;  // the object written, created, altered or dropped
  std::vector<std::string> index_table;  // CREATE INDEX i ON t
  bool merge_inserts = false, merge_updates = false, merge_deletes = false;
  std::vector<NameChain> names;  // every chain in the statement, the target included
  bool reads_file_by_name = false;  // a string right after FROM or JOIN: DuckDB reads it as a file path
  // A JSON function whose input nesting Sluice checks (common/json_nesting.h), called after a '.' (x.json_structure(),
  // main.json_structure(x)): the translator could not wrap what comes before the dot. Its name as written.
  std::string dotted_json_call;
};

// Fails only on text the lexer cannot read (an unterminated string or comment).
Result<StatementScan> ScanStatement(std::string_view sql);

}  // namespace sluice::sql
