#pragma once
// Internal to sql/: storage connection, volume and COPY INTO statements (Lakehouse grammar). Each parser starts on
// the statement's first keyword.
#include "sql/token_stream.h"

namespace sluice::sql {

// CREATE STORAGE CONNECTION / CREATE [EXTERNAL] VOLUME
bool IsCreateStorageObject(const TokenStream& ts);
Result<Statement> ParseCreateStorageObject(TokenStream& ts);
// SHOW [STORAGE] CONNECTIONS / SHOW [EXTERNAL] VOLUMES
bool IsShowStorageObjects(const TokenStream& ts);
Result<Statement> ParseShowStorageObjects(TokenStream& ts);
// DESC / DROP [STORAGE] CONNECTION, [EXTERNAL] VOLUME
bool IsStorageObjectStatement(const TokenStream& ts);
Result<Statement> ParseDescribeOrDropStorageObject(TokenStream& ts);
// COPY INTO t FROM VOLUME ...
bool IsCopyInto(const TokenStream& ts);
Result<Statement> ParseCopyInto(TokenStream& ts);

}  // namespace sluice::sql
