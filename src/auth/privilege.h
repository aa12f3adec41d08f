#pragma once
// The privilege model, after StarRocks v3: each privilege belongs to one kind of object (the system, the catalog,
// a database, a table, a pipe, a storage volume or connection), and a grant names the object, all objects of a
// kind in a database, or all of them everywhere. This header is the one table of what exists; the parser, GRANT,
// SHOW GRANTS and the checks all read it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::auth {

enum class ObjectKind { kSystem, kCatalog, kDatabase, kTable, kPipe, kStorageVolume, kStorageConnection };

std::string_view ObjectKindName(ObjectKind kind);  // "SYSTEM", "CATALOG", "DATABASE", "TABLE", ...

// The privileges one kind of object has, upper case, as users write them ("CREATE TABLE", "SELECT").
const std::vector<std::string>& PrivilegesOf(ObjectKind kind);
// Whether `privilege` (upper case, or "ALL") exists for `kind`.
bool IsPrivilegeOf(ObjectKind kind, std::string_view privilege);

inline constexpr const char* kAll = "*";  // in a grant's db or name: every database / every object

// What a grant applies to. For kTable/kPipe: db and name, either may be "*" (ALL TABLES IN DATABASE db is
// {db, "*"}, ALL TABLES IN ALL DATABASES is {"*", "*"}). kDatabase: db (or "*"). kStorageVolume /
// kStorageConnection: name (or "*"). kSystem / kCatalog: neither.
struct ObjectRef {
  ObjectKind kind = ObjectKind::kSystem;
  std::string db;
  std::string name;
  bool operator==(const ObjectRef&) const = default;
};

// Whether a grant on `granted` covers the concrete object `wanted` (names compare case-insensitively).
bool Covers(const ObjectRef& granted, const ObjectRef& wanted);

// How an object is written in SHOW GRANTS: "TABLE db.t", "ALL TABLES IN DATABASE db", "SYSTEM", ...
std::string DescribeObject(const ObjectRef& object);

// Built-in roles and the user that always exists.
inline constexpr const char* kRootRole = "root";
inline constexpr const char* kClusterAdminRole = "cluster_admin";
inline constexpr const char* kDbAdminRole = "db_admin";
inline constexpr const char* kUserAdminRole = "user_admin";
inline constexpr const char* kPublicRole = "public";
inline constexpr const char* kRootUser = "root";
bool IsBuiltinRole(std::string_view role);

}  // namespace sluice::auth
