#pragma once
// The format a job's messages are in, behind one call: turn a message into rows of the task's batch.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/routine_load_job.h"
#include "common/status.h"
#include "common/text_batch.h"
#include "source/kafka_source.h"

namespace sluice::load {

class MessageDecoder {
 public:
  virtual ~MessageDecoder() = default;
  // Appends the message's rows (and rejected rows) to `out`. An error means the message could not be decoded for a
  // reason outside it (e.g. Unavailable: the schema registry is down); the task then commits nothing.
  virtual Status Decode(std::string_view message, RowOrigin origin, TextBatch& out) = 0;
  // The whole message: the raw format (pipes) reads its key, headers and metadata; the others decode the payload.
  virtual Status DecodeMessage(const source::KafkaMessage& m, TextBatch& out) {
    return Decode(m.payload, RowOrigin{m.partition, m.offset}, out);
  }
  // Whether DecodeMessage reads headers (the consumer then collects them).
  virtual bool wants_headers() const { return false; }
};

// A decoder for the job's format and options; `source_columns` are the batch's columns, in order.
// `json_pointers`: for the raw format, JSON values the decoder extracts into the batch's last columns
// (transform::CompiledTransform::decoded_json_pointers). `json_text_columns`: for the json format, which source
// columns load into JSON columns and so keep a string's JSON text (TaskPlan::json_text_columns).
// `reads_source`: for the raw format, which columns the pipe's SELECT reads (CompiledTransform::reads_source;
// empty = all); the decoder leaves the others NULL.
Result<std::unique_ptr<MessageDecoder>> MakeDecoder(const catalog::RoutineLoadDefinition& def,
                                                    const std::vector<std::string>& source_columns,
                                                    const std::vector<std::string>& json_pointers = {},
                                                    const std::vector<bool>& json_text_columns = {},
                                                    const std::vector<bool>& reads_source = {});

}  // namespace sluice::load
