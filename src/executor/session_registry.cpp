#include "executor/session_registry.h"

#include <utility>

namespace sluice {

namespace {
int64_t SecondsSince(SessionActivity::SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(SessionActivity::SteadyClock::now() - t).count();
}
}  // namespace

SessionActivity::SessionActivity(uint32_t id, std::string user, std::string host)
    : id_(id), user_(std::move(user)), host_(std::move(host)) {}

SessionActivity::Snapshot SessionActivity::Look() const {
  std::lock_guard<std::mutex> lock(mu_);
  Snapshot s;
  s.connection_id = id_;
  s.user = user_;
  s.host = host_;
  s.db = db_;
  s.running = running_;
  s.statement = statement_;
  s.state = state_;
  s.seconds_in_state = SecondsSince(state_since_);
  s.seconds_connected = SecondsSince(connected_);
  return s;
}

void SessionActivity::SetInterrupt(std::function<void()> interrupt) {
  std::lock_guard<std::mutex> lock(mu_);
  interrupt_ = std::move(interrupt);
}

void SessionActivity::SetClientHooks(std::function<void()> close, std::function<bool()> client_gone) {
  std::lock_guard<std::mutex> lock(mu_);
  close_ = std::move(close);
  client_gone_ = std::move(client_gone);
}

void SessionActivity::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  interrupt_ = nullptr;
  close_ = nullptr;
  client_gone_ = nullptr;
}

void SessionActivity::SetDatabase(std::string db) {
  std::lock_guard<std::mutex> lock(mu_);
  db_ = std::move(db);
}

void SessionActivity::BeginStatement(std::string text, std::optional<SteadyClock::time_point> deadline,
                                     std::string timeout_advice) {
  std::lock_guard<std::mutex> lock(mu_);
  running_ = true;
  statement_ = std::move(text);
  state_ = "executing";
  state_since_ = SteadyClock::now();
  deadline_ = deadline;
  timeout_advice_ = std::move(timeout_advice);
  // A KILL CONNECTION that came between statements still applies; a KILL QUERY does not carry over.
  stop_ = close_requested_ ? StopReason::kKilled : StopReason::kNone;
}

void SessionActivity::SetState(std::string state) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_ || state_ == state) return;
  state_ = std::move(state);
  state_since_ = SteadyClock::now();
}

StopReason SessionActivity::EndStatement() {
  std::lock_guard<std::mutex> lock(mu_);
  running_ = false;
  statement_.clear();
  state_.clear();
  state_since_ = SteadyClock::now();
  deadline_.reset();
  return std::exchange(stop_, StopReason::kNone);
}

Status SessionActivity::StopError(StopReason why) const {
  std::lock_guard<std::mutex> lock(mu_);
  switch (why) {
    case StopReason::kNone:
      break;
    case StopReason::kKilled:
      return Status(StatusCode::kInterrupted, "Query execution was interrupted");
    case StopReason::kTimeout:
      return Status(StatusCode::kInterrupted,
                    "Query execution was interrupted, maximum statement execution time exceeded: " + timeout_advice_);
    case StopReason::kClientGone:
      return Status(StatusCode::kInterrupted, "Query execution was interrupted: the client went away");
    case StopReason::kShutdown:
      return Status(StatusCode::kInterrupted, "Server shutdown in progress");
  }
  return Status::Ok();
}

void SessionActivity::InterruptLocked() {
  if (interrupt_) interrupt_();
}

bool SessionActivity::Stop(StopReason why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_) return false;
  if (stop_ == StopReason::kNone) stop_ = why;
  InterruptLocked();
  return true;
}

void SessionActivity::Close(StopReason why) {
  close_requested_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  if (running_) {
    if (stop_ == StopReason::kNone) stop_ = why;
    InterruptLocked();
  }
  if (close_) close_();
}

void SessionActivity::Watch(SteadyClock::time_point now, bool shutting_down) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_) return;
  if (stop_ == StopReason::kNone) {
    if (shutting_down) {
      stop_ = StopReason::kShutdown;
    } else if (deadline_ && now >= *deadline_) {
      stop_ = StopReason::kTimeout;
    } else if (client_gone_ && client_gone_()) {
      stop_ = StopReason::kClientGone;
      close_requested_ = true;
    }
  }
  // Repeated on every round: an interrupt that landed before the engine started the statement's query is lost.
  if (stop_ != StopReason::kNone) InterruptLocked();
}

bool SessionRegistry::SameUserOrRoot(const std::string& killer_user, const std::string& target_user) {
  return killer_user == target_user || killer_user == "root";
}

SessionRegistry::SessionRegistry() = default;

SessionRegistry::~SessionRegistry() { StopWatchdog(); }

std::shared_ptr<SessionActivity> SessionRegistry::Add(uint32_t id, std::string user, std::string host) {
  auto activity = std::make_shared<SessionActivity>(id, std::move(user), std::move(host));
  std::lock_guard<std::mutex> lock(mu_);
  sessions_[id] = activity;
  return activity;
}

void SessionRegistry::Remove(uint32_t id) {
  std::shared_ptr<SessionActivity> gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    gone = std::move(it->second);
    sessions_.erase(it);
  }
  gone->Detach();
}

std::shared_ptr<SessionActivity> SessionRegistry::Find(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

std::vector<SessionActivity::Snapshot> SessionRegistry::List() const {
  std::vector<std::shared_ptr<SessionActivity>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, a] : sessions_) all.push_back(a);
  }
  std::vector<SessionActivity::Snapshot> out;
  out.reserve(all.size());
  for (const auto& a : all) out.push_back(a->Look());
  return out;
}

size_t SessionRegistry::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

void SessionRegistry::set_may_kill(KillPolicy may_kill) {
  std::lock_guard<std::mutex> lock(mu_);
  may_kill_ = may_kill ? std::move(may_kill) : SameUserOrRoot;
}

bool SessionRegistry::MayKill(const std::string& killer_user, const std::string& target_user) const {
  KillPolicy check;
  {
    std::lock_guard<std::mutex> lock(mu_);
    check = may_kill_;
  }
  return check(killer_user, target_user);
}

Status SessionRegistry::Kill(uint32_t id, bool connection_too, const std::string& killer_user) {
  std::shared_ptr<SessionActivity> target = Find(id);
  if (!target) return Status::NotFound("Unknown thread id: " + std::to_string(id));
  if (!MayKill(killer_user, target->user())) {
    return Status::AccessDenied("You are not owner of thread " + std::to_string(id) +
                                ": only its user, or a user allowed to stop others' statements, may kill it");
  }
  if (connection_too) {
    target->Close(StopReason::kKilled);
  } else {
    (void)target->Stop(StopReason::kKilled);
  }
  return Status::Ok();
}

void SessionRegistry::StopAll() {
  shutting_down_ = true;
  std::vector<std::shared_ptr<SessionActivity>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, a] : sessions_) all.push_back(a);
  }
  for (const auto& a : all) (void)a->Stop(StopReason::kShutdown);
}

void SessionRegistry::StartWatchdog(std::chrono::milliseconds period) {
  std::lock_guard<std::mutex> lock(watchdog_mu_);
  if (watchdog_.joinable()) return;
  watchdog_stop_ = false;
  watchdog_ = std::thread([this, period] { WatchdogLoop(period); });
}

void SessionRegistry::StopWatchdog() {
  {
    std::lock_guard<std::mutex> lock(watchdog_mu_);
    watchdog_stop_ = true;
  }
  watchdog_cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void SessionRegistry::WatchdogLoop(std::chrono::milliseconds period) {
  std::unique_lock<std::mutex> lock(watchdog_mu_);
  while (!watchdog_stop_) {
    lock.unlock();
    std::vector<std::shared_ptr<SessionActivity>> all;
    {
      std::lock_guard<std::mutex> registry_lock(mu_);
      for (const auto& [id, a] : sessions_) all.push_back(a);
    }
    auto now = SessionActivity::SteadyClock::now();
    for (const auto& a : all) a->Watch(now, shutting_down_);
    lock.lock();
    watchdog_cv_.wait_for(lock, period, [&] { return watchdog_stop_; });
  }
}

}  // namespace sluice
