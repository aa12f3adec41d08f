#pragma once
// The rows a statement returns from the test's PostgreSQL, as one string ("a|b|" per row, NULL as NULL): what the
// cluster stores' tests compare against what they wrote.
#include <gtest/gtest.h>

#include <string>

#include "cluster/pg_client.h"

namespace sluice::catalog::testing {

inline std::string PgRows(const std::string& uri, const std::string& sql) {
  auto pg = cluster::PgClient::Connect(uri);
  EXPECT_TRUE(pg.ok());
  if (!pg.ok()) return "";
  auto r = (*pg)->Exec(sql);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::string out;
  if (r.ok())
    for (const auto& row : r->rows)
      for (const auto& v : row) out += v.value_or("NULL") + "|";
  return out;
}

}  // namespace sluice::catalog::testing
