// Every view of information_schema. A new view: its function in its own file, declared in
// information_schema_views.h, and one line here.
#include "executor/information_schema_views.h"

namespace sluice {

const std::vector<InformationSchemaView>& InformationSchemaViews() {
  using namespace information_schema;
  static const std::vector<InformationSchemaView> views = {
      Schemata(),       Tables(),        Views(),         Columns(),          Statistics(),
      KeyColumnUsage(), TableConstraints(), Routines(),   Engines(),          CharacterSets(),
      Collations(),     UserPrivileges(), SchemaPrivileges(), TablePrivileges(), Files(), Partitions(), Triggers(), Events(),
      RoutineLoadJobs(), Loads(),   Pipes(),         PipeFiles(),
  };
  return views;
}

}  // namespace sluice
