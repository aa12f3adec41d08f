#pragma once
// The "raw" format of pipes: one row per Kafka message with READ_KAFKA's columns (catalog::ReadKafkaColumns():
// topic, partition, offset, timestamp, timestamp_type, headers, key, value) as text; the pipe's SELECT list parses
// the value. Bytes that are not UTF-8 (DuckDB's VARCHAR must be) are replaced by U+FFFD in key, headers and value.
//
// Value format "avro" (READ_KAFKA argument 10 = 'avro'): the value is a Confluent-framed Avro datum whose writer
// schema comes from the schema registry at `registry_url`; the `value` column holds the datum as JSON text (a
// record is a JSON object, see format/avro_decoder.h for how each type renders), so PARSE_JSON(value::STRING)
// reads its fields. A message that is not in the wire format, names a schema id the registry does not know, or
// does not decode is an error row (reason and offset) when `bad_value_is_null` is false (pipes), else a row whose
// value is NULL (the preview). A registry that cannot be reached makes DecodeMessage return Unavailable.
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "load/message_decoder.h"

namespace sluice::load {

// `json_pointers` (transform::CompiledTransform::decoded_json_pointers): values read from each JSON value with
// format::JsonFieldReader into the batch's last json_pointers.size() columns, NULL where the reader is not certain.
// `reads_column` (transform::CompiledTransform::reads_source, one flag per READ_KAFKA column; empty = all): the
// columns the pipe's SELECT reads. The others stay NULL and are not formatted (headers are not even fetched);
// `value` is always written, as it is an error row's text.
Result<std::unique_ptr<MessageDecoder>> MakeRawDecoder(std::string topic,
                                                       const std::vector<std::string>& json_pointers,
                                                       const std::vector<bool>& reads_column = {});
std::unique_ptr<MessageDecoder> MakeRawDecoder(std::string topic);

Result<std::unique_ptr<MessageDecoder>> MakeRawAvroDecoder(std::string topic, const std::string& registry_url,
                                                           bool bad_value_is_null = false);

}  // namespace sluice::load
