// Decoder throughput: 1,000,000 messages of the orders shape from the Routine Load reference, as JSON, as CSV
// and as Confluent-framed Avro, decoded into TextBatches of 10,000 rows (a batch is cleared and reused, as a load
// task would). Not part of the build; compile by hand, e.g.
//   g++ -std=c++20 -O2 -DNDEBUG -DSIMDJSON_THREADS_ENABLED=1 -Isrc bench/decoder_bench.cpp src/format/*.cpp
//       src/common/status.cpp -lsimdjson -lfmt -lavro -lcurl -o /tmp/decoder_bench && /tmp/decoder_bench
// It prints CPU time as well as wall time: on a shared machine the wall clock also counts other processes.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "format/avro_decoder.h"
#include "format/csv_decoder.h"
#include "format/json_decoder.h"

namespace {

using Clock = std::chrono::steady_clock;
using sluice::TextBatch;

// CPU time of this process: on a shared machine wall time also counts other processes' turns.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}
constexpr size_t kMessages = 1'000'000;
constexpr size_t kBatchRows = 10'000;
const std::vector<std::string> kColumns = {"commodity_id", "customer_name", "country", "pay_time", "price"};
const char* kNames[] = {"Mark Twain", "Oscar Wilde", "Victor Hugo", "Jane Austen", "Leo Tolstoy"};
const char* kCountries[] = {"US", "UK", "France", "UK", "Russia"};

std::vector<std::string> JsonMessages() {
  std::vector<std::string> out;
  out.reserve(kMessages);
  for (size_t i = 0; i < kMessages; i++) {
    out.push_back("{\"commodity_id\":\"" + std::to_string(i) + "\",\"customer_name\":\"" + kNames[i % 5] +
                  "\",\"country\":\"" + kCountries[i % 5] + "\",\"pay_time\":" + std::to_string(1589191487 + i) +
                  ",\"price\":" + std::to_string(875 + i % 1000) + "}");
  }
  return out;
}

std::vector<std::string> CsvMessages() {
  std::vector<std::string> out;
  out.reserve(kMessages);
  for (size_t i = 0; i < kMessages; i++) {
    out.push_back(std::to_string(i) + "," + kNames[i % 5] + "," + kCountries[i % 5] + "," +
                  std::to_string(1589191487 + i) + "," + std::to_string(875 + i % 1000));
  }
  return out;
}

// The same orders as Avro (commodity_id string, customer_name string, country string, pay_time long, price
// long), framed with schema id 1.
const char* kAvroSchema = R"({"type": "record", "name": "orders", "fields": [
  {"name": "commodity_id", "type": "string"}, {"name": "customer_name", "type": "string"},
  {"name": "country", "type": "string"}, {"name": "pay_time", "type": "long"}, {"name": "price", "type": "long"}]})";

void AppendLong(std::string& out, int64_t v) {
  uint64_t n = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (n & ~uint64_t{0x7f}) {
    out += static_cast<char>((n & 0x7f) | 0x80);
    n >>= 7;
  }
  out += static_cast<char>(n);
}
void AppendString(std::string& out, const std::string& s) {
  AppendLong(out, static_cast<int64_t>(s.size()));
  out += s;
}

std::vector<std::string> AvroMessages() {
  std::vector<std::string> out;
  out.reserve(kMessages);
  for (size_t i = 0; i < kMessages; i++) {
    std::string m("\0\0\0\0\1", 5);
    AppendString(m, std::to_string(i));
    AppendString(m, kNames[i % 5]);
    AppendString(m, kCountries[i % 5]);
    AppendLong(m, 1589191487 + static_cast<int64_t>(i));
    AppendLong(m, 875 + static_cast<int64_t>(i % 1000));
    out.push_back(std::move(m));
  }
  return out;
}

template <typename Decoder>
void Run(const char* name, Decoder& decoder, const std::vector<std::string>& messages) {
  TextBatch batch(kColumns);
  size_t bytes = 0, rows = 0, rejected = 0;
  for (const std::string& m : messages) bytes += m.size();
  const auto start = Clock::now();
  const double cpu_start = CpuSeconds();
  for (size_t i = 0; i < messages.size(); i++) {
    decoder.Decode(messages[i], sluice::RowOrigin{0, static_cast<int64_t>(i)}, batch);
    if (batch.num_rows() + batch.rejected().size() >= kBatchRows) {
      rows += batch.num_rows();
      rejected += batch.rejected().size();
      batch.Clear();
    }
  }
  rows += batch.num_rows();
  rejected += batch.rejected().size();
  const double cpu = CpuSeconds() - cpu_start;
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("%-5s %zu msgs x %.1f B, %zu rows, %zu rejected | cpu %.3f s: %.2f M msgs/s, %.0f MB/s, %.0f ns/msg"
              " | wall %.3f s\n",
              name, messages.size(), static_cast<double>(bytes) / messages.size(), rows, rejected, cpu,
              messages.size() / cpu / 1e6, bytes / cpu / 1e6, cpu * 1e9 / messages.size(), wall);
}

}  // namespace

int main() {
  using namespace sluice::format;
  const auto json = JsonMessages();
  const auto csv = CsvMessages();
  const auto avro = AvroMessages();

  JsonOptions json_options;
  json_options.columns = kColumns;
  auto json_decoder = JsonDecoder::Create(json_options);
  JsonOptions path_options = json_options;
  path_options.jsonpaths = {"$.commodity_id", "$.customer_name", "$.country", "$.pay_time", "$.price"};
  auto path_decoder = JsonDecoder::Create(path_options);

  CsvOptions csv_options;
  csv_options.column_separator = ",";
  csv_options.num_columns = 5;
  auto csv_decoder = CsvDecoder::Create(csv_options);
  CsvOptions quoted_options = csv_options;
  quoted_options.enclose = '"';
  quoted_options.escape = '\\';
  auto quoted_decoder = CsvDecoder::Create(quoted_options);
  AvroOptions avro_options;
  avro_options.columns = kColumns;
  avro_options.schema_lookup = [](int32_t) -> sluice::Result<std::string> { return std::string(kAvroSchema); };
  auto avro_decoder = AvroDecoder::Create(avro_options);
  if (!json_decoder.ok() || !path_decoder.ok() || !csv_decoder.ok() || !quoted_decoder.ok() || !avro_decoder.ok())
    return 1;

  for (int round = 0; round < 2; round++) {  // the first round warms caches and grows buffers
    std::printf("round %d\n", round + 1);
    Run("json", *json_decoder, json);
    Run("jpath", *path_decoder, json);
    Run("csv", *csv_decoder, csv);
    Run("csv-q", *quoted_decoder, csv);
    Run("avro", *avro_decoder, avro);
  }
  return 0;
}
