#pragma once
// Internal to sql/: the Routine Load statement parsers. Each starts on the statement's first keyword.
#include "sql/token_stream.h"

namespace sluice::sql {

Result<Statement> ParseCreateRoutineLoad(TokenStream& ts);          // CREATE ROUTINE LOAD
Result<Statement> ParseAlterRoutineLoad(TokenStream& ts);           // ALTER ROUTINE LOAD
Result<Statement> ParseControlRoutineLoad(TokenStream& ts);         // PAUSE | RESUME | STOP ROUTINE LOAD
Result<Statement> ParseShowRoutineLoad(TokenStream& ts);            // SHOW [ALL|CREATE] ROUTINE LOAD [TASK]
bool IsShowRoutineLoad(const TokenStream& ts);
// ( "key" = "value" [, ...] ): keys and values quoted with ' or ", keys also as bare names. `clause` names the
// clause in errors ("PROPERTIES").
Result<PropertyList> ParsePropertyList(TokenStream& ts, std::string_view clause);

}  // namespace sluice::sql
