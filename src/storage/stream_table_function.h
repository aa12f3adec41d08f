#pragma once
// A table function whose rows a caller-supplied producer streams, chunk by chunk, so what produces them stays out of
// storage (READ_KAFKA is registered by the executor over source/). DuckDB pulls chunks only as long as the query
// needs them: `LIMIT n` stops the producer early. Arguments arrive as text, columns leave as VARCHAR (a SQL macro
// over the function gives them their types).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "storage/database.h"

namespace sluice::storage {

using StreamRow = std::vector<std::optional<std::string>>;

class RowStream {
 public:
  virtual ~RowStream() = default;
  // Appends up to `max_rows` rows to `rows`; none appended means the end. An error fails the query.
  virtual Status Next(size_t max_rows, std::vector<StreamRow>& rows) = 0;
};

// Called when a query binds the function, with its arguments as text (NULL as an empty string).
using RowStreamFactory = std::function<Result<std::unique_ptr<RowStream>>(const std::vector<std::string>& args)>;

// Registers `name(VARCHAR x num_args)` returning `columns` (all VARCHAR) in the database. Safe to call again.
Status RegisterStreamTableFunction(Connection& con, const std::string& name, size_t num_args,
                                   const std::vector<std::string>& columns, RowStreamFactory factory);

}  // namespace sluice::storage
