#pragma once
// How a decoder records a row it could not turn into fields: the reason, where it came from, and its bytes.
#include <cstddef>
#include <string>
#include <string_view>

#include "common/text_batch.h"

namespace sluice::format {

// Rejected rows keep at most this many source bytes: enough for a user to see what was wrong, and bounded so
// that one huge malformed message cannot blow up the error log (or the memory of a batch full of them).
inline constexpr size_t kMaxRejectedRawBytes = 4096;

// `fatal`: the whole message could not be parsed (RejectedRow::fatal).
void AddRejectedRow(TextBatch& out, RowOrigin origin, std::string reason, std::string_view raw, bool fatal = false);

}  // namespace sluice::format
