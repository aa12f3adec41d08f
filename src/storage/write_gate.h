#pragma once
// DuckDB 1.4.4 invalidates the whole database when an UPDATE runs while another transaction's commit appends rows
// to the same table: the UPDATE fetches the row group's main column and its validity column one after the other,
// the commit grows them in between, and the mismatch is an internal error ("Unaligned fetch in validity and main
// column data for update") that stops every later statement until the file is opened again. A routine load task
// updating its progress while another job's first progress rows commit, a failed batch updating load_history while
// other tasks commit theirs, or a user's UPDATE of a table a job is loading all hit it.
//
// The gate keeps the two apart, table by table: statements that rewrite rows in place (UPDATE, MERGE, upserts) and
// commits that append rows (autocommit INSERT/COPY FROM, COMMIT of a transaction that inserted) never run at the same
// time on the same table. Updates run beside updates and appends beside appends, as before. Waiters are served in
// arrival order, so neither kind starves the other. DELETE is not gated: it marks rows in the version info, which
// DuckDB guards against concurrent appends itself.
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <vector>

namespace sluice::storage {

class WriteGate {
 public:
  enum class Mode : uint8_t { kUpdate, kAppend, kExclusive };
  // One table a statement touches, by its unqualified lower-case name ("*": any table, for SQL the classifier could
  // not read). Tables of the same name in two schemas share a key, which only costs some waiting.
  struct Claim {
    std::string table;
    Mode mode;
    bool operator==(const Claim&) const = default;
  };

  class Hold {
   public:
    Hold() = default;
    Hold(Hold&& other) noexcept : gate_(other.gate_), ticket_(other.ticket_) { other.gate_ = nullptr; }
    Hold& operator=(Hold&&) = delete;
    Hold(const Hold&) = delete;
    ~Hold();

   private:
    friend class WriteGate;
    Hold(WriteGate* gate, uint64_t ticket) : gate_(gate), ticket_(ticket) {}
    WriteGate* gate_ = nullptr;
    uint64_t ticket_ = 0;
  };

  // Waits until no earlier claim conflicts, then holds these claims until the Hold is destroyed. No claims: returns
  // at once without locking. A thread holds at most one Hold at a time (statements are not nested).
  Hold Acquire(std::vector<Claim> claims);

  static bool Conflicts(const std::vector<Claim>& a, const std::vector<Claim>& b);

 private:
  struct Entry {
    uint64_t ticket;
    std::vector<Claim> claims;
  };
  void Release(uint64_t ticket);

  std::mutex mu_;
  std::condition_variable released_;
  std::list<Entry> entries_;  // held and waiting, in arrival order
  uint64_t next_ticket_ = 1;
};

}  // namespace sluice::storage
