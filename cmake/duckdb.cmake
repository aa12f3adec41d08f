# DuckDB: a system install wins; otherwise the copy scripts/fetch-duckdb.sh put in third_party/duckdb.
find_path(DUCKDB_INCLUDE_DIR duckdb.h)
find_library(DUCKDB_LIBRARY duckdb)
if(NOT DUCKDB_INCLUDE_DIR OR NOT DUCKDB_LIBRARY)
  set(_dd ${CMAKE_SOURCE_DIR}/third_party/duckdb)
  if(NOT EXISTS ${_dd}/libduckdb.so)
    message(FATAL_ERROR "DuckDB not found: run 'make setup' (scripts/fetch-duckdb.sh) first")
  endif()
  set(DUCKDB_INCLUDE_DIR ${_dd} CACHE PATH "" FORCE)
  set(DUCKDB_LIBRARY ${_dd}/libduckdb.so CACHE FILEPATH "" FORCE)
endif()
message(STATUS "DuckDB: ${DUCKDB_LIBRARY}")
add_library(duckdb_lib SHARED IMPORTED GLOBAL)
set_target_properties(duckdb_lib PROPERTIES
  IMPORTED_LOCATION ${DUCKDB_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${DUCKDB_INCLUDE_DIR})
# The binary finds the bundled library next to where the build put it.
get_filename_component(_dd_dir ${DUCKDB_LIBRARY} DIRECTORY)
set(CMAKE_BUILD_RPATH ${_dd_dir})
set(CMAKE_INSTALL_RPATH ${_dd_dir})
