#include "format/json_decoder.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cassert>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "format/json_column_lookup.h"
#include "format/json_path.h"
#include "format/json_path_tree.h"
#include "format/json_value_text.h"
#include "format/quoted_bytes.h"
#include "format/rejected_row.h"

namespace sluice::format {

namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;

// Decoding stages each message's rows before appending them to the batch: a message that turns out to be
// malformed halfway (On-Demand finds some errors only when it gets there) must not leave half its rows loaded.
// Staged cells are views into the padded input or simdjson's string buffer, both valid until the next message.
class JsonDecoder::Impl {
 public:
  Impl(JsonOptions options, std::vector<JsonPathStep> root_steps, JsonPathTree paths)
      : options_(std::move(options)),
        root_steps_(std::move(root_steps)),
        by_name_(options_.jsonpaths.empty()),
        lookup_(options_.columns),
        paths_(std::move(paths)) {}

  const JsonOptions& options() const { return options_; }
  void Decode(std::string_view message, RowOrigin origin, TextBatch& out);

 private:
  // How a staged cell was filled; a better match replaces a worse one (an exact key beats a case-insensitive one).
  enum class Match : uint8_t { kUnset, kCaseInsensitive, kExact };
  struct Cell {
    const char* data;
    uint32_t size;
    bool is_null;
    Match match;
  };
  struct StagedReject {
    std::string reason;
    std::string_view raw;
  };

  error_code DecodeDocument(od::document& doc);
  error_code DecodeScalarDocument(od::document& doc, od::json_type type);
  // Follows json_root from `v`; `found` tells whether it led anywhere.
  error_code FindRoot(od::value v, size_t step, bool& found);
  // The root element: an array of rows (strip_outer_array) or one row.
  error_code DecodeRoot(od::value v);
  error_code DecodeRow(od::value v, bool array_element);
  error_code DecodeRowByName(od::value v, size_t row);
  error_code WalkPaths(od::value v, const JsonPathTree::Node& node, size_t row);

  size_t StageRow() {
    cells_.resize(cells_.size() + options_.columns.size(), Cell{nullptr, 0, true, Match::kUnset});
    return staged_rows_++;
  }
  Cell& CellAt(size_t row, uint32_t column) { return cells_[row * options_.columns.size() + column]; }
  void SetCell(size_t row, uint32_t column, const JsonText& text, Match match) {
    const std::string_view value = !text.json.empty() && KeepsJsonText(column) ? text.json : text.text;
    CellAt(row, column) = Cell{value.data(), static_cast<uint32_t>(value.size()), text.is_null, match};
  }
  bool KeepsJsonText(uint32_t column) const {
    return column < options_.json_text_columns.size() && options_.json_text_columns[column];
  }
  void Commit(RowOrigin origin, TextBatch& out);

  const char* InputEnd() const { return buffer_.data() + buffer_.size(); }
  std::string RootName() const { return root_steps_.empty() ? "the message" : "the json_root element"; }

  JsonOptions options_;
  std::vector<JsonPathStep> root_steps_;
  bool by_name_;
  JsonColumnLookup lookup_;
  JsonPathTree paths_;

  od::parser parser_;
  std::string buffer_;  // the message copied with SIMDJSON_PADDING spare bytes behind it
  std::vector<Cell> cells_;
  size_t staged_rows_ = 0;
  std::vector<StagedReject> staged_rejects_;
  std::string message_reason_;  // set when the whole message is rejected although it parsed
  // Whether message_reason_ is a fatal parse error (the message's shape cannot give a row); a missing json_root
  // is a data error like a bad value.
  bool message_fatal_ = true;
};

namespace {

// On-Demand skips over a value no column asks for, or one loaded as JSON text, without bounding how deeply it
// nests; DuckDB's JSON functions (json_structure, casts to nested types) then recurse once per level when anyone
// reads it. A message nesting deeper than simdjson's DOM default rejects as a whole, so that no load plants a value
// a later reader overflows its stack on (docs/security.md, "What cannot crash the server").
constexpr size_t kMaxJsonNesting = 1024;

bool NestsDeeperThan(std::string_view s, size_t limit) {
  if (s.size() <= limit) return false;  // fewer bytes than levels: the usual message costs nothing here
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); i++) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return false;
}

}  // namespace

void JsonDecoder::Impl::Decode(std::string_view message, RowOrigin origin, TextBatch& out) {
  assert(out.num_columns() >= options_.columns.size());
  cells_.clear();
  staged_rows_ = 0;
  staged_rejects_.clear();
  message_reason_.clear();
  message_fatal_ = true;
  if (NestsDeeperThan(message, kMaxJsonNesting)) {
    AddRejectedRow(out, origin, fmt::format("JSON nested more than {} levels deep", kMaxJsonNesting), message,
                   /*fatal=*/true);
    return;
  }

  // simdjson reads up to SIMDJSON_PADDING bytes past the end; a Kafka payload gives no such promise.
  buffer_.reserve(message.size() + simdjson::SIMDJSON_PADDING);
  buffer_.assign(message.data(), message.size());
  od::document doc;
  error_code error = parser_.iterate(buffer_.data(), buffer_.size(), buffer_.capacity()).get(doc);
  if (!error) error = DecodeDocument(doc);
  if (error) {
    AddRejectedRow(out, origin, std::string("malformed JSON: ") + simdjson::error_message(error), message,
                   /*fatal=*/true);
    return;
  }
  if (!message_reason_.empty()) {
    AddRejectedRow(out, origin, std::move(message_reason_), message, message_fatal_);
    message_reason_.clear();
    return;
  }
  Commit(origin, out);
}

error_code JsonDecoder::Impl::DecodeDocument(od::document& doc) {
  od::json_type type;
  if (auto error = doc.type().get(type)) return error;
  if (type != od::json_type::object && type != od::json_type::array) return DecodeScalarDocument(doc, type);

  od::value root;
  if (auto error = doc.get_value().get(root)) return error;
  if (root_steps_.empty()) {
    if (auto error = DecodeRoot(root)) return error;
  } else {
    bool found = false;
    if (auto error = FindRoot(root, 0, found)) return error;
    if (!found && message_reason_.empty()) {
      message_reason_ = fmt::format("json_root {} not found in the message", QuoteBytes(options_.json_root));
      message_fatal_ = false;
    }
  }
  if (!message_reason_.empty()) return SUCCESS;  // parts were left unread on purpose
  // Everything was read; a location left means a second document or garbage after the first.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == SUCCESS) return simdjson::TRAILING_CONTENT;
  return SUCCESS;
}

error_code JsonDecoder::Impl::DecodeScalarDocument(od::document& doc, od::json_type type) {
  // Read the scalar first, so that "not json" is reported as malformed rather than as "got null". Scalar
  // documents cannot be turned into ondemand::value, and the iterator does not track their end: compare the
  // token with the text to find trailing content.
  std::string_view token;
  if (auto error = RawToken(doc, token)) return error;
  const std::string_view whole = TrimJsonWhitespace(buffer_);
  if (token.data() + token.size() != whole.data() + whole.size()) return simdjson::TRAILING_CONTENT;
  JsonText text;
  if (auto error = ReadJsonText(doc, text)) return error;

  if (!root_steps_.empty()) {
    message_reason_ = fmt::format("json_root {} not found in the message", QuoteBytes(options_.json_root));
    message_fatal_ = false;
  } else if (options_.strip_outer_array) {
    message_reason_ = fmt::format("strip_outer_array is true, but the message is {}, not a JSON array",
                                  DescribeJsonType(type));
  } else if (by_name_) {
    message_reason_ = fmt::format("expected a JSON object, got {}", DescribeJsonType(type));
  } else {
    // With jsonpaths, `$` addresses the scalar itself and every other path is NULL.
    const size_t row = StageRow();
    for (uint32_t column : paths_.root().columns) SetCell(row, column, text, Match::kExact);
  }
  return SUCCESS;
}

error_code JsonDecoder::Impl::FindRoot(od::value v, size_t step_index, bool& found) {
  if (step_index == root_steps_.size()) {
    found = true;
    return DecodeRoot(v);
  }
  const JsonPathStep& step = root_steps_[step_index];
  od::json_type type;
  if (auto error = v.type().get(type)) return error;
  // Every field and element is iterated, not just up to the match, so that the whole document gets read and
  // trailing garbage is still noticed.
  if (step.kind == JsonPathStep::Kind::kKey) {
    if (type != od::json_type::object) return SUCCESS;
    od::object object;
    if (auto error = v.get_object().get(object)) return error;
    for (auto field_result : object) {
      od::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      std::string_view key;
      if (auto error = ReadKey(field, InputEnd(), key)) return error;
      if (!found && key == step.key) {
        if (auto error = FindRoot(field.value(), step_index + 1, found)) return error;
      }
    }
  } else {
    if (type != od::json_type::array) return SUCCESS;
    od::array array;
    if (auto error = v.get_array().get(array)) return error;
    size_t index = 0;
    for (auto element : array) {
      od::value value;
      if (auto error = std::move(element).get(value)) return error;
      if (!found && index == step.index) {
        if (auto error = FindRoot(value, step_index + 1, found)) return error;
      }
      index++;
    }
  }
  return SUCCESS;
}

error_code JsonDecoder::Impl::DecodeRoot(od::value v) {
  od::json_type type;
  if (auto error = v.type().get(type)) return error;
  if (type == od::json_type::array) {
    if (options_.strip_outer_array) {
      od::array array;
      if (auto error = v.get_array().get(array)) return error;
      for (auto element : array) {
        od::value value;
        if (auto error = std::move(element).get(value)) return error;
        if (auto error = DecodeRow(value, /*array_element=*/true)) return error;
      }
      return SUCCESS;
    }
    if (by_name_) {
      message_reason_ = RootName() + " is a JSON array; set strip_outer_array = true to load its elements";
      return SUCCESS;
    }
  } else if (options_.strip_outer_array) {
    message_reason_ = fmt::format("strip_outer_array is true, but {} is {}, not a JSON array", RootName(),
                                  DescribeJsonType(type));
    return SUCCESS;
  }
  return DecodeRow(v, /*array_element=*/false);
}

error_code JsonDecoder::Impl::DecodeRow(od::value v, bool array_element) {
  if (!by_name_) return WalkPaths(v, paths_.root(), StageRow());
  od::json_type type;
  if (auto error = v.type().get(type)) return error;
  if (type != od::json_type::object) {
    std::string reason = fmt::format("expected a JSON object, got {}", DescribeJsonType(type));
    if (!array_element) {  // the row is the whole (json_root) document: show the message
      message_reason_ = std::move(reason);
      return SUCCESS;
    }
    // One bad element of an array: reject it alone, with its own text, and load the others.
    std::string_view raw;
    if (auto error = ReadRawJson(v, raw)) return error;
    staged_rejects_.push_back({std::move(reason), raw});
    return SUCCESS;
  }
  return DecodeRowByName(v, StageRow());
}

error_code JsonDecoder::Impl::DecodeRowByName(od::value v, size_t row) {
  od::object object;
  if (auto error = v.get_object().get(object)) return error;
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = ReadKey(field, InputEnd(), key)) return error;
    // Read the value at most once, and only if some column wants it; unread values are skipped by the loop.
    JsonText text;
    bool have_text = false;
    error_code read_error = SUCCESS;
    lookup_.ForEachMatch(key, [&](uint32_t column, bool exact) {
      const Match match = exact ? Match::kExact : Match::kCaseInsensitive;
      if (read_error || CellAt(row, column).match >= match) return;  // first of equal matches wins
      if (!have_text) {
        read_error = ReadJsonText(field.value(), text);
        if (read_error) return;
        have_text = true;
      }
      SetCell(row, column, text, match);
    });
    if (read_error) return read_error;
  }
  return SUCCESS;
}

error_code JsonDecoder::Impl::WalkPaths(od::value v, const JsonPathTree::Node& node, size_t row) {
  if (!node.has_children()) {
    if (node.columns.empty()) return SUCCESS;
    JsonText text;
    if (auto error = ReadJsonText(v, text)) return error;
    for (uint32_t column : node.columns) {
      if (CellAt(row, column).match == Match::kUnset) SetCell(row, column, text, Match::kExact);
    }
    return SUCCESS;
  }
  // Both this value's text and values inside it are wanted (`$.a` and `$.a.b`): remember where it starts, walk
  // into it, and take the text up to where the walk stopped.
  std::string_view start;
  if (auto error = RawToken(v, start)) return error;
  od::json_type type;
  if (auto error = v.type().get(type)) return error;
  bool walked = false;
  if (type == od::json_type::object && !node.keys.empty()) {
    od::object object;
    if (auto error = v.get_object().get(object)) return error;
    for (auto field_result : object) {
      od::field field;
      if (auto error = std::move(field_result).get(field)) return error;
      std::string_view key;
      if (auto error = ReadKey(field, InputEnd(), key)) return error;
      if (const JsonPathTree::Node* child = paths_.FindKey(node, key)) {
        if (auto error = WalkPaths(field.value(), *child, row)) return error;
      }
    }
    walked = true;
  } else if (type == od::json_type::array && !node.indexes.empty()) {
    od::array array;
    if (auto error = v.get_array().get(array)) return error;
    size_t index = 0;
    for (auto element : array) {
      od::value value;
      if (auto error = std::move(element).get(value)) return error;
      if (const JsonPathTree::Node* child = paths_.FindIndex(node, index)) {
        if (auto error = WalkPaths(value, *child, row)) return error;
      }
      index++;
    }
    walked = true;
  }
  if (node.columns.empty()) return SUCCESS;
  JsonText text;
  if (walked) {
    const char* end = nullptr;
    if (v.current_location().get(end) != SUCCESS) end = buffer_.data() + buffer_.size();  // at the very end
    text.text = TrimJsonWhitespace(std::string_view(start.data(), static_cast<size_t>(end - start.data())));
  } else if (auto error = ReadJsonText(v, text)) {
    return error;
  }
  for (uint32_t column : node.columns) {
    if (CellAt(row, column).match == Match::kUnset) SetCell(row, column, text, Match::kExact);
  }
  return SUCCESS;
}

void JsonDecoder::Impl::Commit(RowOrigin origin, TextBatch& out) {
  const size_t columns = options_.columns.size();
  for (size_t row = 0; row < staged_rows_; row++) {
    out.BeginRow();
    for (size_t c = 0; c < columns; c++) {
      const Cell& cell = cells_[row * columns + c];
      if (cell.match != Match::kUnset && !cell.is_null) out.SetField(c, std::string_view(cell.data, cell.size));
    }
    out.FinishRow(origin);
  }
  for (StagedReject& reject : staged_rejects_) AddRejectedRow(out, origin, std::move(reject.reason), reject.raw);
}

Result<JsonDecoder> JsonDecoder::Create(JsonOptions options) {
  if (options.columns.empty()) return Status::InvalidArgument("a JSON source needs at least one column");
  std::unordered_set<std::string_view> seen;
  for (const std::string& column : options.columns) {
    if (!seen.insert(column).second) {
      return Status::InvalidArgument(fmt::format("column {} is listed twice", QuoteBytes(column)));
    }
  }
  JsonPathTree tree;
  if (!options.jsonpaths.empty()) {
    if (options.jsonpaths.size() != options.columns.size()) {
      return Status::InvalidArgument(fmt::format(
          "jsonpaths has {} path{} but there {} {} column{}; give one path per column, in the order of COLUMNS",
          options.jsonpaths.size(), options.jsonpaths.size() == 1 ? "" : "s",
          options.columns.size() == 1 ? "is" : "are", options.columns.size(), options.columns.size() == 1 ? "" : "s"));
    }
    for (size_t i = 0; i < options.jsonpaths.size(); i++) {
      Result<JsonPath> path = ParseJsonPath(options.jsonpaths[i]);
      if (!path.ok()) return Status::InvalidArgument("jsonpaths: " + path.status().message());
      tree.Add(*path, static_cast<uint32_t>(i));
    }
  }
  std::vector<JsonPathStep> root_steps;
  if (!options.json_root.empty()) {
    Result<JsonPath> root = ParseJsonPath(options.json_root);
    if (!root.ok()) return Status::InvalidArgument("json_root: " + root.status().message());
    root_steps = std::move(root->steps);
  }
  return JsonDecoder(std::make_unique<Impl>(std::move(options), std::move(root_steps), std::move(tree)));
}

JsonDecoder::JsonDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JsonDecoder::JsonDecoder(JsonDecoder&&) noexcept = default;
JsonDecoder& JsonDecoder::operator=(JsonDecoder&&) noexcept = default;
JsonDecoder::~JsonDecoder() = default;

void JsonDecoder::Decode(std::string_view message, RowOrigin origin, TextBatch& out) {
  impl_->Decode(message, origin, out);
}

const JsonOptions& JsonDecoder::options() const { return impl_->options(); }

}  // namespace sluice::format
