#include "format/json_column_lookup.h"

namespace sluice::format {

JsonColumnLookup::JsonColumnLookup(const std::vector<std::string>& columns) : names_(columns) {
  size_t longest = 0;
  for (const std::string& name : names_) {
    std::string lowered = name;
    for (char& c : lowered) c = Lower(c);
    lowered_.push_back(std::move(lowered));
    if (name.size() > longest) longest = name.size();
  }
  by_length_.resize(longest + 1);
  for (uint32_t c = 0; c < names_.size(); c++) by_length_[names_[c].size()].push_back(c);
}

}  // namespace sluice::format
