#pragma once
// The views of information_schema, one function each, defined in the information_schema_*.cpp files and listed in
// information_schema_views.cpp.
#include "executor/information_schema.h"

namespace sluice::information_schema {

InformationSchemaView Schemata();
InformationSchemaView Tables();
InformationSchemaView Views();
InformationSchemaView Columns();
InformationSchemaView Statistics();
InformationSchemaView KeyColumnUsage();
InformationSchemaView TableConstraints();
InformationSchemaView Routines();
InformationSchemaView Engines();
InformationSchemaView CharacterSets();
InformationSchemaView Collations();
InformationSchemaView UserPrivileges();
InformationSchemaView SchemaPrivileges();
InformationSchemaView TablePrivileges();
// information_schema_dump.cpp: empty, for mariadb-dump.
InformationSchemaView Files();
InformationSchemaView Partitions();
InformationSchemaView Triggers();
InformationSchemaView Events();
// The jobs: information_schema_routine_loads.cpp, information_schema_loads.cpp, information_schema_pipes.cpp.
InformationSchemaView RoutineLoadJobs();
InformationSchemaView Loads();
InformationSchemaView Pipes();
InformationSchemaView PipeFiles();

}  // namespace sluice::information_schema
