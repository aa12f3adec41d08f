#pragma once
// JsonDecoder: Kafka message payloads in JSON -> rows of a TextBatch (DESIGN.md decision 5), with simdjson
// On-Demand: one parser reused for every message, and one forward pass over each object that picks out only
// the wanted fields.
//
// Rules, as in StarRocks Routine Load:
// - Each message is one complete JSON document. json_root (a path) picks the element treated as the document.
// - With strip_outer_array the (root) element must be an array and each element is a row; otherwise the root is
//   the one row. Without jsonpaths, a root array without strip_outer_array is rejected, as is a row that is not
//   an object; with jsonpaths the paths address whatever the row is (`$[0]` works on an array).
// - Without jsonpaths a column takes the key of exactly its name, else a key matching it ignoring ASCII case;
//   a missing key is NULL; of repeated keys the first wins. With jsonpaths, path i fills column i (missing:
//   NULL).
// - Values: string -> unescaped text (in a json_text_columns column: its JSON text, quotes kept, `"5"`);
//   number -> its text as written (big integers and decimals kept exact);
//   true/false -> "true"/"false"; null -> NULL; object/array -> its JSON text as written.
// - Rejected rows (reason + raw bytes): malformed JSON (simdjson's message; the whole message, no row of it is
//   loaded), trailing content after the document, a json_root that does not exist, an array without
//   strip_outer_array, and a row that is not an object (each such element of an array alone; the others load).
//   The rejects of a whole message other than a missing json_root are fatal (RejectedRow::fatal): the message's
//   text or shape cannot give a row at all, which pause_on_fatal_parse_error acts on.
//   On-Demand checks what it reads: the whole message must be valid UTF-8 with terminated strings and balanced
//   brackets, and every value loaded as a scalar is fully checked; but the inside of a value no column asks for,
//   or of an object/array loaded as JSON text, is only skipped over (`{"a": 1, "b": tru}` loads a = 1). This is
//   the On-Demand trade (StarRocks makes it too); a JSON target column still rejects such text at conversion.
//
// Not thread-safe: one decoder per task.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/text_batch.h"

namespace sluice::format {

struct JsonOptions {
  std::vector<std::string> columns;    // the columns rows are produced for, in order
  std::vector<std::string> jsonpaths;  // optional: path i fills column i (see json_paths_property.h)
  std::string json_root;               // optional: path of the element treated as the document root
  bool strip_outer_array = false;
  // Optional, one flag per column: true for a column that loads into a JSON column, which gets each value's JSON
  // text, a string with its quotes and escapes as written (`"a\"b"`), so that the JSON string "5" stays a string
  // instead of its text being parsed as the number 5. Other columns get a string's unescaped text.
  std::vector<bool> json_text_columns;
};

class JsonDecoder {
 public:
  // Checks the columns (at least one, no duplicates), the paths (each parsed once; a malformed one is
  // InvalidArgument naming it) and that there is one path per column.
  static Result<JsonDecoder> Create(JsonOptions options);

  JsonDecoder(JsonDecoder&&) noexcept;
  JsonDecoder& operator=(JsonDecoder&&) noexcept;
  ~JsonDecoder();

  // Appends the rows of `message` to `out` and its rejected rows to out.rejected(). `out`'s first
  // options().columns.size() columns are the decoded ones; any further columns (a message's metadata) stay NULL
  // for the caller to fill. Every row gets `origin`.
  void Decode(std::string_view message, RowOrigin origin, TextBatch& out);

  const JsonOptions& options() const;

 private:
  class Impl;
  explicit JsonDecoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::format
