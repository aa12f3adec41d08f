#pragma once
// SQL LIKE as MySQL users write it in SHOW ... LIKE 'pattern': % any run, _ one character, backslash escapes,
// case-insensitive.
#include <string_view>

namespace sluice {

bool LikeMatch(std::string_view text, std::string_view pattern);

}  // namespace sluice
