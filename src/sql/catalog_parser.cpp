// External catalogs in StarRocks' grammar: CREATE EXTERNAL CATALOG name [COMMENT '...'] PROPERTIES (...),
// SHOW CATALOGS, SHOW CREATE CATALOG name, DROP CATALOG [IF EXISTS] name. Properties are kept as written; catalog/
// validates them against its property table.
#include "common/ascii.h"
#include "sql/routine_load_parser.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

bool IsExternalCatalogStatement(const TokenStream& ts) {
  if (ts.PeekWord("CREATE") && ts.PeekWord("EXTERNAL", 1) && ts.PeekWord("CATALOG", 2)) return true;
  if (ts.PeekWord("SHOW") && ts.PeekWord("CATALOGS", 1)) return true;
  if (ts.PeekWord("SHOW") && ts.PeekWord("CREATE", 1) && ts.PeekWord("CATALOG", 2)) return true;
  return ts.PeekWord("DROP") && ts.PeekWord("CATALOG", 1);
}

Result<Statement> ParseExternalCatalogStatement(TokenStream& ts) {
  if (ts.AcceptWord("CREATE")) {
    ts.Next();  // EXTERNAL
    ts.Next();  // CATALOG
    CreateExternalCatalog st;
    st.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
    ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a catalog name"));
    if (ts.AcceptWord("COMMENT")) {
      ASSIGN_OR_RETURN(st.comment, ts.ExpectString("a comment in quotes"));
    }
    if (!ts.AcceptWord("PROPERTIES"))
      return ts.Error("PROPERTIES (\"type\" = \"iceberg\", \"iceberg.catalog.type\" = \"jdbc\", ...)");
    ASSIGN_OR_RETURN(st.properties, ParsePropertyList(ts, "PROPERTIES"));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  if (ts.AcceptWord("DROP")) {
    ts.Next();  // CATALOG
    DropExternalCatalog st;
    st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
    ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a catalog name"));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{std::move(st)};
  }
  ts.Next();  // SHOW
  if (ts.AcceptWord("CATALOGS")) {
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Statement{ShowExternalCatalogs{}};
  }
  ts.Next();  // CREATE
  ts.Next();  // CATALOG
  ShowCreateCatalog st;
  ASSIGN_OR_RETURN(st.name, ts.ExpectIdentifier("a catalog name"));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Statement{std::move(st)};
}

}  // namespace sluice::sql
