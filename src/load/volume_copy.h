#pragma once
// One-shot COPY INTO t FROM VOLUME v: picks the volume's files, and loads each in its own transaction together
// with its load record (or a group of files in one transaction with every file's record), so a file is loaded whole
// or not at all, and once (unless FORCE). DuckDB parses the files
// (read_csv with its reject table, read_json_objects, read_parquet); S3 objects are first downloaded into a
// scratch folder. Volume pipes run the same per-file load (LoadVolumeFile).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/load_history.h"
#include "catalog/property_table.h"
#include "catalog/volume_store.h"
#include "load/volume_row_checks.h"
#include "common/result_set.h"
#include "common/status.h"
#include "source/volume.h"
#include "storage/database.h"

namespace sluice::load {

// A file format with its OPTIONS (...) validated.
struct FileFormat {
  enum class Kind { kCsv, kJson, kParquet };
  Kind kind = Kind::kCsv;
  bool header = false;
  std::optional<std::string> sep, quote, escape, null_string;
  std::string compression = "auto";  // auto (by file extension), none, gzip, zstd
  int64_t skip = 0;                  // CSV: lines skipped before the header / first row
  std::string json_format = "auto";  // auto, lines, array
};

// The option tables (names lower case); the docs list them.
const std::vector<catalog::PropertySpec>& CsvCopyOptions();
const std::vector<catalog::PropertySpec>& JsonCopyOptions();

// `format` is CSV, JSON or PARQUET; options as written (names case-insensitive). Unknown options and bad values are
// InvalidArgument naming the option and what is allowed.
Result<FileFormat> BuildFileFormat(const std::string& format,
                                   const std::vector<std::pair<std::string, std::string>>& options);

// Where a volume load writes, and how to read its files.
struct VolumeLoadTarget {
  std::string db;
  std::string table;
  // The files' columns as (name, DuckDB type); empty: the table's columns, in order.
  std::vector<std::pair<std::string, std::string>> file_columns;
  FileFormat format;
  // The transform form, COPY INTO t FROM (SELECT <select_list> FROM VOLUME ... [WHERE <where>]): DuckDB SQL over the
  // file's columns (named by `file_columns`, else by the file: CSV header names or column0..., as text; JSON keys and
  // Parquet columns with their detected types), inserted into the table's columns by position. Empty: no transform.
  std::string select_list;
  std::string where;
  bool continue_on_error = false;  // ON_ERROR = CONTINUE: bad rows are recorded and skipped
  // Under CONTINUE, rows the table's constraints would refuse (too long, NULL into NOT NULL, in no partition) are
  // rejected rows rather than a failed file; the caller fills it from the table (VolumeRowChecksFor).
  VolumeRowChecks row_checks;
  std::string scratch_dir;         // where S3 objects are downloaded
  // Who loads, for the file's load_history row: a pipe (job = its name, kind PIPE) or a one-shot COPY INTO
  // (job empty, kind COPY).
  std::string job;
  std::string job_kind = "COPY";
  // A load into an Iceberg table goes through a stage: when set, the file's rows go into this (TEMP) table, whose
  // columns are `stage_columns` (name, DuckDB type), and nothing is recorded: the caller commits the stage and
  // records the files after its commit (lakehouse/lake_volume_copy.h).
  std::string stage_sql;
  std::vector<std::pair<std::string, std::string>> stage_columns;
};

// FileLoadOutcome::status of a file gone or replaced between its listing and its download (Fetch answered NotFound
// or Conflict): nothing of it was read; first_error says what happened.
inline constexpr const char* kFileChanged = "CHANGED";

struct FileLoadOutcome {
  std::string status;              // LOADED, PARTIALLY_LOADED, SKIPPED (loaded before), kFileChanged
  int64_t rows_loaded = 0;
  int64_t error_rows = 0;
  std::string first_error;
  int64_t first_error_line = 0;
  // A staged load (VolumeLoadTarget::stage_sql) records nothing itself: the rows it rejected (under ON_ERROR =
  // CONTINUE) are handed back for the caller to record with the commit of the file's good rows.
  std::vector<catalog::RejectedFileRow> rejected;
};

// Loads one file in one transaction on `con` (rows + load record + rejected rows + load_history row). Unless `force`, a file already
// loaded into the table is not read again (status SKIPPED); loads of the same file into the same table are serialized
// within the process, so concurrent statements cannot both load it. A file gone or replaced since it was listed is
// kFileChanged. A file that cannot be loaded at all is an error (nothing committed), whatever ON_ERROR says; the
// caller decides what follows.
Result<FileLoadOutcome> LoadVolumeFile(storage::Connection& con, source::VolumeReader& reader,
                                       const catalog::ResolvedVolume& volume, const source::VolumeFile& file,
                                       const VolumeLoadTarget& target, bool force);

// The load_history row of a file load (job and kind from the target), without its outcome.
catalog::LoadHistoryEntry FileLoadHistory(const VolumeLoadTarget& t, const std::string& file_url, int64_t start_ms,
                                          int64_t end_ms);

// COPY INTO's result columns, no rows: file, status, rows_loaded, error_rows, first_error, first_error_line.
ResultSet CopyResultColumns();

// `st` with the volume named in front ("volume landing (s3://bucket/in/, storage connection s3c): ..."), so an
// error of the store says which volume and connection it is about. Keeps the code.
Status VolumeStatus(const catalog::ResolvedVolume& volume, const Status& st);

// DuckDB's reader errors run on for many lines (hints, every reader option): the part before the first blank line,
// its lines joined with "; " ("CSV Error on Line: 3; Original Line: yy,2.0; Error when converting column ...").
std::string ConciseLoadError(const std::string& message);

// A FAILED load_history row for a file that could not be loaded (nothing of it committed), on its own; the error is
// kept in its concise form.
Status RecordFileLoadFailure(storage::Connection& con, const catalog::ResolvedVolume& volume,
                             const source::VolumeFile& file, const VolumeLoadTarget& target,
                             const std::string& error, int64_t start_ms);

// Loading many files in one transaction ("groups"): one INSERT over up to kVolumeGroupMaxFiles files /
// kVolumeGroupMaxBytes bytes. Fits when GroupLoadFits: ON_ERROR = ABORT, no transform, CSV or JSON.
inline constexpr size_t kVolumeGroupMaxFiles = 256;
inline constexpr int64_t kVolumeGroupMaxBytes = int64_t{1} << 30;
bool GroupLoadFits(const VolumeLoadTarget& target);
// Loads `files` (none of them loaded before unless `force`) with ONE INSERT over all of them, in one transaction
// together with every file's load record and load_history row: the group is loaded whole or not at all. Any failure
// (a bad row, a file that cannot be read, a file loaded meanwhile) rolls everything back and is returned; the caller
// then loads the files one by one (LoadVolumeFile), which names the failing file and line.
Result<std::vector<FileLoadOutcome>> LoadVolumeGroup(storage::Connection& con, source::VolumeReader& reader,
                                                     const catalog::ResolvedVolume& volume,
                                                     const std::vector<source::VolumeFile>& files,
                                                     const VolumeLoadTarget& target, bool force);

struct VolumeCopyRequest;
// The files a COPY INTO names (FILES, REGEXP, SUBDIRECTORY, else all of the volume), as listed now.
Result<std::vector<source::VolumeFile>> ChooseVolumeFiles(source::VolumeReader& reader, const VolumeCopyRequest& req);

struct VolumeCopyRequest {
  VolumeLoadTarget target;
  catalog::ResolvedVolume volume;
  std::vector<std::string> files;  // FILES (...)
  std::optional<std::string> regexp;
  std::optional<std::string> subdirectory;
  bool force = false;
};

// Runs COPY INTO: one row per file tried (file, status, rows_loaded, error_rows, first_error, first_error_line).
// Files loaded before (same volume location, path and size, same ETag or, without one, modification time, into the
// same table) are skipped unless `force`. Under ON_ERROR = ABORT the first failing file fails the statement; files before it
// stay loaded. Under ON_ERROR = ABORT without a transform, CSV and JSON files load in groups (up to 256 files / 1 GiB):
// one INSERT over the group's files and every file's load record in one transaction; a group that fails is rolled
// back and loaded again file by file (LoadVolumeFile), which stops at the bad file as above.
Result<ResultSet> CopyIntoFromVolume(storage::Connection& con, const VolumeCopyRequest& request);

}  // namespace sluice::load
