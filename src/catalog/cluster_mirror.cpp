#include "catalog/cluster_mirror.h"

#include "common/ascii.h"
#include "common/log.h"

namespace sluice::catalog {

ClusterMirror::ClusterMirror(std::unique_ptr<ClusterDefinitionStore> store, MirrorCopy copy, std::string module)
    : store_(std::move(store)), copy_(std::move(copy)), module_(std::move(module)) {}

ClusterMirror::~ClusterMirror() {
  {
    std::lock_guard<std::mutex> lock(poll_mu_);
    stopping_ = true;
  }
  poll_cv_.notify_all();
  if (poller_.joinable()) poller_.join();
}

Status ClusterMirror::Start(std::chrono::milliseconds poll) {
  {
    ASSIGN_OR_RETURN(bool published, copy_.published());
    std::lock_guard<std::mutex> sync(sync_mu_);
    published_ = published;
  }
  (void)Sync(false);
  poller_ = std::thread([this, poll] { PollLoop(poll); });
  return Status::Ok();
}

void ClusterMirror::PollLoop(std::chrono::milliseconds poll) {
  std::unique_lock<std::mutex> lock(poll_mu_);
  while (!stopping_) {
    poll_cv_.wait_for(lock, poll, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    (void)Sync(false);
    lock.lock();
  }
}

Status ClusterMirror::Refusal(const std::string& where, const Status& st) const {
  if (st.code() != StatusCode::kUnavailable && st.code() != StatusCode::kConflict) return st;
  return Status(st.code(), where + ": " + store_->kind().nouns + " are shared by the cluster's nodes and cannot "
                               "change while PostgreSQL at " + store_->Where() + " does not answer (" + st.message() +
                               "); nothing changed, run the statement again once it does");
}

Status ClusterMirror::Sync(bool on_demand) {
  std::lock_guard<std::mutex> sync(sync_mu_);
  const auto now = std::chrono::steady_clock::now();
  if (on_demand && now - last_failure_ < std::chrono::seconds(1)) return Status::Ok();
  const ClusterDefinitionKind& kind = store_->kind();
  std::vector<std::string> changed;
  Status st = [&]() -> Status {
    if (!published_) {
      ASSIGN_OR_RETURN(auto mine, copy_.own());
      ASSIGN_OR_RETURN(auto taken, store_->Publish(mine));
      for (const auto& name : taken)
        log::Warn(module_, "{} '{}' of this node has a namesake in the cluster: the cluster's definition replaces "
                  "this node's", kind.noun, name);
      if (!mine.empty())
        log::Info(module_, "this node's {} {} offered to the cluster ({} published)", mine.size(), kind.nouns,
                  mine.size() - taken.size());
      RETURN_IF_ERROR(copy_.mark_published());
      published_ = true;
    }
    ASSIGN_OR_RETURN(int64_t version, store_->Version());
    if (version == applied_version_) return Status::Ok();
    ASSIGN_OR_RETURN(SharedDefinitions all, store_->List());
    std::map<std::string, const SharedDefinition*> desired;
    for (const auto& c : all.items) desired[AsciiLower(c.name)] = &c;
    const std::set<std::string> had = copy_.names();
    std::vector<std::string> removed;
    std::vector<const SharedDefinition*> written;
    std::map<std::string, std::string> fingerprints;
    for (const auto& name : had)
      if (!desired.count(name)) removed.push_back(name);
    for (const auto& [key, c] : desired) {
      std::string fingerprint = c->Fingerprint();
      auto it = applied_.find(key);
      if (!had.count(key) || it == applied_.end() || it->second != fingerprint) written.push_back(c);
      fingerprints[key] = std::move(fingerprint);
    }
    if (!removed.empty() || !written.empty()) RETURN_IF_ERROR(copy_.apply(removed, written));
    applied_ = std::move(fingerprints);
    applied_version_ = all.version;
    changed = removed;
    for (const auto* c : written) changed.push_back(c->name);
    return Status::Ok();
  }();
  if (!changed.empty()) {
    std::string names;
    for (const auto& n : changed) names += (names.empty() ? "" : ", ") + n;
    log::Debug(module_, "{} in step with the cluster's (version {}): {}", kind.nouns, applied_version_, names);
  }
  if (!st.ok()) {
    last_failure_ = now;
    if (!outage_logged_)
      log::Warn(module_, "cannot read the cluster's {}: {}; this node answers from its copy and keeps retrying every "
                "second", kind.nouns, st.message());
    outage_logged_ = true;
  } else if (outage_logged_) {
    log::Info(module_, "the cluster's {} are readable again", kind.nouns);
    outage_logged_ = false;
  }
  return st;
}

}  // namespace sluice::catalog
