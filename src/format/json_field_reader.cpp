#include "format/json_field_reader.h"

#include <simdjson.h>

#include <charconv>
#include <cstring>

namespace sluice::format {

namespace dom = simdjson::dom;

namespace {

struct Step {
  std::string key;                   // the token, unescaped: an object key
  std::optional<size_t> index;       // the token as an array index, when written canonically
};

Result<std::vector<Step>> ParsePointer(const std::string& pointer) {
  if (pointer.empty() || pointer[0] != '/')
    return Status::InvalidArgument("JSON pointer '" + pointer + "' must start with '/'");
  std::vector<Step> steps;
  size_t at = 1;
  while (true) {
    size_t end = pointer.find('/', at);
    if (end == std::string::npos) end = pointer.size();
    Step step;
    for (size_t i = at; i < end; i++) {
      if (pointer[i] != '~') {
        step.key += pointer[i];
      } else if (i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        step.key += pointer[i + 1] == '0' ? '~' : '/';
        i++;
      } else {
        return Status::InvalidArgument("JSON pointer '" + pointer + "' has a '~' not followed by 0 or 1");
      }
    }
    const std::string& k = step.key;
    const bool digits = !k.empty() && k.size() <= 9 && k.find_first_not_of("0123456789") == std::string::npos;
    if (digits && (k == "0" || k[0] != '0')) step.index = std::stoul(k);
    steps.push_back(std::move(step));
    if (end == pointer.size()) break;
    at = end + 1;
  }
  return steps;
}

// A "-0" anywhere in the text: DuckDB may print that integer differently from 0, so integer zeros are unknown.
bool HasNegativeZero(std::string_view text) {
  for (size_t at = text.find("-0"); at != std::string_view::npos; at = text.find("-0", at + 1)) {
    if (at + 2 == text.size() || !(text[at + 2] >= '0' && text[at + 2] <= '9')) return true;
  }
  return false;
}

}  // namespace

class JsonFieldReader::Impl {
 public:
  explicit Impl(std::vector<std::vector<Step>> paths) : paths_(std::move(paths)), numbers_(paths_.size()) {}

  size_t size() const { return paths_.size(); }

  void Read(std::string_view json, std::vector<std::optional<std::string_view>>& out) {
    out.assign(paths_.size(), std::nullopt);
    buffer_.reserve(json.size() + simdjson::SIMDJSON_PADDING);
    buffer_.assign(json.data(), json.size());
    dom::element doc;
    if (parser_.parse(buffer_.data(), buffer_.size(), false).get(doc) != simdjson::SUCCESS) return;
    negative_zero_ = -1;
    if (doc.type() != dom::element_type::OBJECT) {
      for (size_t i = 0; i < paths_.size(); i++) out[i] = Value(doc, paths_[i], 0, i, json);
      return;
    }
    // One walk over the top-level object finds every path's first key (the usual message is one flat object).
    matches_.assign(paths_.size(), 0);
    found_.resize(paths_.size());
    const dom::object root = doc.get_object().value_unsafe();
    for (dom::key_value_pair field_value : root) {
      for (size_t i = 0; i < paths_.size(); i++) {
        if (field_value.key == paths_[i][0].key) {
          matches_[i]++;
          found_[i] = field_value.value;
        }
      }
    }
    for (size_t i = 0; i < paths_.size(); i++) {
      if (matches_[i] == 1) out[i] = Value(found_[i], paths_[i], 1, i, json);
    }
  }

 private:
  // The value at `steps` from `first` on, starting at `at`.
  std::optional<std::string_view> Value(dom::element at, const std::vector<Step>& steps, size_t first,
                                        size_t field, std::string_view json) {
    for (size_t s = first; s < steps.size(); s++) {
      const Step& step = steps[s];
      if (at.type() == dom::element_type::OBJECT) {
        dom::object object = at.get_object().value_unsafe();
        int matches = 0;
        for (dom::key_value_pair field_value : object) {
          if (field_value.key == step.key) {
            matches++;
            at = field_value.value;
          }
        }
        if (matches != 1) return std::nullopt;
      } else if (at.type() == dom::element_type::ARRAY && step.index) {
        dom::array array = at.get_array().value_unsafe();
        if (array.at(*step.index).get(at) != simdjson::SUCCESS) return std::nullopt;
      } else {
        return std::nullopt;
      }
    }
    switch (at.type()) {
      case dom::element_type::STRING: {
        std::string_view text = at.get_string().value_unsafe();
        if (std::memchr(text.data(), '\0', text.size()) != nullptr) return std::nullopt;
        return text;
      }
      case dom::element_type::BOOL:
        return at.get_bool().value_unsafe() ? std::string_view("true") : std::string_view("false");
      case dom::element_type::INT64:
      case dom::element_type::UINT64: {
        char buf[24];
        std::to_chars_result r;
        if (at.type() == dom::element_type::INT64) {
          const int64_t v = at.get_int64().value_unsafe();
          if (v == 0 && NegativeZero(json)) return std::nullopt;
          r = std::to_chars(buf, buf + sizeof buf, v);
        } else {
          r = std::to_chars(buf, buf + sizeof buf, at.get_uint64().value_unsafe());
        }
        numbers_[field].assign(buf, r.ptr);
        return numbers_[field];
      }
      default:
        return std::nullopt;
    }
  }

  bool NegativeZero(std::string_view json) {
    if (negative_zero_ < 0) negative_zero_ = HasNegativeZero(json) ? 1 : 0;
    return negative_zero_ == 1;
  }

  std::vector<std::vector<Step>> paths_;
  std::vector<std::string> numbers_;  // the text of integer values, per field
  std::vector<int> matches_;          // per path: how often its first key occurs at the top level
  std::vector<dom::element> found_;   // per path: the value of its first key
  dom::parser parser_;
  std::string buffer_;  // the text with SIMDJSON_PADDING spare bytes behind it
  int negative_zero_ = -1;
};

Result<JsonFieldReader> JsonFieldReader::Create(const std::vector<std::string>& pointers) {
  std::vector<std::vector<Step>> paths;
  for (const std::string& p : pointers) {
    ASSIGN_OR_RETURN(auto steps, ParsePointer(p));
    paths.push_back(std::move(steps));
  }
  return JsonFieldReader(std::make_unique<Impl>(std::move(paths)));
}

JsonFieldReader::JsonFieldReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JsonFieldReader::JsonFieldReader(JsonFieldReader&&) noexcept = default;
JsonFieldReader& JsonFieldReader::operator=(JsonFieldReader&&) noexcept = default;
JsonFieldReader::~JsonFieldReader() = default;

void JsonFieldReader::Read(std::string_view json, std::vector<std::optional<std::string_view>>& out) {
  impl_->Read(json, out);
}

size_t JsonFieldReader::size() const { return impl_->size(); }

}  // namespace sluice::format
