#pragma once
// DuckDB's CSV reader explains a bad file in its own terms: a wrapper line, "Possible fixes" naming read_csv options
// Sluice does not take (null_padding, ignore_errors, strict_mode) and a dump of every reader option with the path of
// a scratch copy. CsvReadError says the same thing in Sluice's words: the line, what was wrong (expected N columns,
// found M), the line's text, and advice that works in a COPY INTO or a volume pipe.
#include <string>

#include "common/status.h"

namespace sluice::load {

// `st` (a failed read_csv) in Sluice's words, keeping its code. `continue_on_error`: ON_ERROR = CONTINUE was in
// effect, so the advice to skip bad rows with it is left out. A message that is not a CSV reader error is returned
// in its concise form (ConciseLoadError).
Status CsvReadError(const Status& st, bool continue_on_error);

}  // namespace sluice::load
