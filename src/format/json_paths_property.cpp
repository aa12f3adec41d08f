#include "format/json_paths_property.h"

#include <simdjson.h>

#include "format/quoted_bytes.h"

namespace sluice::format {
namespace {

Status NotAnArray(std::string_view property) {
  return Status::InvalidArgument("jsonpaths must be a JSON array of path strings, e.g. [\"$.a\", \"$.b.c\"], got " +
                                 QuoteBytes(property));
}

}  // namespace

Result<std::vector<std::string>> ParseJsonPathsProperty(std::string_view property) {
  if (property.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::vector<std::string>{};
  simdjson::padded_string padded(property);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return NotAnArray(property);
  simdjson::ondemand::array array;
  if (doc.get_array().get(array) != simdjson::SUCCESS) return NotAnArray(property);
  std::vector<std::string> paths;
  for (auto element : array) {
    std::string_view path;
    if (element.get_string().get(path) != simdjson::SUCCESS) return NotAnArray(property);
    paths.emplace_back(path);
  }
  // Anything after the array ("[\"$.a\"] x") is a typo the user should hear about.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) return NotAnArray(property);
  return paths;
}

}  // namespace sluice::format
