// The benchmark's DuckDB reference: DuckDB itself loading files, through the same libduckdb Sluice uses.
//
//   duckdb_load DATABASE_FILE SQL [SQL ...]
//
// Opens (or creates) the database file, runs each statement in order, and prints one line per statement:
// "<milliseconds>\t<rows changed>". Exits 1 with DuckDB's message on the first error.
#include <duckdb.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DATABASE_FILE SQL [SQL ...]\n", argv[0]);
    return 2;
  }
  duckdb_database db;
  duckdb_connection con;
  if (duckdb_open(argv[1], &db) != DuckDBSuccess) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  if (duckdb_connect(db, &con) != DuckDBSuccess) {
    std::fprintf(stderr, "cannot connect to %s\n", argv[1]);
    return 1;
  }
  int rc = 0;
  for (int i = 2; i < argc && rc == 0; ++i) {
    duckdb_result result;
    auto start = std::chrono::steady_clock::now();
    if (duckdb_query(con, argv[i], &result) != DuckDBSuccess) {
      std::fprintf(stderr, "statement %d failed: %s\n", i - 1, duckdb_result_error(&result));
      rc = 1;
    } else {
      auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      std::printf("%.1f\t%llu\n", ms, static_cast<unsigned long long>(duckdb_rows_changed(&result)));
    }
    duckdb_destroy_result(&result);
  }
  duckdb_disconnect(&con);
  duckdb_close(&db);
  return rc;
}
