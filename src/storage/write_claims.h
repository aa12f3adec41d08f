#pragma once
// Reads SQL text for what WriteGate needs to know (write_gate.h): which tables a statement rewrites in place and
// which ones its commit appends to. It follows the connection's transaction, because the rows an INSERT adds inside
// BEGIN ... COMMIT reach the table at COMMIT, not at the INSERT.
//
// The reading is lexical (keywords, names, strings and comments skipped) and errs towards claiming more: a WITH ...
// UPDATE it cannot follow claims every table. Statements it does not know claim nothing; DuckDB still parses and
// checks them.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "storage/write_gate.h"

namespace sluice::storage {

class WriteClaims {
 public:
  // The claims `sql` (one statement or several) needs while it runs on this connection, merged by table; moves the
  // transaction state on (BEGIN, COMMIT, ROLLBACK, the tables this transaction inserted into).
  std::vector<WriteGate::Claim> For(std::string_view sql);

  bool in_transaction() const { return in_transaction_; }
  // Whether the statements of the last For() may have changed the catalog once they have run: DDL (CREATE, ALTER,
  // DROP, ...) outside a transaction, or the end of a transaction that ran DDL. Prepared statements are prepared
  // again then (Connection::QueryPrepared).
  bool changed_catalog() const { return changed_catalog_; }

 private:
  bool in_transaction_ = false;
  bool ddl_in_transaction_ = false;
  bool changed_catalog_ = false;
  std::set<std::string> pending_appends_;
};

}  // namespace sluice::storage
