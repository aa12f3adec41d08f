#pragma once
// The data directory holds the database (every row, the catalog) and secrets.key (which unseals every stored
// secret): only the server's own user may read them. Files are created private (umask 077) and, at each start,
// anything looser is tightened with a log line: the data directory to 0700, the database file, its WAL and
// secrets.key to 0600.
#include <string>

namespace sluice {

inline constexpr unsigned kPrivateDirMode = 0700;
inline constexpr unsigned kPrivateFileMode = 0600;

// Sets the process umask to 077, so that DuckDB's database file and WAL, error logs and scratch files are created
// readable by the server's user only. Call before anything creates files.
void UsePrivateUmask();

// chmods `dir` to 0700 and, inside it, sluice.duckdb, sluice.duckdb.wal and secrets.key to 0600 when their modes
// allow more (group or other bits); each change is logged. Missing files are skipped. Failures are logged, not fatal:
// a read-only mount the operator chose should still start.
void TightenDataDirPermissions(const std::string& dir);

}  // namespace sluice
