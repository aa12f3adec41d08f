// avroproducer: writes Avro records in the Confluent wire format (0x00, the schema id as 4 big-endian bytes, the
// Avro binary body) to one partition of a Kafka topic. A test tool: records are encoded with Apache avro-c and
// produced with librdkafka.
//
//   avroproducer --brokers 127.0.0.1:9092 --topic t [--partition 0] --schema-id 7 --schema sensor.avsc < records
//
// stdin holds one JSON record per line, as the schema describes it: records are objects (a missing field is null),
// enums their symbol, bytes and fixed strings of U+0000..U+00FF (one character per byte, Avro's JSON encoding),
// maps objects. A union takes null, `{"<branch type name>": value}` (Avro's JSON encoding), or a plain value,
// which goes to the first branch of a matching kind. With --hex, each line is instead a message's bytes in hex,
// produced as they are (for malformed messages). Prints "produced <n>" when every message was delivered.
#include <avro.h>
#include <librdkafka/rdkafka.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "avroproducer: " << message << "\n";
  std::exit(1);
}

avro_schema_t Resolve(avro_schema_t s) {
  while (avro_typeof(s) == AVRO_LINK) s = avro_schema_link_target(s);
  return s;
}

// A string of U+0000..U+00FF (UTF-8) -> one byte per character.
std::string Latin1Bytes(const std::string& s, const std::string& where) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if ((c & 0xe0) == 0xc0 && i + 1 < s.size() && c <= 0xc3) {
      out += static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3f));
      i++;
    } else {
      Die(where + ": bytes must be characters U+0000..U+00FF");
    }
  }
  return out;
}

bool Matches(avro_schema_t branch, const json& j) {
  switch (avro_typeof(Resolve(branch))) {
    case AVRO_NULL: return j.is_null();
    case AVRO_BOOLEAN: return j.is_boolean();
    case AVRO_INT32:
    case AVRO_INT64: return j.is_number_integer();
    case AVRO_FLOAT:
    case AVRO_DOUBLE: return j.is_number();
    case AVRO_STRING:
    case AVRO_BYTES:
    case AVRO_FIXED:
    case AVRO_ENUM: return j.is_string();
    case AVRO_ARRAY: return j.is_array();
    case AVRO_RECORD:
    case AVRO_MAP: return j.is_object();
    default: return false;
  }
}

void Check(int rc, const std::string& where) {
  if (rc != 0) Die(where + ": " + avro_strerror());
}

void Fill(avro_value_t* v, const json& j, const std::string& where) {
  avro_schema_t schema = avro_value_get_schema(v);
  switch (avro_value_get_type(v)) {
    case AVRO_NULL:
      if (!j.is_null()) Die(where + ": expected null");
      Check(avro_value_set_null(v), where);
      return;
    case AVRO_BOOLEAN:
      if (!j.is_boolean()) Die(where + ": expected a boolean");
      Check(avro_value_set_boolean(v, j.get<bool>()), where);
      return;
    case AVRO_INT32:
      if (!j.is_number_integer()) Die(where + ": expected an int");
      Check(avro_value_set_int(v, j.get<int32_t>()), where);
      return;
    case AVRO_INT64:
      if (!j.is_number_integer()) Die(where + ": expected a long");
      Check(avro_value_set_long(v, j.get<int64_t>()), where);
      return;
    case AVRO_FLOAT:
      if (!j.is_number()) Die(where + ": expected a float");
      Check(avro_value_set_float(v, j.get<float>()), where);
      return;
    case AVRO_DOUBLE:
      if (!j.is_number()) Die(where + ": expected a double");
      Check(avro_value_set_double(v, j.get<double>()), where);
      return;
    case AVRO_STRING: {
      if (!j.is_string()) Die(where + ": expected a string");
      const std::string& s = j.get_ref<const std::string&>();
      Check(avro_value_set_string_len(v, s.c_str(), s.size() + 1), where);
      return;
    }
    case AVRO_BYTES: {
      if (!j.is_string()) Die(where + ": expected bytes as a string");
      std::string b = Latin1Bytes(j.get<std::string>(), where);
      Check(avro_value_set_bytes(v, b.data(), b.size()), where);
      return;
    }
    case AVRO_FIXED: {
      if (!j.is_string()) Die(where + ": expected a fixed as a string");
      std::string b = Latin1Bytes(j.get<std::string>(), where);
      if (static_cast<int64_t>(b.size()) != avro_schema_fixed_size(schema))
        Die(where + ": the fixed has " + std::to_string(avro_schema_fixed_size(schema)) + " bytes");
      Check(avro_value_set_fixed(v, b.data(), b.size()), where);
      return;
    }
    case AVRO_ENUM: {
      if (!j.is_string()) Die(where + ": expected an enum symbol");
      int index = avro_schema_enum_get_by_name(schema, j.get<std::string>().c_str());
      if (index < 0) Die(where + ": '" + j.get<std::string>() + "' is not a symbol of the enum");
      Check(avro_value_set_enum(v, index), where);
      return;
    }
    case AVRO_RECORD: {
      if (!j.is_object()) Die(where + ": expected an object");
      size_t n = 0;
      avro_value_get_size(v, &n);
      for (size_t i = 0; i < n; i++) {
        avro_value_t child;
        const char* name = nullptr;
        Check(avro_value_get_by_index(v, i, &child, &name), where);
        Fill(&child, j.contains(name) ? j[name] : json(nullptr), where + "." + name);
      }
      return;
    }
    case AVRO_ARRAY: {
      if (!j.is_array()) Die(where + ": expected an array");
      for (size_t i = 0; i < j.size(); i++) {
        avro_value_t child;
        Check(avro_value_append(v, &child, nullptr), where);
        Fill(&child, j[i], where + "[" + std::to_string(i) + "]");
      }
      return;
    }
    case AVRO_MAP: {
      if (!j.is_object()) Die(where + ": expected an object");
      for (const auto& [key, value] : j.items()) {
        avro_value_t child;
        Check(avro_value_add(v, key.c_str(), &child, nullptr, nullptr), where);
        Fill(&child, value, where + "." + key);
      }
      return;
    }
    case AVRO_UNION: {
      const size_t branches = avro_schema_union_size(schema);
      int chosen = -1;
      const json* value = &j;
      if (j.is_object() && j.size() == 1) {  // {"type name": value}
        const std::string& tag = j.begin().key();
        for (size_t i = 0; i < branches && chosen < 0; i++) {
          avro_schema_t b = avro_schema_union_branch(schema, static_cast<int>(i));
          avro_schema_t r = Resolve(b);
          const char* name = avro_schema_name(r);
          if (tag == avro_schema_type_name(r) || (name && tag == name)) {
            chosen = static_cast<int>(i);
            value = &j.begin().value();
          }
        }
      }
      for (size_t i = 0; i < branches && chosen < 0; i++)
        if (Matches(avro_schema_union_branch(schema, static_cast<int>(i)), j)) chosen = static_cast<int>(i);
      if (chosen < 0) Die(where + ": no branch of the union takes " + j.dump());
      avro_value_t branch;
      Check(avro_value_set_branch(v, chosen, &branch), where);
      Fill(&branch, *value, where);
      return;
    }
    default:
      Die(where + ": unsupported type");
  }
}

std::string FromHex(const std::string& line) {
  std::string out;
  std::string digits;
  for (char c : line)
    if (!std::isspace(static_cast<unsigned char>(c))) digits += c;
  if (digits.size() % 2) Die("odd number of hex digits: " + line);
  for (size_t i = 0; i < digits.size(); i += 2) out += static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string brokers, topic, schema_path;
  int partition = 0;
  long schema_id = -1;
  bool hex = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--brokers") brokers = next();
    else if (a == "--topic") topic = next();
    else if (a == "--partition") partition = std::stoi(next());
    else if (a == "--schema-id") schema_id = std::stol(next());
    else if (a == "--schema") schema_path = next();
    else if (a == "--hex") hex = true;
    else Die("unknown argument " + a + "; usage: avroproducer --brokers H:P --topic T [--partition N] "
             "(--schema-id ID --schema FILE | --hex) < records");
  }
  if (brokers.empty() || topic.empty()) Die("--brokers and --topic are required");
  if (!hex && (schema_id < 0 || schema_path.empty())) Die("--schema-id and --schema are required (or --hex)");

  avro_schema_t schema = nullptr;
  avro_value_iface_t* iface = nullptr;
  if (!hex) {
    std::ifstream in(schema_path);
    if (!in) Die("cannot read " + schema_path);
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    if (avro_schema_from_json_length(s.data(), s.size(), &schema) != 0)
      Die(schema_path + " is not an Avro schema: " + avro_strerror());
    iface = avro_generic_class_from_schema(schema);
  }

  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", brokers.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK ||
      rd_kafka_conf_set(conf, "linger.ms", "5", errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
    Die(errstr);
  static int failed = 0;
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void*) {
    if (m->err) {
      failed++;
      std::cerr << "avroproducer: delivery failed: " << rd_kafka_err2str(m->err) << "\n";
    }
  });
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!rk) Die(errstr);

  std::string line;
  long count = 0;
  std::vector<char> buffer;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::string message;
    if (hex) {
      message = FromHex(line);
    } else {
      json j = json::parse(line, nullptr, false);
      if (j.is_discarded()) Die("line " + std::to_string(count + 1) + " is not JSON");
      avro_value_t value;
      avro_generic_value_new(iface, &value);
      Fill(&value, j, "record " + std::to_string(count + 1));
      size_t size = 0;
      Check(avro_value_sizeof(&value, &size), "sizeof");
      buffer.resize(size + 1);
      avro_writer_t w = avro_writer_memory(buffer.data(), static_cast<int64_t>(buffer.size()));
      Check(avro_value_write(w, &value), "write");
      size_t written = static_cast<size_t>(avro_writer_tell(w));
      avro_writer_free(w);
      avro_value_decref(&value);
      message.assign(1, '\0');
      for (int shift = 24; shift >= 0; shift -= 8)
        message += static_cast<char>((static_cast<uint32_t>(schema_id) >> shift) & 0xff);
      message.append(buffer.data(), written);
    }
    while (true) {
      rd_kafka_resp_err_t err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                                                  RD_KAFKA_V_VALUE(message.data(), message.size()),
                                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk, 100);
        continue;
      }
      if (err) Die(std::string("produce failed: ") + rd_kafka_err2str(err));
      break;
    }
    rd_kafka_poll(rk, 0);
    count++;
  }
  if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) Die("timed out delivering the messages");
  rd_kafka_destroy(rk);
  if (iface) avro_value_iface_decref(iface);
  if (schema) avro_schema_decref(schema);
  if (failed) Die(std::to_string(failed) + " messages were not delivered");
  std::cout << "produced " << count << "\n";
  return 0;
}
