#include "load/raw_decoder.h"

#include <ctime>

#include <nlohmann/json.hpp>

namespace sluice::load {

namespace {

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
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

std::string TimestampText(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03d", static_cast<int>(ms % 1000));
  return buf;
}

class RawDecoder : public MessageDecoder {
 public:
  explicit RawDecoder(std::string topic) : topic_(std::move(topic)) {}

  Status Decode(std::string_view message, RowOrigin origin, TextBatch& out) override {
    source::KafkaMessage m;
    m.partition = origin.partition;
    m.offset = origin.offset;
    m.payload = message;
    return DecodeMessage(m, out);
  }

  Status DecodeMessage(const source::KafkaMessage& m, TextBatch& out) override {
    out.BeginRow();
    out.SetField(0, topic_);
    out.SetField(1, std::to_string(m.partition));
    out.SetField(2, std::to_string(m.offset));
    if (m.timestamp_ms >= 0) out.SetField(3, TimestampText(m.timestamp_ms));
    else out.SetNull(3);
    switch (m.timestamp_type) {
      case source::TimestampType::kCreateTime: out.SetField(4, "CreateTime"); break;
      case source::TimestampType::kLogAppendTime: out.SetField(4, "LogAppendTime"); break;
      default: out.SetField(4, "NoTimestampType"); break;
    }
    nlohmann::json headers = nlohmann::json::object();
    for (const auto& [name, value] : m.headers)
      headers[std::string(Utf8(name, &scratch_))] = std::string(Utf8(value, &scratch_));  // a repeated name: last wins
    out.SetField(5, headers.dump());
    if (m.key) out.SetField(6, Utf8(*m.key, &scratch_));
    else out.SetNull(6);
    out.SetField(7, Utf8(m.payload, &scratch_));
    out.FinishRow(RowOrigin{m.partition, m.offset});
    return Status::Ok();
  }

  bool wants_headers() const override { return true; }

 private:
  std::string topic_;
  std::string scratch_;
};

}  // namespace

std::unique_ptr<MessageDecoder> MakeRawDecoder(std::string topic) {
  return std::make_unique<RawDecoder>(std::move(topic));
}

}  // namespace sluice::load
