#include "executor/volume_directory.h"

#include "sql/parser.h"
#include "storage/rows_table_function.h"

namespace sluice {

Status RegisterVolumeDirectoryFunction(storage::Database& db, catalog::VolumeStore& volumes) {
  ASSIGN_OR_RETURN(auto con, db.Connect());
  std::vector<storage::RowsColumn> columns = {{"relative_path", ValueType::kVarchar},
                                              {"size", ValueType::kBigInt},
                                              {"last_modified", ValueType::kTimestamp},
                                              {"etag", ValueType::kVarchar},
                                              {"url", ValueType::kVarchar}};
  return storage::RegisterRowsTableFunction(
      *con, sql::kDirectoryFunction, std::move(columns),
      [&volumes](const std::string& name) -> Result<std::vector<Row>> {
        ASSIGN_OR_RETURN(catalog::ResolvedVolume v, volumes.Resolve(name));
        ASSIGN_OR_RETURN(auto reader, source::OpenVolume(v.location, v.credentials));
        ASSIGN_OR_RETURN(auto files, reader->List("", v.info.recursive));
        std::vector<Row> rows;
        rows.reserve(files.size());
        for (auto& f : files) {
          rows.push_back({f.path, std::to_string(f.size), std::to_string(f.last_modified_ms * 1000),
                          f.etag.empty() ? std::nullopt : std::optional<std::string>(f.etag),
                          v.location.url + f.path});
        }
        return rows;
      });
}

}  // namespace sluice
