#pragma once
// The sessions that are open right now: what each runs and since when (SHOW PROCESSLIST), and the levers other
// threads pull to stop one (KILL, query_timeout, a client that went away, server shutdown).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>

#include "executor/status_counters.h"
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace sluice {

// Why a running statement was stopped by someone other than its session.
enum class StopReason { kNone, kKilled, kTimeout, kClientGone, kShutdown };

// One session's live state. The session's own thread calls BeginStatement/EndStatement around each statement;
// any thread may look at it or stop it. The hooks are set once when the session opens.
class SessionActivity {
 public:
  using SteadyClock = std::chrono::steady_clock;

  SessionActivity(uint32_t id, std::string user, std::string host);

  struct Snapshot {
    uint32_t connection_id = 0;
    std::string user, host, db;
    bool running = false;
    std::string statement;  // as written (secrets not yet redacted); empty when idle
    std::string state;      // "executing", "sending data"; empty when idle
    int64_t seconds_in_state = 0;
    int64_t seconds_connected = 0;
  };
  Snapshot Look() const;
  uint32_t connection_id() const { return id_; }
  const std::string& user() const { return user_; }

  // Hooks. `interrupt` stops the statement in the engine (DuckDB's interrupt); `close` ends the client connection;
  // `client_gone` tells whether the client hung up (polled by the watchdog while a statement runs).
  void SetInterrupt(std::function<void()> interrupt);
  void SetClientHooks(std::function<void()> close, std::function<bool()> client_gone);
  // Drops the hooks: called when the session closes, before what they point at goes away.
  void Detach();

  void SetDatabase(std::string db);
  // `deadline`: when query_timeout runs out (nullopt: never); `timeout_advice` ends the error then reported (which
  // limit ran out and how to raise it).
  void BeginStatement(std::string text, std::optional<SteadyClock::time_point> deadline,
                      std::string timeout_advice = {});
  void SetState(std::string state);
  // Ends the statement; returns why it was stopped (kNone when it ran on its own).
  StopReason EndStatement();
  // The error a statement stopped for `why` reports.
  Status StopError(StopReason why) const;

  // Interrupts the running statement, if any; it stays interrupted (the watchdog repeats the interrupt) until it
  // ends. Returns false when nothing was running.
  bool Stop(StopReason why);
  // KILL CONNECTION: stops the statement and closes the client connection.
  void Close(StopReason why);
  bool close_requested() const { return close_requested_.load(); }

  // The watchdog's round: repeats pending interrupts, applies the deadline, and checks for a vanished client.
  void Watch(SteadyClock::time_point now, bool shutting_down);

 private:
  void InterruptLocked();

  const uint32_t id_;
  const std::string user_, host_;
  const SteadyClock::time_point connected_ = SteadyClock::now();
  mutable std::mutex mu_;
  std::string db_;
  bool running_ = false;
  std::string statement_, state_;
  SteadyClock::time_point state_since_ = SteadyClock::now();
  std::optional<SteadyClock::time_point> deadline_;
  std::string timeout_advice_;
  StopReason stop_ = StopReason::kNone;
  std::function<void()> interrupt_, close_;
  std::function<bool()> client_gone_;
  std::atomic<bool> close_requested_{false};
};

class SessionRegistry {
 public:
  // Whether `killer_user` may stop (KILL) or see (SHOW PROCESSLIST) a session of `target_user`.
  using KillPolicy = std::function<bool(const std::string& killer_user, const std::string& target_user)>;
  // The default: one's own sessions, and root any.
  static bool SameUserOrRoot(const std::string& killer_user, const std::string& target_user);

  SessionRegistry();
  ~SessionRegistry();  // stops the watchdog
  SessionRegistry(const SessionRegistry&) = delete;
  SessionRegistry& operator=(const SessionRegistry&) = delete;

  std::shared_ptr<SessionActivity> Add(uint32_t id, std::string user, std::string host);
  void Remove(uint32_t id);
  std::shared_ptr<SessionActivity> Find(uint32_t id) const;
  std::vector<SessionActivity::Snapshot> List() const;
  size_t size() const;

  // SHOW STATUS's counters, shared by the server's sessions.
  StatusCounters& status() { return status_; }

  void set_may_kill(KillPolicy may_kill);
  bool MayKill(const std::string& killer_user, const std::string& target_user) const;

  // KILL [CONNECTION | QUERY] id, asked by `killer_user`: Unknown thread id (NotFound) or not owner (AccessDenied).
  Status Kill(uint32_t id, bool connection_too, const std::string& killer_user);
  // Server shutdown: interrupts every running statement, and every one that starts from now on.
  void StopAll();

  // The thread that enforces deadlines and cancels statements of clients that went away; checks every `period`.
  void StartWatchdog(std::chrono::milliseconds period = std::chrono::milliseconds(100));
  void StopWatchdog();

 private:
  void WatchdogLoop(std::chrono::milliseconds period);

  mutable std::mutex mu_;
  StatusCounters status_;
  std::map<uint32_t, std::shared_ptr<SessionActivity>> sessions_;
  KillPolicy may_kill_ = SameUserOrRoot;
  std::atomic<bool> shutting_down_{false};

  std::mutex watchdog_mu_;
  std::condition_variable watchdog_cv_;
  bool watchdog_stop_ = false;
  std::thread watchdog_;
};

}  // namespace sluice
