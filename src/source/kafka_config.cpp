#include "source/kafka_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <mutex>

#include "common/egress_policy.h"
#include "common/log.h"
#include "common/secret_names.h"

namespace sluice::source {

namespace internal {
namespace {

struct Setting {
  const char* key;
  const char* value;
};

// Defaults a job may override with property.*.
constexpr std::array<Setting, 6> kDefaults = {{
    // Out-of-range offsets must surface as an error the job can pause on, never as a silent jump.
    {"auto.offset.reset", "error"},
    // A caught-up task should notice new data within ~100 ms rather than librdkafka's 500 ms.
    {"fetch.wait.max.ms", "100"},
    // librdkafka prefetches up to 64 MB by default; a task only takes one batch, so memory should follow the
    // batch limits rather than the backlog.
    {"queued.max.messages.kbytes", "16384"},
    // Reconnect to a recovered broker within seconds instead of librdkafka's 10 s backoff ceiling.
    {"reconnect.backoff.max.ms", "2000"},
    // We never join the group, so the session timeout has one effect left: how long a group-offset commit may
    // wait for a coordinator, during which destroying the client blocks too. Best-effort commits should not
    // hold a task's shutdown for librdkafka's default 45 s.
    {"session.timeout.ms", "1000"},
    {"heartbeat.interval.ms", "300"},
}};

// Settings the source's correctness rests on: progress lives in DuckDB, and caught-up detection needs EOF events.
constexpr std::array<Setting, 3> kForced = {{
    {"enable.auto.commit", "false"},
    {"enable.auto.offset.store", "false"},
    {"enable.partition.eof", "true"},
}};

// The probe fetches one message at a time: answer empty fetches quickly and do not prefetch.
constexpr std::array<Setting, 2> kProbeForced = {{
    {"fetch.wait.max.ms", "10"},
    {"queued.min.messages", "1"},
}};

// librdkafka logs from its own threads; sluice::log::Write is thread-safe. librdkafka's sensitive properties are
// redacted by librdkafka itself in its configuration dumps.
void ForwardLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  log::Level l = level <= 3 ? log::Level::kError
                 : level == 4 ? log::Level::kWarn
                 : level <= 6 ? log::Level::kInfo
                              : log::Level::kDebug;
  if (rk != nullptr && fac != nullptr && std::string_view(fac) == "FAIL") {
    if (auto* errors = static_cast<ClientErrors*>(rd_kafka_opaque(rk))) errors->RecordConnectionFailure(buf);
  }
  if (!log::Enabled(l)) return;
  log::Write(l, "kafka", fmt::format("{} {}: {}", rk ? rd_kafka_name(rk) : "-", fac, buf));
}

void RecordError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  log::Debug("kafka", "{}: {}", rk ? rd_kafka_name(rk) : "-", reason);  // librdkafka has logged it already
  if (opaque != nullptr) static_cast<ClientErrors*>(opaque)->Record(static_cast<rd_kafka_resp_err_t>(err), reason);
}

Status Set(rd_kafka_conf_t* conf, const char* key, const char* value) {
  char errstr[512];
  if (rd_kafka_conf_set(conf, key, value, errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
    return Status::Internal(fmt::format("cannot set Kafka client setting {}: {}", key, errstr));
  return Status::Ok();
}

}  // namespace

void ClientErrors::RecordConnectionFailure(const char* reason) {
  std::lock_guard<std::mutex> lock(mu_);
  ++last_connection_failure_.seq;
  last_connection_failure_.err = RD_KAFKA_RESP_ERR__TRANSPORT;
  last_connection_failure_.at = std::chrono::steady_clock::now();
  std::string text = reason != nullptr ? reason : "";
  // "[thrd:host:port/bootstrap]: host:port/bootstrap: Connect to ... failed: Connection refused (after 0ms in state
  // CONNECT, 1 identical error(s) suppressed)": the thread name and the repeat count mean nothing to a user.
  if (text.rfind("[thrd:", 0) == 0) {
    if (size_t end = text.find("]: "); end != std::string::npos) text = text.substr(end + 3);
  }
  if (size_t repeat = text.find(", ") ; repeat != std::string::npos && text.find("identical error", repeat) != std::string::npos)
    text = text.substr(0, repeat) + ")";
  last_connection_failure_.reason = std::move(text);
}

ClientErrors::Entry ClientErrors::LastConnectionFailure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_connection_failure_;
}

std::optional<std::string> ClientErrors::RecentConnectionFailure(std::chrono::milliseconds window) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_connection_failure_.seq == 0 || std::chrono::steady_clock::now() - last_connection_failure_.at > window)
    return std::nullopt;
  return last_connection_failure_.reason;
}

void ClientErrors::Record(rd_kafka_resp_err_t err, const char* reason) {
  std::lock_guard<std::mutex> lock(mu_);
  ++last_.seq;
  last_.err = err;
  last_.reason = reason != nullptr ? reason : "";
}

ClientErrors::Entry ClientErrors::Last() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

bool IsSluiceOwnProperty(std::string_view key) { return key == "kafka_default_offsets"; }

// librdkafka settings that read the server's files, load libraries or run commands: a user who may create a load
// must not reach the server's machine through them (docs/security.md). Certificates and keys go inline instead
// (ssl.ca.pem, ssl.certificate.pem, ssl.key.pem).
bool ReachesServerFiles(std::string_view key) {
  auto ends_with = [&](std::string_view suffix) {
    return key.size() >= suffix.size() && key.substr(key.size() - suffix.size()) == suffix;
  };
  return ends_with(".location") || key == "plugin.library.paths" || key == "sasl.kerberos.keytab" ||
         key == "sasl.kerberos.kinit.cmd" || key == "ssl.ca.certificate.stores";
}

std::string MaskSecrets(std::string text, const KafkaClientConfig& config) {
  for (const auto& [key, value] : config.properties) {
    if (value.empty() || !IsSecretName(key)) continue;
    for (size_t pos = text.find(value); pos != std::string::npos; pos = text.find(value, pos + 6))
      text.replace(pos, value.size(), "******");
  }
  return text;
}

namespace {

// librdkafka's connect, behind the egress allow list: every broker connection (the bootstrap list and every broker
// the cluster's metadata names) is checked on the address it resolved to. `nodename` is the broker's "host:port".
// A refusal reads "Connect to ipv4#10.1.2.3:9092 failed: Permission denied" in the job's errors.
int ConnectIfAllowed(int sockfd, const struct sockaddr* addr, int addrlen, const char* nodename, void*) {
  std::string_view node = nodename ? nodename : "";
  std::string_view host = node.substr(0, node.rfind(':'));
  if (!egress::CurrentEgressPolicy().AllowsConnection(host, addr)) {
    // librdkafka retries every few seconds: one line per broker a minute is enough to tell.
    static std::mutex mu;
    static std::map<std::string, std::chrono::steady_clock::time_point> logged;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mu);
    auto [at, fresh] = logged.try_emplace(std::string(node), now);
    if (fresh || now - at->second >= std::chrono::minutes(1)) {
      at->second = now;
      log::Warn("egress", "refused a connection to Kafka broker {}: not in --allow-egress", node);
    }
    return EACCES;
  }
  if (::connect(sockfd, addr, static_cast<socklen_t>(addrlen)) == -1 && errno != EINPROGRESS) return errno;
  return 0;
}

}  // namespace

Result<ConfHandle> BuildKafkaConf(const KafkaClientConfig& config, ClientRole role) {
  if (config.brokers.empty()) return Status::InvalidArgument("kafka_broker_list is empty: name at least one host:port");
  if (config.topic.empty()) return Status::InvalidArgument("kafka_topic is empty");
  // The hosts a statement names are checked when it arrives, with an error naming them; the connections again.
  RETURN_IF_ERROR(egress::CheckEgressHostList("Kafka broker", config.brokers, 9092));
  for (const auto& [key, value] : config.properties)
    if (key == "bootstrap.servers" || key == "metadata.broker.list")
      RETURN_IF_ERROR(egress::CheckEgressHostList("Kafka broker", value, 9092));

  ConfHandle conf(rd_kafka_conf_new());
  for (const Setting& s : kDefaults) RETURN_IF_ERROR(Set(conf.get(), s.key, s.value));
  RETURN_IF_ERROR(Set(conf.get(), "bootstrap.servers", config.brokers.c_str()));
  std::string group = config.group_id.empty() ? "sluice_" + config.topic : config.group_id;
  RETURN_IF_ERROR(Set(conf.get(), "group.id", group.c_str()));
  std::string client = config.client_id.empty() ? "sluice" : config.client_id;
  if (role == ClientRole::kProbe) client += "-probe";
  if (role == ClientRole::kMetadata) client += "-metadata";
  RETURN_IF_ERROR(Set(conf.get(), "client.id", client.c_str()));

  for (const auto& [key, value] : config.properties) {
    if (IsSluiceOwnProperty(key)) continue;
    if (ReachesServerFiles(key))
      return Status::AccessDenied("Access denied; you need (at least one of) the FILE privilege(s) for this "
                                  "operation: Kafka property \"property." + key + "\" names a file, library or "
                                  "command of the server; give certificates and keys inline (ssl.ca.pem, "
                                  "ssl.certificate.pem, ssl.key.pem)");
    char errstr[512];
    if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
      // librdkafka quotes bad values in its reason; MaskSecrets keeps secret ones out.
      return Status::InvalidArgument(
          fmt::format("invalid Kafka property \"property.{}\": {}", key, MaskSecrets(errstr, config)));
    }
    for (const Setting& s : kForced) {
      if (key == s.key && value != s.value)
        log::Warn("kafka", "property.{} is ignored: Sluice keeps its own progress and needs {}={}", key, s.key,
                  s.value);
    }
  }

  for (const Setting& s : kForced) RETURN_IF_ERROR(Set(conf.get(), s.key, s.value));
  if (role == ClientRole::kProbe)
    for (const Setting& s : kProbeForced) RETURN_IF_ERROR(Set(conf.get(), s.key, s.value));
  return conf;
}

Result<KafkaHandle> NewKafkaClient(const KafkaClientConfig& config, ClientRole role, ClientErrors* errors) {
  ASSIGN_OR_RETURN(ConfHandle conf, BuildKafkaConf(config, role));
  rd_kafka_conf_set_log_cb(conf.get(), &ForwardLog);
  // Without an error_cb librdkafka would log each client error a second time and we could not see them.
  rd_kafka_conf_set_error_cb(conf.get(), &RecordError);
  rd_kafka_conf_set_opaque(conf.get(), errors);
  if (!egress::CurrentEgressPolicy().unrestricted()) rd_kafka_conf_set_connect_cb(conf.get(), &ConnectIfAllowed);

  char errstr[512];
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr);
  if (rk == nullptr) {
    return Status::InvalidArgument(
        fmt::format("cannot create a Kafka client with these properties: {}", MaskSecrets(errstr, config)));
  }
  (void)conf.release();  // rd_kafka_new took ownership
  KafkaHandle handle(rk);
  // Route errors and other events of the main queue to the consumer queue, which Consume() serves.
  rd_kafka_poll_set_consumer(rk);
  return handle;
}

}  // namespace internal

Status ValidateKafkaClientConfig(const KafkaClientConfig& config) {
  return internal::BuildKafkaConf(config, internal::ClientRole::kConsumer).status();
}

}  // namespace sluice::source
