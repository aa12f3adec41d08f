#include "load/raw_decoder.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <ctime>

#include <optional>

#include <nlohmann/json.hpp>

#include "format/avro_decoder.h"
#include "format/json_field_reader.h"
#include "format/schema_registry.h"

namespace sluice::load {

namespace {

bool IsValidUtf8From(std::string_view s, size_t i) {
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == 0) return false;
      i++;
      continue;
    }
    size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; k++)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Most payloads are ASCII: eight bytes at a time until a byte that is not ASCII or is NUL, then byte by byte.
bool IsValidUtf8(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if ((w & kHigh) != 0 || ((w - kOnes) & ~w & kHigh) != 0) break;  // a byte >= 0x80, or a zero byte
  }
  return IsValidUtf8From(s, i);
}

// Keeps valid UTF-8 as it is; a malformed sequence (or NUL) becomes U+FFFD.
std::string_view Utf8(std::string_view s, std::string* scratch) {
  if (IsValidUtf8(s)) return s;
  scratch->clear();
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c == 0 ? 0 : c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; k++) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      scratch->append("\xEF\xBF\xBD");
      i++;
      continue;
    }
    scratch->append(s.substr(i, n));
    i += n;
  }
  return *scratch;
}

// "2024-05-01 10:00:00.123" (UTC) for epoch milliseconds. The text of the second is kept: a batch's messages
// mostly share their second, and gmtime_r + strftime per message cost more than the rest of the row.
class TimestampText {
 public:
  std::string_view Of(int64_t ms) {
    const int64_t second = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
    if (second != second_ || text_.empty()) {
      std::time_t t = static_cast<std::time_t>(second);
      std::tm tm{};
      gmtime_r(&t, &tm);
      char buf[48];
      size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
      text_.assign(buf, n);
      text_ += ".000";
      second_ = second;
    }
    const int millis = static_cast<int>(ms - second * 1000);
    char* frac = text_.data() + text_.size() - 3;
    frac[0] = static_cast<char>('0' + millis / 100);
    frac[1] = static_cast<char>('0' + millis / 10 % 10);
    frac[2] = static_cast<char>('0' + millis % 10);
    return text_;
  }

 private:
  int64_t second_ = 0;
  std::string text_;
};

// READ_KAFKA's columns in batch order (catalog::ReadKafkaColumns()).
enum RawColumn : size_t { kTopic, kPartition, kOffset, kTimestamp, kTimestampType, kHeaders, kKey, kValue, kRawColumns };

class RawDecoder : public MessageDecoder {
 public:
  explicit RawDecoder(std::string topic) : topic_(std::move(topic)) {}
  RawDecoder(std::string topic, std::optional<format::JsonFieldReader> fields, const std::vector<bool>& reads_column)
      : topic_(std::move(topic)), fields_(std::move(fields)) {
    for (size_t c = 0; c < kValue && c < reads_column.size(); c++) reads_[c] = reads_column[c];
  }
  RawDecoder(std::string topic, format::AvroDecoder avro, bool bad_value_is_null)
      : topic_(std::move(topic)), avro_(std::move(avro)), bad_value_is_null_(bad_value_is_null) {}

  Status Decode(std::string_view message, RowOrigin origin, TextBatch& out) override {
    source::KafkaMessage m;
    m.partition = origin.partition;
    m.offset = origin.offset;
    m.payload = message;
    return DecodeMessage(m, out);
  }

  Status DecodeMessage(const source::KafkaMessage& m, TextBatch& out) override {
    std::optional<std::string_view> avro_value;  // the decoded value; nullopt for NULL
    if (avro_) {
      avro_batch_.Clear();
      RETURN_IF_ERROR(avro_->Decode(m.payload, RowOrigin{m.partition, m.offset}, avro_batch_));
      if (!avro_batch_.rejected().empty() && !bad_value_is_null_) {
        for (auto& r : avro_batch_.rejected()) out.rejected().push_back(std::move(r));
        return Status::Ok();
      }
      if (avro_batch_.num_rows() == 1 && !avro_batch_.IsNull(0, 0)) avro_value = avro_batch_.Field(0, 0);
    }
    out.BeginRow();  // every column starts NULL; those the SELECT does not read stay so
    if (reads_[kTopic]) out.SetField(kTopic, topic_);
    char number[24];
    if (reads_[kPartition]) out.SetField(kPartition, Decimal(m.partition, number));
    if (reads_[kOffset]) out.SetField(kOffset, Decimal(m.offset, number));
    if (reads_[kTimestamp] && m.timestamp_ms >= 0) out.SetField(kTimestamp, timestamp_text_.Of(m.timestamp_ms));
    if (reads_[kTimestampType]) {
      switch (m.timestamp_type) {
        case source::TimestampType::kCreateTime: out.SetField(kTimestampType, "CreateTime"); break;
        case source::TimestampType::kLogAppendTime: out.SetField(kTimestampType, "LogAppendTime"); break;
        default: out.SetField(kTimestampType, "NoTimestampType"); break;
      }
    }
    if (!reads_[kHeaders]) {
    } else if (m.headers.empty()) {
      out.SetField(kHeaders, "{}");
    } else {
      nlohmann::json headers = nlohmann::json::object();
      for (const auto& [name, value] : m.headers)
        headers[std::string(Utf8(name, &scratch_))] = std::string(Utf8(value, &scratch_));  // a repeated name: last wins
      out.SetField(kHeaders, headers.dump());
    }
    if (reads_[kKey] && m.key) out.SetField(kKey, Utf8(*m.key, &scratch_));
    if (!avro_) {
      std::string_view value = Utf8(m.payload, &scratch_);
      out.SetField(kValue, value);
      if (fields_) ReadFields(value, out);
    } else if (avro_value) {
      out.SetField(kValue, Utf8(*avro_value, &scratch_));
    }
    out.FinishRow(RowOrigin{m.partition, m.offset});
    return Status::Ok();
  }

  bool wants_headers() const override { return reads_[kHeaders]; }

 private:
  static std::string_view Decimal(int64_t v, char (&buf)[24]) {
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string_view(buf, static_cast<size_t>(r.ptr - buf));
  }

  // The JSON values the transform asked for, into the batch's last columns (NULL: DuckDB extracts it).
  void ReadFields(std::string_view value, TextBatch& out) {
    fields_->Read(value, field_values_);
    const size_t first = out.num_columns() - field_values_.size();
    for (size_t k = 0; k < field_values_.size(); k++) {
      if (field_values_[k]) out.SetField(first + k, *field_values_[k]);
    }
  }

  std::string topic_;
  bool reads_[kValue] = {true, true, true, true, true, true, true};
  std::string scratch_;
  TimestampText timestamp_text_;
  std::optional<format::AvroDecoder> avro_;  // value format avro
  std::optional<format::JsonFieldReader> fields_;
  std::vector<std::optional<std::string_view>> field_values_;
  bool bad_value_is_null_ = false;
  TextBatch avro_batch_{{"value"}};
};

}  // namespace

std::unique_ptr<MessageDecoder> MakeRawDecoder(std::string topic) {
  return std::make_unique<RawDecoder>(std::move(topic));
}

Result<std::unique_ptr<MessageDecoder>> MakeRawDecoder(std::string topic,
                                                       const std::vector<std::string>& json_pointers,
                                                       const std::vector<bool>& reads_column) {
  std::optional<format::JsonFieldReader> fields;
  if (!json_pointers.empty()) {
    ASSIGN_OR_RETURN(fields, format::JsonFieldReader::Create(json_pointers));
  }
  return std::unique_ptr<MessageDecoder>(new RawDecoder(std::move(topic), std::move(fields), reads_column));
}

Result<std::unique_ptr<MessageDecoder>> MakeRawAvroDecoder(std::string topic, const std::string& registry_url,
                                                           bool bad_value_is_null) {
  format::AvroOptions o;
  o.columns = {"value"};
  o.jsonpaths = {"$"};  // the whole datum: a record becomes a JSON object
  // Every task of every pipe and job naming this registry shares one client and its cache of schemas.
  std::shared_ptr<format::SchemaRegistry> registry = format::SchemaRegistry::ForUrl(registry_url);
  o.schema_lookup = [registry](int32_t id) { return registry->Get(id); };
  ASSIGN_OR_RETURN(auto avro, format::AvroDecoder::Create(std::move(o)));
  return std::unique_ptr<MessageDecoder>(new RawDecoder(std::move(topic), std::move(avro), bad_value_is_null));
}

}  // namespace sluice::load
