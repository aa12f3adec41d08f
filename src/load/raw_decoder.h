#pragma once
// The "raw" format of pipes: one row per Kafka message with READ_KAFKA's columns (catalog::ReadKafkaColumns():
// topic, partition, offset, timestamp, timestamp_type, headers, key, value) as text; the pipe's SELECT list parses
// the value. Bytes that are not UTF-8 (DuckDB's VARCHAR must be) are replaced by U+FFFD in key, headers and value.
#include <memory>
#include <string>

#include "load/message_decoder.h"

namespace sluice::load {

std::unique_ptr<MessageDecoder> MakeRawDecoder(std::string topic);

}  // namespace sluice::load
