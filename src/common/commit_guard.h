#pragma once
// CommitGuard: a condition a commit must meet at the moment it lands, checked by the store it lands in. The layer
// that knows the condition (the cluster's lease epochs, scheduler/cluster_jobs.cpp) writes it as a SELECT; the
// layer that commits (the Iceberg JDBC catalog's compare-and-swap, iceberg/jdbc_catalog.*) runs it inside the
// swap's own statement, so the swap lands only while every guard returns a row, and a row lock a guard takes
// (FOR SHARE) holds until the swap is committed. Neither layer knows the other: this plain struct is all they
// share (docs/cluster.md, "Fenced commits").
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

struct CommitGuard {
  // A SELECT that returns a row while the commit may land; $1..$n are `params` (text). No other '$' followed by a
  // digit may appear in it: the store renumbers the parameters to run it beside its own.
  std::string sql;
  std::vector<std::string> params;
  // Why nothing was committed when it returns no row (for the task's log and error).
  std::string refused;
};

// What a commit fence answers before each attempt: summary entries the commit records (the leases' epochs), and
// guards for the store to run inside the commit when it runs its commits in the database where `witness` returns a
// row (the cluster's own PostgreSQL database); elsewhere the fence already checked them, as its own statement.
struct FencedCommit {
  std::map<std::string, std::string> summary;
  std::vector<CommitGuard> guards;
  std::optional<CommitGuard> witness;
};

}  // namespace sluice
