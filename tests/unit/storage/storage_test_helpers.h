#pragma once
// What the storage module's unit tests share: a connection to a database they opened, and every row of a stream.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "storage/database.h"

namespace sluice::storage {

inline std::unique_ptr<Connection> Connect(Database& db) {
  auto con = db.Connect();
  EXPECT_TRUE(con.ok());
  return std::move(con).value();
}

// Reads a stream to its end; `chunks` (when given) counts the Next calls that returned rows.
inline std::vector<Row> Drain(ResultRowStream& stream, size_t* chunks = nullptr) {
  std::vector<Row> all, rows;
  for (;;) {
    auto more = stream.Next(&rows);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    if (chunks) ++*chunks;
    all.insert(all.end(), rows.begin(), rows.end());
  }
  return all;
}

}  // namespace sluice::storage
