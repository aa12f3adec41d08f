#include "format/rejected_row.h"

#include <utility>

namespace sluice::format {

void AddRejectedRow(TextBatch& out, RowOrigin origin, std::string reason, std::string_view raw, bool fatal) {
  out.rejected().push_back(
      RejectedRow{origin, std::move(reason), std::string(raw.substr(0, kMaxRejectedRawBytes)), fatal});
}

}  // namespace sluice::format
