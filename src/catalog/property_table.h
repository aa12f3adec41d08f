#pragma once
// One table per statement declares each property once — name, type, default, range, whether ALTER may change
// it, whether it is secret — and drives validation, SHOW output, secret masking and the docs
// (docs/routine-load.md is written from these tables).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/secret_names.h"
#include "common/status.h"

namespace sluice::catalog {

enum class PropertyType { kInt, kDouble, kBool, kString, kEnum, kByte };

struct PropertySpec {
  const char* name;
  PropertyType type;
  const char* default_value;  // as text; "" = none
  double min = 0;             // kInt / kDouble range (inclusive)
  double max = 0;
  std::vector<const char*> allowed;  // kEnum values (lower case)
  bool alterable = true;
  const char* doc = "";
};

// Checks `value` against the spec; returns the normalized value (enums lower case, bools "true"/"false").
// The message names the property, the value and what is allowed.
Result<std::string> ValidateProperty(const PropertySpec& spec, const std::string& value);

const PropertySpec* FindProperty(const std::vector<PropertySpec>& table, const std::string& name);

// Which keys are secret is common/secret_names.h's one list (IsSecretName); this is what SHOW shows instead.
inline constexpr const char* kMask = kSecretMask;

}  // namespace sluice::catalog
