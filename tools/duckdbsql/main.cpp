// duckdbsql: runs SQL in a DuckDB of its own (in memory), for tests that need files DuckDB writes (Parquet
// fixtures). The server cannot write them: its SQL never reaches the file system (docs/security.md).
//   duckdbsql "COPY (SELECT range AS id FROM range(10)) TO '/tmp/x.parquet' (FORMAT parquet)"
#include <duckdb.h>

#include <cstdio>

int main(int argc, char** argv) {
  duckdb_database db;
  duckdb_connection con;
  if (duckdb_open(nullptr, &db) != DuckDBSuccess || duckdb_connect(db, &con) != DuckDBSuccess) {
    std::fprintf(stderr, "duckdbsql: cannot open DuckDB\n");
    return 1;
  }
  int rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    duckdb_result result;
    if (duckdb_query(con, argv[i], &result) != DuckDBSuccess) {
      std::fprintf(stderr, "duckdbsql: %s\n", duckdb_result_error(&result));
      rc = 1;
    }
    duckdb_destroy_result(&result);
  }
  duckdb_disconnect(&con);
  duckdb_close(&db);
  return rc;
}
