#pragma once
// The fast path of the Avro decoder for the common shape: a record whose fields are all primitive (null, boolean,
// int, long, float, double, string, bytes, fixed, enum) or a union of null and one of those, loaded by field name.
// Such a body is read in one pass straight from its bytes into the batch, with the checks BodyCheck makes (lengths,
// int range, boolean bytes, enum and union indexes, no bytes left over) and the text SetValue gives each type, so
// the rows are the same as avro-c's generic reader gives, at a fraction of the cost (avro-c builds a generic value
// and copies every string into it). A body the fast path does not accept is left to the general path, which then
// gives the same error as before. Internal to format/ (includes avro.h).
#include <avro.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/text_batch.h"

namespace sluice::format {

class AvroFlatRecord {
 public:
  // Nothing when `record` (resolved) has a field of another shape, or a column it fills wants JSON text.
  // `field_of_column[c]` is the record's field index column c is filled from, -1 for none.
  static std::optional<AvroFlatRecord> Plan(avro_schema_t record, const std::vector<int>& field_of_column,
                                            const std::vector<bool>& json_text_columns);

  // Appends the body's row to `out` and returns true; or returns false (and `out` is unchanged) when the body does
  // not decode, for the general path to say why.
  bool Read(const uint8_t* p, const uint8_t* end, RowOrigin origin, TextBatch& out);

 private:
  struct Field {
    avro_type_t type = AVRO_NULL;
    int null_branch = -1;            // a union {null, T}: the branch index of null (0 or 1); -1: not a union
    avro_schema_t schema = nullptr;  // the (resolved) type, for fixed sizes and enum symbols
    std::vector<uint32_t> columns;   // the columns filled from this field
  };
  struct Value {
    bool null = true;
    const char* data = nullptr;  // text of strings, bytes, fixed, enums; else the number's bytes in `number`
    size_t size = 0;
    char number[32];
  };

  std::vector<Field> fields_;
  std::vector<Value> values_;  // per field, reused across messages
};

}  // namespace sluice::format
