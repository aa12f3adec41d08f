#include "executor/read_kafka.h"

#include <algorithm>
#include <chrono>
#include <map>

#include <nlohmann/json.hpp>

#include "catalog/pipe_definition.h"
#include "common/ascii.h"
#include "common/text_batch.h"
#include "load/raw_decoder.h"
#include "source/kafka_source.h"
#include "storage/stream_table_function.h"

namespace sluice {

namespace {

constexpr const char* kRawFunction = "__sluice_read_kafka";
constexpr auto kKafkaTimeout = std::chrono::seconds(10);
// A preview that gets no message for this long while partitions are short of their end fails (broker unreachable).
constexpr auto kStallTimeout = std::chrono::seconds(30);

bool IsNumber(const std::string& s) {
  size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  return i < s.size() && s.size() <= 19 && s.find_first_not_of("0123456789", i) == std::string::npos;
}

// "", "earliest", "latest", "N" (every partition) or "p:N,p:N" (those partitions only).
Result<std::map<int32_t, std::string>> ParseOffsets(const std::string& text, const std::vector<int32_t>& partitions,
                                                    const char* what) {
  std::map<int32_t, std::string> out;
  std::string t = AsciiLower(text);
  if (t.find(':') == std::string::npos) {
    if (!t.empty() && t != "earliest" && t != "latest" && !IsNumber(t))
      return Status::InvalidArgument(std::string("READ_KAFKA ") + what + " must be '', 'earliest', 'latest', an offset "
                                     "or 'partition:offset,...', got '" + text + "'");
    for (int32_t p : partitions) out[p] = t;
    return out;
  }
  size_t start = 0;
  while (start <= t.size()) {
    size_t comma = t.find(',', start);
    std::string item = t.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t colon = item.find(':');
    if (colon == std::string::npos || !IsNumber(item.substr(0, colon)) ||
        (!IsNumber(item.substr(colon + 1)) && item.substr(colon + 1) != "earliest" && item.substr(colon + 1) != "latest"))
      return Status::InvalidArgument(std::string("READ_KAFKA ") + what + ": '" + item + "' is not partition:offset");
    int32_t p = std::stoi(item.substr(0, colon));
    if (std::find(partitions.begin(), partitions.end(), p) == partitions.end())
      return Status::InvalidArgument(std::string("READ_KAFKA ") + what + " names partition " + std::to_string(p) +
                                     ", which the topic does not have");
    out[p] = item.substr(colon + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

class KafkaPreview : public storage::RowStream {
 public:
  static Result<std::unique_ptr<storage::RowStream>> Open(const std::vector<std::string>& a) {
    // a: brokers, topic, pattern, group, start offsets, end offsets, start ts, end ts, key fmt, value fmt, max
    // errors, settings as JSON.
    if (a[0].empty()) return Status::InvalidArgument("READ_KAFKA argument 1 (bootstrap servers) must not be empty");
    if (a[1].empty() || a[1].find(',') != std::string::npos)
      return Status::InvalidArgument("READ_KAFKA argument 2 must name one topic");
    if (!a[2].empty()) return Status::NotSupported("READ_KAFKA argument 3 (topic pattern) is reserved; leave it ''");
    if (!a[8].empty() && AsciiLower(a[8]) != "raw")
      return Status::NotSupported("READ_KAFKA key format (argument 9) must be 'raw'");
    if (!a[9].empty() && AsciiLower(a[9]) != "raw" && AsciiLower(a[9]) != "avro")
      return Status::NotSupported("READ_KAFKA value format (argument 10) must be 'raw' or 'avro'");
    bool avro = AsciiLower(a[9]) == "avro";
    std::string registry_url;
    for (int i : {6, 7}) {
      if (!a[i].empty() && !IsNumber(a[i]))
        return Status::InvalidArgument("READ_KAFKA argument " + std::to_string(i + 1) +
                                       " must be a time in epoch milliseconds or '', got '" + a[i] + "'");
    }
    source::KafkaClientConfig config;
    config.brokers = a[0];
    config.topic = a[1];
    config.group_id = a[3].empty() ? "sluice_preview" : a[3];  // never committed
    nlohmann::json settings = nlohmann::json::parse(a[11].empty() ? "{}" : a[11], nullptr, false);
    if (settings.is_object()) {
      for (const auto& [k, v] : settings.items()) {
        std::string key = k.rfind("kafka.", 0) == 0 ? k.substr(6) : k;
        std::string value = v.is_string() ? v.get<std::string>() : v.dump();
        if (key == "schema.registry.url" || key == "confluent.schema.registry.url") {
          if (!avro)
            return Status::InvalidArgument("READ_KAFKA setting '" + k + "' applies to value format 'avro' only");
          registry_url = value;
          continue;
        }
        config.properties.emplace_back(key, value);
      }
    }
    if (avro && registry_url.empty())
      return Status::InvalidArgument("READ_KAFKA value format 'avro' needs the schema registry: add "
                                     "'schema.registry.url' to argument 12, e.g. MAP {'schema.registry.url': "
                                     "'http://host:8081'}");
    std::unique_ptr<load::MessageDecoder> decoder;
    if (avro) {
      ASSIGN_OR_RETURN(decoder, load::MakeRawAvroDecoder(a[1], registry_url, /*bad_value_is_null=*/true));
    } else {
      decoder = load::MakeRawDecoder(a[1]);
    }
    ASSIGN_OR_RETURN(auto source, source::KafkaSource::Create(config));
    ASSIGN_OR_RETURN(auto partitions, source->Partitions(kKafkaTimeout));
    ASSIGN_OR_RETURN(auto starts, ParseOffsets(a[4], partitions, "argument 5 (starting offsets)"));
    ASSIGN_OR_RETURN(auto ends, ParseOffsets(a[5], partitions, "argument 6 (ending offsets)"));
    auto preview = std::unique_ptr<KafkaPreview>(new KafkaPreview(a[1], std::move(decoder)));
    std::map<int32_t, int64_t> assign;
    for (int32_t p : partitions) {
      if (!starts.count(p)) continue;
      ASSIGN_OR_RETURN(auto w, source->QueryWatermarks(p, kKafkaTimeout));
      const std::string& s = starts[p];
      int64_t from = s.empty() || s == "earliest" ? w.low : s == "latest" ? w.high : std::stoll(s);
      if (!a[6].empty()) {
        ASSIGN_OR_RETURN(from, source->OffsetForTimestamp(p, std::stoll(a[6]), kKafkaTimeout));
      }
      from = std::clamp(from, w.low, w.high);
      const std::string e = ends.count(p) ? ends[p] : "";
      int64_t to = e.empty() || e == "latest" ? w.high : e == "earliest" ? w.low : std::stoll(e);
      if (!a[7].empty()) {
        ASSIGN_OR_RETURN(to, source->OffsetForTimestamp(p, std::stoll(a[7]), kKafkaTimeout));
      }
      to = std::min(to, w.high);
      if (from < to) {
        assign[p] = from;
        preview->end_[p] = to;
      }
    }
    if (!assign.empty()) RETURN_IF_ERROR(source->Assign(assign));
    preview->source_ = std::move(source);
    return std::unique_ptr<storage::RowStream>(std::move(preview));
  }

  Status Next(size_t max_rows, std::vector<storage::StreamRow>& rows) override {
    auto stalled_since = std::chrono::steady_clock::now();
    while (!end_.empty()) {
      TextBatch batch(columns_);
      source::ConsumeLimits limits;
      limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
      limits.max_messages = max_rows;
      limits.want_headers = true;
      Status decode_status;
      ASSIGN_OR_RETURN(auto consumed, source_->Consume(limits, [&](const source::KafkaMessage& m) {
                         auto end = end_.find(m.partition);
                         if (end == end_.end() || m.offset >= end->second) return true;  // past its end
                         decode_status = decoder_->DecodeMessage(m, batch);
                         if (!decode_status.ok()) return false;  // e.g. the schema registry is down
                         if (m.offset + 1 >= end->second) end_.erase(end);
                         return batch.num_rows() < max_rows;
                       }));
      RETURN_IF_ERROR(decode_status);
      for (const auto& [p, next] : consumed.next_offsets) {
        auto end = end_.find(p);
        if (end != end_.end() && next >= end->second) end_.erase(end);
      }
      for (size_t r = 0; r < batch.num_rows(); r++) {
        storage::StreamRow row;
        for (size_t c = 0; c < batch.num_columns(); c++) {
          if (batch.IsNull(c, r)) row.emplace_back(std::nullopt);
          else row.emplace_back(std::string(batch.Field(c, r)));
        }
        rows.push_back(std::move(row));
      }
      if (!rows.empty()) return Status::Ok();
      if (std::chrono::steady_clock::now() - stalled_since > kStallTimeout)
        return Status::Unavailable("READ_KAFKA: no message from topic '" + topic_ + "' for 30 s although partitions "
                                   "have more; is the broker reachable?");
    }
    return Status::Ok();
  }

 private:
  KafkaPreview(std::string topic, std::unique_ptr<load::MessageDecoder> decoder)
      : topic_(std::move(topic)), decoder_(std::move(decoder)) {
    for (const auto& [name, type] : catalog::ReadKafkaColumns()) columns_.push_back(name);
  }

  std::string topic_;
  std::unique_ptr<load::MessageDecoder> decoder_;
  std::vector<std::string> columns_;
  std::unique_ptr<source::KafkaSource> source_;
  std::map<int32_t, int64_t> end_;  // partitions still to read: offset where each stops (exclusive)
};

}  // namespace

Status RegisterReadKafka(storage::Connection& con) {
  std::vector<std::string> columns;
  for (const auto& [name, type] : catalog::ReadKafkaColumns()) columns.push_back(name);
  return storage::RegisterStreamTableFunction(con, kRawFunction, 12, columns, KafkaPreview::Open);
}

Status DefineReadKafkaMacro(storage::Connection& con) {
  // A table macro: DuckDB's own error for a wrong number of arguments lists these parameter names.
  return con.Execute(
      "CREATE OR REPLACE TEMP MACRO read_kafka(bootstrap_servers, topic, topic_pattern, group_id, starting_offsets, "
      "ending_offsets, starting_timestamp, ending_timestamp, key_format, value_format, max_errors, kafka_settings) "
      // Columns are qualified: `topic` alone would be the macro's parameter.
      "AS TABLE SELECT r.topic AS topic, CAST(r.\"partition\" AS INTEGER) AS \"partition\", "
      "CAST(r.\"offset\" AS BIGINT) AS \"offset\", CAST(r.\"timestamp\" AS TIMESTAMP) AS \"timestamp\", "
      "r.timestamp_type AS timestamp_type, CAST(r.headers AS JSON) AS headers, r.\"key\" AS \"key\", "
      "r.\"value\" AS \"value\" FROM " + std::string(kRawFunction) + "(CAST(bootstrap_servers AS VARCHAR), CAST(topic AS VARCHAR), "
      "CAST(topic_pattern AS VARCHAR), CAST(group_id AS VARCHAR), CAST(starting_offsets AS VARCHAR), "
      "CAST(ending_offsets AS VARCHAR), CAST(starting_timestamp AS VARCHAR), CAST(ending_timestamp AS VARCHAR), "
      "CAST(key_format AS VARCHAR), CAST(value_format AS VARCHAR), CAST(max_errors AS VARCHAR), "
      "CAST(to_json(kafka_settings) AS VARCHAR)) AS r");
}

}  // namespace sluice
