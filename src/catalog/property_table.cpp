#include "catalog/property_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/ascii.h"

namespace sluice::catalog {

namespace {

std::string Range(const PropertySpec& s) {
  auto num = [](double v) {
    if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
    std::string t = std::to_string(v);
    while (t.size() > 1 && t.back() == '0') t.pop_back();
    if (t.size() > 1 && t.back() == '.') t.pop_back();
    return t;
  };
  return num(s.min) + " and " + num(s.max);
}

}  // namespace

const PropertySpec* FindProperty(const std::vector<PropertySpec>& table, const std::string& name) {
  std::string key = AsciiLower(name);
  for (const auto& p : table)
    if (key == p.name) return &p;
  return nullptr;
}

Result<std::string> ValidateProperty(const PropertySpec& spec, const std::string& value) {
  std::string where = std::string("property \"") + spec.name + "\"";
  switch (spec.type) {
    case PropertyType::kInt: {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno == ERANGE)
        return Status::InvalidArgument(where + " must be an integer, got \"" + value + "\"");
      if (v < spec.min || v > spec.max)
        return Status::InvalidArgument(where + " must be between " + Range(spec) + ", got " + value);
      return std::to_string(v);
    }
    case PropertyType::kDouble: {
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || std::isnan(v))
        return Status::InvalidArgument(where + " must be a number, got \"" + value + "\"");
      if (v < spec.min || v > spec.max)
        return Status::InvalidArgument(where + " must be between " + Range(spec) + ", got " + value);
      return value;
    }
    case PropertyType::kBool: {
      std::string v = AsciiLower(value);
      if (v == "true" || v == "false") return v;
      return Status::InvalidArgument(where + " must be true or false, got \"" + value + "\"");
    }
    case PropertyType::kEnum: {
      std::string v = AsciiLower(value);
      std::string list;
      for (const char* a : spec.allowed) {
        if (v == a) return v;
        list += (list.empty() ? "" : ", ") + std::string(a);
      }
      return Status::InvalidArgument(where + " must be one of " + list + ", got \"" + value + "\"");
    }
    case PropertyType::kByte:
      // Empty is the default ("none"), as SHOW CREATE ROUTINE LOAD prints it.
      if (value.size() > 1)
        return Status::InvalidArgument(where + " must be a single byte, got \"" + value + "\"");
      return value;
    case PropertyType::kString:
      return value;
  }
  return value;
}

}  // namespace sluice::catalog
