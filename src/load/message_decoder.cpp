#include "load/message_decoder.h"

#include <type_traits>

#include "format/avro_decoder.h"
#include "format/csv_decoder.h"
#include "format/json_decoder.h"
#include "format/json_paths_property.h"
#include "format/schema_registry.h"
#include "load/raw_decoder.h"

namespace sluice::load {

namespace {

template <typename Decoder>
class Adapter : public MessageDecoder {
 public:
  explicit Adapter(Decoder decoder) : decoder_(std::move(decoder)) {}
  Status Decode(std::string_view message, RowOrigin origin, TextBatch& out) override {
    if constexpr (std::is_same_v<decltype(decoder_.Decode(message, origin, out)), Status>) {
      return decoder_.Decode(message, origin, out);
    } else {
      decoder_.Decode(message, origin, out);
      return Status::Ok();
    }
  }

 private:
  Decoder decoder_;
};

// "jsonpaths", checked against the COLUMNS they map onto in order; empty when the property is not set.
Result<std::vector<std::string>> JsonPaths(const catalog::RoutineLoadDefinition& def,
                                           const std::vector<std::string>& source_columns) {
  std::string paths = def.Property("jsonpaths");
  if (paths.empty()) return std::vector<std::string>{};
  ASSIGN_OR_RETURN(auto parsed, format::ParseJsonPathsProperty(paths));
  if (parsed.size() != source_columns.size())
    return Status::InvalidArgument("property \"jsonpaths\" has " + std::to_string(parsed.size()) +
                                   " paths but COLUMNS names " + std::to_string(source_columns.size()) +
                                   " source columns; they map onto each other in order");
  return parsed;
}

}  // namespace

Result<std::unique_ptr<MessageDecoder>> MakeDecoder(const catalog::RoutineLoadDefinition& def,
                                                    const std::vector<std::string>& source_columns,
                                                    const std::vector<std::string>& json_pointers,
                                                    const std::vector<bool>& json_text_columns,
                                                    const std::vector<bool>& reads_source) {
  std::string format = def.Property("format");
  if (format == "csv") {
    format::CsvOptions o;
    if (def.load.column_separator) o.column_separator = *def.load.column_separator;
    if (def.load.row_delimiter) o.row_delimiter = *def.load.row_delimiter;
    if (std::string e = def.Property("enclose"); !e.empty()) o.enclose = e[0];
    if (std::string e = def.Property("escape"); !e.empty()) o.escape = e[0];
    o.trim_space = def.BoolProperty("trim_space");
    o.num_columns = source_columns.size();
    o.fill_mismatch_with_null = def.Property("fill_mismatch_column_with") == "null";
    o.strict_mode = def.BoolProperty("strict_mode");
    ASSIGN_OR_RETURN(auto decoder, format::CsvDecoder::Create(std::move(o)));
    return std::unique_ptr<MessageDecoder>(new Adapter<format::CsvDecoder>(std::move(decoder)));
  }
  if (format == "json") {
    format::JsonOptions o;
    o.columns = source_columns;
    ASSIGN_OR_RETURN(o.jsonpaths, JsonPaths(def, source_columns));
    o.json_root = def.Property("json_root");
    o.strip_outer_array = def.BoolProperty("strip_outer_array");
    o.json_text_columns = json_text_columns;
    ASSIGN_OR_RETURN(auto decoder, format::JsonDecoder::Create(std::move(o)));
    return std::unique_ptr<MessageDecoder>(new Adapter<format::JsonDecoder>(std::move(decoder)));
  }
  if (format == "avro") {
    if (!def.schema_registry_url)
      return Status::InvalidArgument("format avro needs \"confluent.schema.registry.url\" in FROM KAFKA");
    if (!def.Property("json_root").empty() || def.BoolProperty("strip_outer_array"))
      return Status::InvalidArgument("properties \"json_root\" and \"strip_outer_array\" apply to format json only; "
                                     "with avro, address fields through \"jsonpaths\"");
    format::AvroOptions o;
    o.columns = source_columns;
    ASSIGN_OR_RETURN(o.jsonpaths, JsonPaths(def, source_columns));
    o.json_text_columns = json_text_columns;
    // Every task of every job naming this registry shares one client and its cache of schemas.
    std::shared_ptr<format::SchemaRegistry> registry = format::SchemaRegistry::ForUrl(*def.schema_registry_url);
    o.schema_lookup = [registry](int32_t id) { return registry->Get(id); };
    ASSIGN_OR_RETURN(auto decoder, format::AvroDecoder::Create(std::move(o)));
    return std::unique_ptr<MessageDecoder>(new Adapter<format::AvroDecoder>(std::move(decoder)));
  }
  if (format == "raw") {  // pipes: READ_KAFKA's columns
    if (def.pipe && def.pipe->value_format == "avro") {
      if (!def.schema_registry_url)
        return Status::InvalidArgument("READ_KAFKA value format 'avro' needs 'schema.registry.url' in argument 12");
      return MakeRawAvroDecoder(def.topic, *def.schema_registry_url);
    }
    return MakeRawDecoder(def.topic, json_pointers, reads_source);
  }
  return Status::NotSupported("format " + format + " is not supported; use csv, json or avro");
}

}  // namespace sluice::load
