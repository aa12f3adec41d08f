#pragma once
// AvroDecoder: Kafka messages in the Confluent wire format -> rows of a TextBatch. A message is the byte 0x00, the
// writer schema's id (4 bytes, big-endian) and one Avro binary datum; the schema comes from `schema_lookup`
// (a schema registry, see schema_registry.h) and is parsed once per id and decoder. Decoding is Apache avro-c's
// (generic values), after a walk over the body that checks every length, count and index against the bytes there
// are, since avro-c trusts them.
//
// Rules, as in StarRocks Routine Load:
// - One row per message. Without jsonpaths the datum must be a record and a column takes the field of exactly its
//   name, else one matching it ignoring ASCII case; a column without such a field is NULL (so messages written
//   with an older schema that lacks a field load it as NULL). With jsonpaths, path i fills column i: `.key`
//   descends into a record field or map key, `[n]` into an array element, unions are looked through, and what the
//   path does not reach is NULL.
// - Values: null -> NULL; boolean -> "true"/"false"; int, long -> decimal text; float, double -> the shortest text
//   that reads back the same ("nan", "inf" for those); string -> its text; bytes, fixed -> the raw bytes;
//   enum -> the symbol; record, map -> a JSON object; array -> a JSON array; a union of null and one type -> NULL
//   or that type's value; any other union -> NULL for its null branch, else the branch's value as JSON text (a
//   string in quotes). Inside JSON text: bytes and fixed are strings with one character per byte (U+0000..U+00FF,
//   Avro's JSON encoding), unions are their branch's value, NaN and infinities are null. A column flagged in
//   json_text_columns gets every non-null value as JSON text, strings, bytes and enums in quotes.
// - Error rows (reason, origin, raw bytes): a message that is not in the wire format, a schema id the registry
//   does not know or whose schema is not Avro, a schema that does not parse, a body that does not decode (ends
//   early, bad length, count or index, nested deeper than kMaxAvroDepth, more than kMaxAvroElements array/map
//   elements) or that has bytes left over, and a datum that is not a record when there are no jsonpaths.
//
// Not thread-safe: one decoder per task.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/text_batch.h"

namespace sluice::format {

inline constexpr int kMaxAvroDepth = 128;
inline constexpr int64_t kMaxAvroElements = 4 << 20;

struct AvroOptions {
  std::vector<std::string> columns;    // the columns rows are produced for, in order
  std::vector<std::string> jsonpaths;  // optional: path i fills column i (see json_paths_property.h)
  // Optional, one flag per column: true for a column that loads into a JSON column, which gets every value as its
  // JSON text (a string "5" stays the string "5", not the number its text would parse as).
  std::vector<bool> json_text_columns;
  // The writer schema (JSON text) of an id. NotFound and NotSupported make the messages naming that id error rows
  // (for the rest of this decoder's life); any other error is returned by Decode.
  std::function<Result<std::string>(int32_t id)> schema_lookup;
};

class AvroDecoder {
 public:
  // Checks the columns (at least one, no duplicates), the paths (one per column, each parsed once) and that
  // there is a schema_lookup.
  static Result<AvroDecoder> Create(AvroOptions options);

  AvroDecoder(AvroDecoder&&) noexcept;
  AvroDecoder& operator=(AvroDecoder&&) noexcept;
  ~AvroDecoder();

  // Appends the message's row to `out` or, if it cannot be read, a rejected row to out.rejected(). `out`'s first
  // options().columns.size() columns are the decoded ones; any further columns (a message's metadata) stay NULL
  // for the caller to fill. Returns the schema_lookup's error when the schema could not be had for a reason that
  // is not the message's (e.g. Unavailable: the registry is down); nothing is appended then.
  Status Decode(std::string_view message, RowOrigin origin, TextBatch& out);

  const AvroOptions& options() const;

 private:
  class Impl;
  explicit AvroDecoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::format
