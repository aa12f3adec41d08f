#pragma once
// What a JSON value becomes in a text column, read with simdjson On-Demand without copying it anywhere:
// string -> its unescaped text (in simdjson's string buffer), number -> its text as written, true/false ->
// "true"/"false", null -> NULL, object/array -> its JSON text as written (a view into the padded input).
// Internal to format/: it includes simdjson.h, which the public headers keep out of other modules.
#include <simdjson.h>

#include <cstring>
#include <string_view>

namespace sluice::format {

struct JsonText {
  std::string_view text;
  // For a string: its JSON text as written, quotes and escapes included (`"5"`), for columns that keep JSON
  // text (a JSON column must get the string "5", not the number its unescaped text would parse as). Empty for
  // every other value, whose text already is its JSON text.
  std::string_view json;
  bool is_null = false;
};

// JSON's four whitespace bytes; the raw token of a scalar runs up to the next structural byte, blanks included.
std::string_view TrimJsonWhitespace(std::string_view s);
// The JSON number grammar (RFC 8259), checked on the raw token: On-Demand does not validate a value it is not
// asked to convert, and converting would lose big integers and the exact decimal text users load into DECIMAL.
bool IsJsonNumber(std::string_view token);
// "an object", "a string", ... for messages.
std::string_view DescribeJsonType(simdjson::ondemand::json_type type);

// The raw token at a value or document, trimmed (for a string: with its quotes; for a container: only "{" or "[").
inline simdjson::error_code RawToken(simdjson::ondemand::value& v, std::string_view& out) {
  out = TrimJsonWhitespace(v.raw_json_token());
  return simdjson::SUCCESS;
}
inline simdjson::error_code RawToken(simdjson::ondemand::document& d, std::string_view& out) {
  std::string_view token;
  if (auto error = d.raw_json_token().get(token)) return error;
  out = TrimJsonWhitespace(token);
  return simdjson::SUCCESS;
}

// A field's key. Keys without escapes (nearly all) are viewed in place in the input, which costs one short
// memchr instead of unescaping into simdjson's string buffer; `input_end` bounds the search (the parser has
// already checked that every string is terminated). Keys with a backslash are unescaped.
inline simdjson::error_code ReadKey(simdjson::ondemand::field& field, const char* input_end, std::string_view& out) {
  const char* start = field.key().raw();  // just after the opening quote
  const void* quote = std::memchr(start, '"', static_cast<size_t>(input_end - start));
  if (quote != nullptr) {
    const size_t length = static_cast<size_t>(static_cast<const char*>(quote) - start);
    if (std::memchr(start, '\\', length) == nullptr) {
      out = std::string_view(start, length);
      return simdjson::SUCCESS;
    }
  }
  return field.unescaped_key().get(out);
}

// Reads (and so consumes) a value or a document root. V is ondemand::value or ondemand::document.
template <typename V>
simdjson::error_code ReadJsonText(V& v, JsonText& out) {
  namespace od = simdjson::ondemand;
  od::json_type type;
  if (auto error = v.type().get(type)) return error;
  out.is_null = false;
  out.json = {};
  switch (type) {
    case od::json_type::string:
      // The raw token is pointer arithmetic over the structural index; get_string then validates and unescapes.
      if (auto error = RawToken(v, out.json)) return error;
      return v.get_string().get(out.text);
    case od::json_type::number: {
      if (auto error = RawToken(v, out.text)) return error;
      return IsJsonNumber(out.text) ? simdjson::SUCCESS : simdjson::NUMBER_ERROR;
    }
    case od::json_type::boolean: {
      bool b = false;
      if (auto error = v.get_bool().get(b)) return error;
      out.text = b ? "true" : "false";
      return simdjson::SUCCESS;
    }
    case od::json_type::null: {
      bool is_null = false;
      if (auto error = v.is_null().get(is_null)) return error;
      if (!is_null) return simdjson::N_ATOM_ERROR;
      out.text = {};
      out.is_null = true;
      return simdjson::SUCCESS;
    }
    case od::json_type::object: {
      od::object object;
      if (auto error = v.get_object().get(object)) return error;
      if (auto error = object.raw_json().get(out.text)) return error;
      out.text = TrimJsonWhitespace(out.text);  // raw_json() runs up to the next token, blanks included
      return simdjson::SUCCESS;
    }
    case od::json_type::array: {
      od::array array;
      if (auto error = v.get_array().get(array)) return error;
      if (auto error = array.raw_json().get(out.text)) return error;
      out.text = TrimJsonWhitespace(out.text);
      return simdjson::SUCCESS;
    }
  }
  return simdjson::INCORRECT_TYPE;
}

// The JSON text of a value as written (for a rejected element's raw bytes), consuming it.
inline simdjson::error_code ReadRawJson(simdjson::ondemand::value& v, std::string_view& out) {
  namespace od = simdjson::ondemand;
  od::json_type type;
  if (auto error = v.type().get(type)) return error;
  if (type == od::json_type::object || type == od::json_type::array) {
    JsonText text;
    if (auto error = ReadJsonText(v, text)) return error;
    out = text.text;
    return simdjson::SUCCESS;
  }
  return RawToken(v, out);
}

}  // namespace sluice::format
