#include "catalog/routine_load_job.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "catalog/kafka_metadata.h"
#include "catalog/pipe_definition.h"
#include "common/ascii.h"
#include "common/secret_redaction.h"
#include "sql/parser.h"

namespace sluice::catalog {

namespace {

using nlohmann::json;

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.push_back(Trim(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// StarRocks separators: \t \n \r \\ \0 escapes, and \xHH... for bytes (e.g. "\x01" or "\x0102").
Result<std::string> ResolveSeparator(const std::string& raw, const char* what) {
  std::string out;
  if (raw.size() >= 4 && raw[0] == '\\' && (raw[1] == 'x' || raw[1] == 'X') && raw.size() % 2 == 0) {
    bool all_hex = true;
    for (size_t i = 2; i < raw.size(); i++) all_hex &= HexValue(raw[i]) >= 0;
    if (all_hex) {
      for (size_t i = 2; i < raw.size(); i += 2) out += static_cast<char>(HexValue(raw[i]) * 16 + HexValue(raw[i + 1]));
      return out;
    }
  }
  for (size_t i = 0; i < raw.size(); i++) {
    if (raw[i] != '\\' || i + 1 == raw.size()) {
      out += raw[i];
      continue;
    }
    char n = raw[++i];
    switch (n) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case 'x':
      case 'X':
        if (i + 2 < raw.size() && HexValue(raw[i + 1]) >= 0 && HexValue(raw[i + 2]) >= 0) {
          out += static_cast<char>(HexValue(raw[i + 1]) * 16 + HexValue(raw[i + 2]));
          i += 2;
        } else {
          out += n;
        }
        break;
      default: out += n;
    }
  }
  if (out.empty()) return Status::InvalidArgument(std::string(what) + " must not be empty");
  if (out.size() > 50) return Status::InvalidArgument(std::string(what) + " is longer than 50 bytes");
  return out;
}

// "YYYY-MM-DD[ hh:mm[:ss[.ffffff]]]" (shape already checked) names a real day and time of day.
bool IsCalendarTime(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%d", &y, &mo, &d, &h, &mi, &sec);
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12) return false;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  int days = kDays[mo - 1] + (mo == 2 && leap ? 1 : 0);
  return d >= 1 && d <= days && h < 24 && mi < 60 && sec < 60;
}

Result<std::vector<int32_t>> ParsePartitions(const std::string& text) {
  std::vector<int32_t> out;
  std::set<int32_t> seen;
  for (const auto& p : SplitComma(text)) {
    char* end = nullptr;
    long v = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || v < 0 || v > INT32_MAX)
      return Status::InvalidArgument("property \"kafka_partitions\" must list partition numbers like \"0,1,2\", got \"" + text + "\"");
    if (!seen.insert(static_cast<int32_t>(v)).second)
      return Status::InvalidArgument("property \"kafka_partitions\" lists partition " + p + " twice");
    out.push_back(static_cast<int32_t>(v));
  }
  return out;
}

Status ValidateJsonPaths(const std::string& text) {
  if (text.empty()) return Status::Ok();
  json j = json::parse(text, nullptr, false);
  if (!j.is_array() || j.empty())
    return Status::InvalidArgument("property \"jsonpaths\" must be a JSON array of paths like [\"$.a\", \"$.b\"], got " + text);
  for (const auto& p : j)
    if (!p.is_string() || p.get<std::string>().empty() || p.get<std::string>()[0] != '$')
      return Status::InvalidArgument("property \"jsonpaths\": every path must be a string starting with $, got " + p.dump());
  return Status::Ok();
}

// Applies PROPERTIES (...) onto `props`, validating each against the table.
Status ApplyJobProperties(const sql::PropertyList& list, bool altering, std::map<std::string, std::string>& props) {
  std::set<std::string> seen;
  for (const auto& [key, value] : list) {
    const PropertySpec* spec = FindProperty(JobPropertyTable(), key);
    if (!spec) {
      std::string names;
      for (const auto& p : JobPropertyTable()) names += (names.empty() ? "" : ", ") + std::string(p.name);
      return Status::InvalidArgument("unknown property \"" + key + "\" in PROPERTIES; allowed: " + names);
    }
    if (!seen.insert(spec->name).second)
      return Status::InvalidArgument("property \"" + std::string(spec->name) + "\" is given twice");
    if (altering && !spec->alterable)
      return Status::InvalidArgument("property \"" + std::string(spec->name) + "\" cannot be changed by ALTER");
    ASSIGN_OR_RETURN(std::string v, ValidateProperty(*spec, value));
    if (std::string(spec->name) == "jsonpaths") RETURN_IF_ERROR(ValidateJsonPaths(v));
    props[spec->name] = v;
  }
  return Status::Ok();
}

// Applies FROM KAFKA (...) onto `def`.
Status ApplyKafkaProperties(const sql::PropertyList& list, bool altering, RoutineLoadDefinition& def) {
  std::optional<std::string> partitions_text, offsets_text;
  std::set<std::string> seen;
  for (const auto& [raw_key, value] : list) {
    std::string key = AsciiLower(raw_key);
    if (!seen.insert(key).second) return Status::InvalidArgument("property \"" + raw_key + "\" is given twice");
    if (key.rfind("property.", 0) == 0) {
      std::string name = raw_key.substr(9);
      if (name.empty()) return Status::InvalidArgument("property \"property.\" needs a name after the prefix");
      if (AsciiLower(name) == "kafka_default_offsets") {
        ASSIGN_OR_RETURN(def.default_offset, ParseOffsetSpec(value));
        continue;
      }
      auto it = std::find_if(def.custom_properties.begin(), def.custom_properties.end(),
                             [&](const auto& kv) { return kv.first == name; });
      if (it != def.custom_properties.end()) it->second = value;
      else def.custom_properties.emplace_back(name, value);
      continue;
    }
    const PropertySpec* spec = FindProperty(KafkaPropertyTable(), key);
    if (!spec) {
      return Status::InvalidArgument("unknown property \"" + raw_key +
                                     "\" in FROM KAFKA; allowed: kafka_broker_list, kafka_topic, kafka_partitions, "
                                     "kafka_offsets, confluent.schema.registry.url, and property.<librdkafka setting>");
    }
    if (altering && !spec->alterable)
      return Status::InvalidArgument("property \"" + key + "\" cannot be changed by ALTER; create a new job instead");
    if (key == "kafka_broker_list") {
      if (Trim(value).empty()) return Status::InvalidArgument("property \"kafka_broker_list\" must not be empty");
      for (const auto& b : SplitComma(value))
        if (b.find(':') == std::string::npos)
          return Status::InvalidArgument("property \"kafka_broker_list\" must list host:port entries, got \"" + b + "\"");
      def.broker_list = value;
    } else if (key == "kafka_topic") {
      if (Trim(value).empty()) return Status::InvalidArgument("property \"kafka_topic\" must not be empty");
      def.topic = value;
    } else if (key == "kafka_partitions") {
      partitions_text = value;
    } else if (key == "kafka_offsets") {
      offsets_text = value;
    } else if (key == "confluent.schema.registry.url") {
      if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0)
        return Status::InvalidArgument("property \"confluent.schema.registry.url\" must start with http:// or https://");
      def.schema_registry_url = value;
    }
  }
  if (offsets_text && !partitions_text)
    return Status::InvalidArgument("property \"kafka_offsets\" needs \"kafka_partitions\": one offset per listed partition");
  if (partitions_text) {
    ASSIGN_OR_RETURN(auto parts, ParsePartitions(*partitions_text));
    if (offsets_text) {
      auto offs = SplitComma(*offsets_text);
      if (offs.size() != parts.size())
        return Status::InvalidArgument("Partitions number should be equals to offsets number: kafka_partitions lists " +
                                       std::to_string(parts.size()) + ", kafka_offsets " + std::to_string(offs.size()));
      for (size_t i = 0; i < parts.size(); i++) {
        ASSIGN_OR_RETURN(def.offsets[parts[i]], ParseOffsetSpec(offs[i]));
      }
    }
    // CREATE and ALTER alike: the job loads exactly the listed partitions from now on (ALTER is how a job that
    // names a partition the topic does not have is repaired). Explicit offsets of partitions no longer listed
    // are forgotten, so SHOW CREATE ROUTINE LOAD prints what the job does; their committed progress stays in the
    // catalog (statistics), and a partition listed again later continues from it unless kafka_offsets says otherwise.
    def.partitions = parts;
    for (auto it = def.offsets.begin(); it != def.offsets.end();)
      it = std::find(parts.begin(), parts.end(), it->first) == parts.end() ? def.offsets.erase(it) : std::next(it);
  }
  return Status::Ok();
}

Status ApplyLoadProperties(const sql::LoadProperties& load, RoutineLoadDefinition& def) {
  if (load.partitions) {
    if (load.temporary_partitions)
      return Status::NotSupported("TEMPORARY PARTITION (...) is not supported: Sluice tables have no temporary "
                                  "partitions; load into the table's partitions with PARTITION (...)");
    if (load.partitions->empty()) return Status::InvalidArgument("PARTITION (...) needs at least one partition name");
    def.load.partitions = load.partitions;
  }
  if (load.column_separator) {
    ASSIGN_OR_RETURN(def.load.column_separator, ResolveSeparator(*load.column_separator, "COLUMNS TERMINATED BY"));
  }
  if (load.row_delimiter) {
    ASSIGN_OR_RETURN(def.load.row_delimiter, ResolveSeparator(*load.row_delimiter, "ROWS TERMINATED BY"));
  }
  if (load.columns) {
    std::set<std::string> names;
    for (const auto& c : *load.columns)
      if (!names.insert(AsciiLower(c.name)).second)
        return Status::InvalidArgument("column '" + c.name + "' appears twice in COLUMNS");
    def.load.columns = load.columns;
  }
  if (load.where) def.load.where = load.where;
  if (load.include_metadata) def.load.include_metadata = load.include_metadata;
  return Status::Ok();
}

}  // namespace

const char* JobStateName(JobState s) {
  switch (s) {
    case JobState::kNeedSchedule: return "NEED_SCHEDULE";
    case JobState::kRunning: return "RUNNING";
    case JobState::kPaused: return "PAUSED";
    case JobState::kStopped: return "STOPPED";
    case JobState::kCancelled: return "CANCELLED";
  }
  return "UNKNOWN";
}

std::optional<JobState> ParseJobState(const std::string& name) {
  std::string n = AsciiUpper(name);
  for (JobState s : {JobState::kNeedSchedule, JobState::kRunning, JobState::kPaused, JobState::kStopped, JobState::kCancelled})
    if (n == JobStateName(s)) return s;
  return std::nullopt;
}

Result<OffsetSpec> ParseOffsetSpec(const std::string& raw) {
  std::string text = Trim(raw);
  OffsetSpec spec;
  spec.text = text;
  std::string upper = AsciiUpper(text);
  if (upper == "OFFSET_BEGINNING") {
    spec.kind = OffsetSpec::Kind::kBeginning;
    return spec;
  }
  if (upper == "OFFSET_END") {
    spec.kind = OffsetSpec::Kind::kEnd;
    return spec;
  }
  static const std::regex kNumber("^[0-9]+$");
  static const std::regex kDatetime("^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?)?$");
  if (std::regex_match(text, kNumber) && text.size() <= 18) {
    spec.kind = OffsetSpec::Kind::kOffset;
    spec.value = std::stoll(text);
    return spec;
  }
  if (std::regex_match(text, kDatetime) && IsCalendarTime(text)) {
    spec.kind = OffsetSpec::Kind::kTime;
    return spec;
  }
  return Status::InvalidArgument("offset \"" + raw +
                                 "\" is not valid: use a number, OFFSET_BEGINNING, OFFSET_END, or a datetime like "
                                 "\"2024-01-31 12:00:00\"");
}

std::string RoutineLoadDefinition::Property(const std::string& name) const {
  if (auto it = job_properties.find(name); it != job_properties.end()) return it->second;
  if (const PropertySpec* spec = FindProperty(JobPropertyTable(), name)) return spec->default_value;
  return "";
}
int64_t RoutineLoadDefinition::IntProperty(const std::string& name) const { return std::stoll(Property(name)); }
double RoutineLoadDefinition::DoubleProperty(const std::string& name) const { return std::stod(Property(name)); }
bool RoutineLoadDefinition::BoolProperty(const std::string& name) const { return Property(name) == "true"; }

std::string RoutineLoadDefinition::group_id() const {
  for (const auto& [k, v] : custom_properties)
    if (k == "group.id") return v;
  return "";
}

// Properties that only one kind of target has: iceberg.* needs an Iceberg table; an Iceberg table has no key model
// to honour, so partial_update / merge_condition are refused.
Status CheckTargetProperties(const RoutineLoadDefinition& def) {
  for (const auto& [k, v] : def.job_properties) {
    if (k.rfind("iceberg.", 0) == 0 && !def.iceberg_target())
      return Status::InvalidArgument("property \"" + k + "\" applies to loads into Iceberg tables (ON catalog.db.table); "
                                     "table '" + def.table + "' is a table of database '" + def.db + "'");
    if (def.iceberg_target() && (k == "partial_update" || k == "merge_condition") && !v.empty() && v != "false")
      return Status::NotSupported("property \"" + k + "\" needs a PRIMARY KEY table; Iceberg table " +
                                  def.TargetName() + " is appended to");
  }
  return Status::Ok();
}

Result<RoutineLoadDefinition> BuildRoutineLoad(const sql::CreateRoutineLoad& stmt, const std::string& db) {
  RoutineLoadDefinition def;
  def.db = db;
  def.name = stmt.job_name;
  def.table = stmt.table;
  def.lake_catalog = stmt.table_catalog;
  def.lake_db = stmt.table_db;
  if (AsciiLower(def.lake_catalog) == "default_catalog") {  // StarRocks' name of the internal catalog
    if (AsciiLower(def.lake_db) != AsciiLower(db))
      return Status::NotSupported("ROUTINE LOAD ... ON default_catalog.db.table loads into the job's database: name "
                                  "the database in the job's name (CREATE ROUTINE LOAD " + def.lake_db + ".job ON " +
                                  def.table + ")");
    def.lake_catalog.clear();
    def.lake_db.clear();
  }
  if (AsciiUpper(stmt.source_type) != "KAFKA")
    return Status::NotSupported("data source " + stmt.source_type + " is not supported; use FROM KAFKA");
  RETURN_IF_ERROR(ApplyLoadProperties(stmt.load, def));
  RETURN_IF_ERROR(ApplyJobProperties(stmt.job_properties, false, def.job_properties));
  RETURN_IF_ERROR(ApplyKafkaProperties(stmt.source_properties, false, def));
  if (def.broker_list.empty())
    return Status::InvalidArgument("FROM KAFKA needs \"kafka_broker_list\" (host:port[,host:port...])");
  if (def.topic.empty()) return Status::InvalidArgument("FROM KAFKA needs \"kafka_topic\"");
  if (def.IntProperty("task_consume_second") >= def.IntProperty("task_timeout_second"))
    return Status::InvalidArgument("property \"task_consume_second\" must be less than \"task_timeout_second\"");
  if (def.load.include_metadata)
    RETURN_IF_ERROR(ResolveIncludeMetadata(*def.load.include_metadata, def.Property("format")).status());
  if (def.Property("format") == "avro" && !def.schema_registry_url)
    return Status::InvalidArgument("format avro needs \"confluent.schema.registry.url\" in FROM KAFKA");
  RETURN_IF_ERROR(CheckTargetProperties(def));
  return def;
}

Result<RoutineLoadDefinition> AlterRoutineLoadDefinition(const RoutineLoadDefinition& current,
                                                         const sql::AlterRoutineLoad& stmt) {
  RoutineLoadDefinition def = current;
  if (!stmt.source_type.empty() && AsciiUpper(stmt.source_type) != "KAFKA")
    return Status::InvalidArgument("the job loads from KAFKA; ALTER cannot change its source to " + stmt.source_type);
  RETURN_IF_ERROR(ApplyLoadProperties(stmt.load, def));
  RETURN_IF_ERROR(ApplyJobProperties(stmt.job_properties, true, def.job_properties));
  if (def.iceberg_target()) {
    // The Iceberg table's snapshots hold the job's offsets, and a task starts from them: an ALTER cannot move them
    // (new offsets would be overridden by the table's at the next task).
    for (const auto& [k, v] : stmt.source_properties)
      if (AsciiLower(k) == "kafka_offsets" || AsciiLower(k) == "property.kafka_default_offsets")
        return Status::NotSupported("ALTER ROUTINE LOAD cannot change the offsets of a load into an Iceberg table (" +
                                    def.TargetName() + "): its snapshots hold the job's offsets. To load from other "
                                    "offsets, STOP ROUTINE LOAD and CREATE ROUTINE LOAD again with them");
  }
  RETURN_IF_ERROR(ApplyKafkaProperties(stmt.source_properties, true, def));
  if (def.IntProperty("task_consume_second") >= def.IntProperty("task_timeout_second"))
    return Status::InvalidArgument("property \"task_consume_second\" must be less than \"task_timeout_second\"");
  if (def.load.include_metadata)
    RETURN_IF_ERROR(ResolveIncludeMetadata(*def.load.include_metadata, def.Property("format")).status());
  RETURN_IF_ERROR(CheckTargetProperties(def));
  return def;
}

namespace {

json OffsetToJson(const OffsetSpec& o) { return json{{"kind", static_cast<int>(o.kind)}, {"value", o.value}, {"text", o.text}}; }
OffsetSpec OffsetFromJson(const json& j) {
  OffsetSpec o;
  o.kind = static_cast<OffsetSpec::Kind>(j.value("kind", 2));
  o.value = j.value("value", int64_t{0});
  o.text = j.value("text", "OFFSET_END");
  return o;
}

}  // namespace

std::string DefinitionToJson(const RoutineLoadDefinition& d) {
  json j;
  j["db"] = d.db;
  j["name"] = d.name;
  j["table"] = d.table;
  if (d.iceberg_target()) {
    j["lake_catalog"] = d.lake_catalog;
    j["lake_db"] = d.lake_db;
  }
  // Separators may hold any byte; store them hex-encoded so JSON stays valid UTF-8.
  auto hex = [](const std::string& s) {
    static const char* kDigits = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) { out += kDigits[c >> 4]; out += kDigits[c & 15]; }
    return out;
  };
  json lj = json::object();
  if (d.load.column_separator) lj["column_separator_hex"] = hex(*d.load.column_separator);
  if (d.load.row_delimiter) lj["row_delimiter_hex"] = hex(*d.load.row_delimiter);
  if (d.load.columns) {
    json cols = json::array();
    for (const auto& c : *d.load.columns) {
      json jc = {{"name", c.name}};
      if (c.expr) jc["expr"] = *c.expr;
      cols.push_back(jc);
    }
    lj["columns"] = cols;
  }
  if (d.load.where) lj["where"] = *d.load.where;
  if (d.load.partitions) lj["partitions"] = *d.load.partitions;
  if (d.load.include_metadata) {
    json keys = json::array();
    for (const auto& k : *d.load.include_metadata) {
      json jk = {{"key", k.key}};
      if (k.alias) jk["alias"] = *k.alias;
      keys.push_back(jk);
    }
    lj["include_metadata"] = keys;
  }
  j["load"] = lj;
  j["job_properties"] = d.job_properties;
  j["broker_list"] = d.broker_list;
  j["topic"] = d.topic;
  j["partitions"] = d.partitions;
  json offs = json::object();
  for (const auto& [p, o] : d.offsets) offs[std::to_string(p)] = OffsetToJson(o);
  j["offsets"] = offs;
  j["default_offset"] = OffsetToJson(d.default_offset);
  json custom = json::array();
  for (const auto& [k, v] : d.custom_properties) custom.push_back(json::array({k, v}));
  j["custom_properties"] = custom;
  if (d.schema_registry_url) j["schema_registry_url"] = *d.schema_registry_url;
  if (d.pipe) j["pipe"] = json::parse(PipeSettingsToJson(*d.pipe));
  return j.dump();
}

Result<RoutineLoadDefinition> DefinitionFromJson(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return Status::Internal("a stored routine load definition is not valid JSON");
  auto unhex = [](const std::string& s) {
    std::string out;
    for (size_t i = 0; i + 1 < s.size(); i += 2) out += static_cast<char>(HexValue(s[i]) * 16 + HexValue(s[i + 1]));
    return out;
  };
  RoutineLoadDefinition d;
  d.db = j.value("db", "");
  d.name = j.value("name", "");
  d.table = j.value("table", "");
  d.lake_catalog = j.value("lake_catalog", "");
  d.lake_db = j.value("lake_db", "");
  const json& lj = j.value("load", json::object());
  if (lj.contains("column_separator_hex")) d.load.column_separator = unhex(lj.value("column_separator_hex", ""));
  if (lj.contains("row_delimiter_hex")) d.load.row_delimiter = unhex(lj.value("row_delimiter_hex", ""));
  if (lj.contains("columns")) {
    std::vector<sql::ColumnMapping> cols;
    for (const auto& jc : lj["columns"]) {
      sql::ColumnMapping c;
      c.name = jc.value("name", "");
      if (jc.contains("expr")) c.expr = jc.value("expr", "");
      cols.push_back(std::move(c));
    }
    d.load.columns = std::move(cols);
  }
  if (lj.contains("where")) d.load.where = lj.value("where", "");
  if (lj.contains("partitions")) d.load.partitions = lj.value("partitions", std::vector<std::string>{});
  if (lj.contains("include_metadata")) {
    std::vector<sql::MetadataKey> keys;
    for (const auto& jk : lj["include_metadata"]) {
      sql::MetadataKey k;
      k.key = jk.value("key", "");
      if (jk.contains("alias")) k.alias = jk.value("alias", "");
      keys.push_back(std::move(k));
    }
    d.load.include_metadata = std::move(keys);
  }
  d.job_properties = j.value("job_properties", std::map<std::string, std::string>{});
  d.broker_list = j.value("broker_list", "");
  d.topic = j.value("topic", "");
  d.partitions = j.value("partitions", std::vector<int32_t>{});
  // Keep the object alive: items() of a temporary would dangle inside the range-for.
  const json offsets = j.value("offsets", json::object());
  for (const auto& [p, o] : offsets.items()) d.offsets[std::stoi(p)] = OffsetFromJson(o);
  d.default_offset = OffsetFromJson(j.value("default_offset", json::object()));
  for (const auto& kv : j.value("custom_properties", json::array()))
    if (kv.is_array() && kv.size() == 2) d.custom_properties.emplace_back(kv[0].get<std::string>(), kv[1].get<std::string>());
  if (j.contains("schema_registry_url")) d.schema_registry_url = j.value("schema_registry_url", "");
  if (j.contains("pipe")) d.pipe = PipeSettingsFromJson(j["pipe"].dump());
  return d;
}

namespace {

// A value inside "...": escape what would end or confuse the literal.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
    else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20) {
      static const char* kDigits = "0123456789abcdef";
      out += "\\x"; out += kDigits[c >> 4]; out += kDigits[c & 15];
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

}  // namespace

std::string RenderCreateRoutineLoad(const RoutineLoadDefinition& d) {
  std::string out = "CREATE ROUTINE LOAD " + sql::BacktickIdentifier(d.db) + "." + sql::BacktickIdentifier(d.name) + " ON " +
                    (d.iceberg_target() ? sql::BacktickIdentifier(d.lake_catalog) + "." + sql::BacktickIdentifier(d.lake_db) + "." : std::string()) +
                    sql::BacktickIdentifier(d.table);
  std::vector<std::string> load;
  if (d.load.column_separator) load.push_back("COLUMNS TERMINATED BY " + Quoted(*d.load.column_separator));
  if (d.load.row_delimiter) load.push_back("ROWS TERMINATED BY " + Quoted(*d.load.row_delimiter));
  if (d.load.columns) {
    std::string cols;
    for (const auto& c : *d.load.columns)
      cols += (cols.empty() ? "" : ", ") + sql::BacktickIdentifier(c.name) + (c.expr ? " = " + *c.expr : "");
    load.push_back("COLUMNS(" + cols + ")");
  }
  if (d.load.where) load.push_back("WHERE " + *d.load.where);
  if (d.load.partitions) {
    std::string names;
    for (const auto& n : *d.load.partitions) names += (names.empty() ? "" : ", ") + sql::BacktickIdentifier(n);
    load.push_back("PARTITION(" + names + ")");
  }
  if (d.load.include_metadata) {
    std::string keys;
    for (const auto& k : *d.load.include_metadata)
      keys += (keys.empty() ? "" : ", ") + k.key + (k.alias ? " AS " + sql::BacktickIdentifier(*k.alias) : "");
    load.push_back("INCLUDE METADATA (" + keys + ")");
  }
  for (size_t i = 0; i < load.size(); i++) out += (i ? ",\n" : "\n") + load[i];
  out += "\nPROPERTIES\n(";
  bool first = true;
  for (const auto& spec : JobPropertyTable()) {
    if (std::string_view(spec.name).rfind("iceberg.", 0) == 0 && !d.iceberg_target()) continue;
    out += std::string(first ? "\n" : ",\n") + Quoted(spec.name) + " = " + Quoted(d.Property(spec.name));
    first = false;
  }
  out += "\n)\nFROM KAFKA\n(\n" + Quoted("kafka_broker_list") + " = " + Quoted(d.broker_list) + ",\n" +
         Quoted("kafka_topic") + " = " + Quoted(d.topic);
  if (!d.partitions.empty()) {
    std::string parts, offs;
    bool all_offsets = true;
    for (int32_t p : d.partitions) {
      parts += (parts.empty() ? "" : ",") + std::to_string(p);
      auto it = d.offsets.find(p);
      if (it == d.offsets.end()) all_offsets = false;
      else offs += (offs.empty() ? "" : ",") + it->second.text;
    }
    out += ",\n" + Quoted("kafka_partitions") + " = " + Quoted(parts);
    if (all_offsets && !d.offsets.empty()) out += ",\n" + Quoted("kafka_offsets") + " = " + Quoted(offs);
  }
  out += ",\n" + Quoted("property.kafka_default_offsets") + " = " + Quoted(d.default_offset.text);
  for (const auto& [k, v] : d.custom_properties)
    out += ",\n" + Quoted("property." + k) + " = " + Quoted(IsSecretName(k) ? kMask : v);
  if (d.schema_registry_url)
    out += ",\n" + Quoted("confluent.schema.registry.url") + " = " + Quoted(StripUrlCredentials(*d.schema_registry_url));
  return out + "\n);";
}

}  // namespace sluice::catalog
