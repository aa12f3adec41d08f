#include "command_handler.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace testbroker {

namespace {

Reply Ok(const std::string& text) { return {"OK " + text}; }
Reply Err(const std::string& text) { return {"ERR " + text}; }

bool EqualsNoCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

// Kafka protocol API keys that tests are likely to break; other keys work by number.
struct ApiName {
  const char* name;
  int16_t key;
};
constexpr ApiName kApiNames[] = {
    {"Produce", 0},          {"Fetch", 1},           {"ListOffsets", 2},      {"Metadata", 3},
    {"OffsetCommit", 8},     {"OffsetFetch", 9},     {"FindCoordinator", 10}, {"JoinGroup", 11},
    {"Heartbeat", 12},       {"LeaveGroup", 13},     {"SyncGroup", 14},       {"DescribeGroups", 15},
    {"ListGroups", 16},      {"ApiVersions", 18},    {"CreateTopics", 19},    {"DeleteRecords", 21},
    {"InitProducerId", 22},  {"OffsetForLeaderEpoch", 23}, {"AddPartitionsToTxn", 24},
    {"AddOffsetsToTxn", 25}, {"EndTxn", 26},         {"TxnOffsetCommit", 28},
};

std::string ApiLabel(int16_t key) {
  for (const auto& api : kApiNames)
    if (api.key == key) return std::string(api.name) + "(" + std::to_string(key) + ")";
  return "ApiKey(" + std::to_string(key) + ")";
}

std::optional<int16_t> ParseApiKey(const std::string& text) {
  if (auto n = ParseInt(text, 0, 100)) return static_cast<int16_t>(*n);
  for (const auto& api : kApiNames)
    if (EqualsNoCase(text, api.name)) return api.key;
  return std::nullopt;
}

// Accepts a numeric code or librdkafka's name for it (NOT_LEADER_FOR_PARTITION, _TRANSPORT,
// optionally prefixed RD_KAFKA_RESP_ERR_); librdkafka's own table says which codes exist.
std::optional<rd_kafka_resp_err_t> ParseErrorCode(std::string text) {
  const std::string prefix = "RD_KAFKA_RESP_ERR_";
  if (text.size() > prefix.size() && EqualsNoCase(text.substr(0, prefix.size()), prefix))
    text = text.substr(prefix.size());
  auto number = ParseInt(text, -1000, 1000);
  const rd_kafka_err_desc* descs = nullptr;
  size_t count = 0;
  rd_kafka_get_err_descs(&descs, &count);
  for (size_t i = 0; i < count; ++i) {
    if (!descs[i].name) continue;  // the table has holes between code ranges
    if (number ? descs[i].code == *number : EqualsNoCase(text, descs[i].name)) return descs[i].code;
  }
  return std::nullopt;
}

// Broker ids run 1..N; "all" means every broker (the mock API's -1).
std::optional<int32_t> ParseBrokerId(const std::string& text, int brokers) {
  if (EqualsNoCase(text, "all")) return -1;
  if (auto n = ParseInt(text, 1, brokers)) return static_cast<int32_t>(*n);
  return std::nullopt;
}

}  // namespace

std::string CommandHandler::CreateTopic(const TopicSpec& spec) {
  int replication = std::min(3, brokers_);
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(cluster_, spec.name.c_str(), spec.partitions, replication);
  if (err) return std::string("cannot create topic ") + spec.name + ": " + rd_kafka_err2str(err);
  topics_.insert(spec.name);
  return "";
}

Reply CommandHandler::Run(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> args;
  for (std::string word; in >> word;) args.push_back(word);
  if (args.empty() || args[0][0] == '#') return {};

  const std::string& cmd = args[0];
  if (cmd == "broker") return BrokerUpDown(args);
  if (cmd == "leader") return Leader(args);
  if (cmd == "errors") return Errors(args);
  if (cmd == "create") return Create(args);
  if (cmd == "topic-error") return TopicError(args);
  if (cmd == "bootstrap" && args.size() == 1) return Ok(Bootstrap());
  if (cmd == "quit" && args.size() == 1) return {"OK bye", true};
  if (cmd == "help" && args.size() == 1)
    return Ok("commands: broker down|up K|all; leader TOPIC PARTITION BROKER|-1; "
              "errors APIKEY CODE...|clear; create TOPIC PARTITIONS; topic-error TOPIC CODE|clear; "
              "bootstrap; quit");
  return Err("unknown command '" + line + "' (try: help)");
}

Reply CommandHandler::BrokerUpDown(const std::vector<std::string>& args) {
  if (args.size() != 3 || (args[1] != "down" && args[1] != "up"))
    return Err("usage: broker down|up K|all");
  auto id = ParseBrokerId(args[2], brokers_);
  if (!id) return Err("bad broker id '" + args[2] + "' (1.." + std::to_string(brokers_) + " or all)");
  bool down = args[1] == "down";
  rd_kafka_resp_err_t err =
      down ? rd_kafka_mock_broker_set_down(cluster_, *id) : rd_kafka_mock_broker_set_up(cluster_, *id);
  if (err) return Err(rd_kafka_err2str(err));
  return Ok("broker " + args[2] + " " + args[1]);
}

Reply CommandHandler::Leader(const std::vector<std::string>& args) {
  if (args.size() != 4) return Err("usage: leader TOPIC PARTITION BROKER|-1");
  if (!topics_.contains(args[1])) return Err("unknown topic '" + args[1] + "' (only topics made by --topic or create)");
  auto partition = ParseInt(args[2], 0, 9999);
  if (!partition) return Err("bad partition '" + args[2] + "'");
  // -1 leaves the partition without a leader, which the mock supports.
  auto broker = args[3] == "-1" ? std::optional<long>(-1) : ParseInt(args[3], 1, brokers_);
  if (!broker) return Err("bad broker id '" + args[3] + "' (1.." + std::to_string(brokers_) + " or -1)");
  rd_kafka_resp_err_t err = rd_kafka_mock_partition_set_leader(cluster_, args[1].c_str(),
                                                               static_cast<int32_t>(*partition),
                                                               static_cast<int32_t>(*broker));
  if (err) return Err(rd_kafka_err2str(err));
  return Ok(args[1] + " [" + args[2] + "] leader " + args[3]);
}

Reply CommandHandler::Errors(const std::vector<std::string>& args) {
  if (args.size() < 3) return Err("usage: errors APIKEY CODE [CODE...] | errors APIKEY clear");
  auto key = ParseApiKey(args[1]);
  if (!key) return Err("unknown API key '" + args[1] + "'");
  if (args.size() == 3 && args[2] == "clear") {
    rd_kafka_mock_clear_request_errors(cluster_, *key);
    return Ok("cleared errors for " + ApiLabel(*key));
  }
  std::vector<rd_kafka_resp_err_t> codes;
  for (size_t i = 2; i < args.size(); ++i) {
    auto code = ParseErrorCode(args[i]);
    if (!code) return Err("unknown error code '" + args[i] + "'");
    codes.push_back(*code);
  }
  rd_kafka_mock_push_request_errors_array(cluster_, *key, codes.size(), codes.data());
  return Ok(ApiLabel(*key) + ": next " + std::to_string(codes.size()) + " request(s) fail");
}

Reply CommandHandler::Create(const std::vector<std::string>& args) {
  if (args.size() != 3) return Err("usage: create TOPIC PARTITIONS");
  std::string error;
  auto spec = ParseTopicSpec(args[1], args[2], error);
  if (!spec) return Err(error);
  error = CreateTopic(*spec);
  if (!error.empty()) return Err(error);
  return Ok("created " + spec->name + " with " + args[2] + " partition(s)");
}

// The mock creates any topic a client's Metadata request names, so "topic does not exist"
// can only be had by pinning an error on the name (used by Metadata and AddPartitionsToTxn).
Reply CommandHandler::TopicError(const std::vector<std::string>& args) {
  if (args.size() != 3) return Err("usage: topic-error TOPIC CODE|clear");
  std::string error;
  if (!ParseTopicSpec(args[1], "1", error)) return Err(error);
  auto code = args[2] == "clear" ? std::optional(RD_KAFKA_RESP_ERR_NO_ERROR) : ParseErrorCode(args[2]);
  if (!code) return Err("unknown error code '" + args[2] + "'");
  rd_kafka_mock_topic_set_error(cluster_, args[1].c_str(), *code);
  return Ok(args[1] + " answers " + rd_kafka_err2name(*code));
}

}  // namespace testbroker
