#include "auth/privilege.h"

#include <algorithm>
#include <cctype>

namespace sluice::auth {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool NameCovers(const std::string& granted, const std::string& wanted) {
  return granted == kAll || EqualsIgnoreCase(granted, wanted);
}

}  // namespace

std::string_view ObjectKindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kSystem: return "SYSTEM";
    case ObjectKind::kCatalog: return "CATALOG";
    case ObjectKind::kDatabase: return "DATABASE";
    case ObjectKind::kTable: return "TABLE";
    case ObjectKind::kPipe: return "PIPE";
    case ObjectKind::kStorageVolume: return "STORAGE VOLUME";
    case ObjectKind::kStorageConnection: return "STORAGE CONNECTION";
  }
  return "?";
}

const std::vector<std::string>& PrivilegesOf(ObjectKind kind) {
  // SYSTEM: GRANT manages users, roles and grants; OPERATE kills others' queries and sets server settings;
  // FILE reads files under --secure-file-dir; CREATE STORAGE VOLUME also covers storage connections;
  // CREATE RESOURCE GROUP covers virtual clusters.
  static const std::vector<std::string> system = {"GRANT", "NODE", "OPERATE", "FILE", "CREATE EXTERNAL CATALOG",
                                                  "CREATE STORAGE VOLUME", "CREATE RESOURCE GROUP", "SECURITY"};
  static const std::vector<std::string> catalog = {"USAGE", "CREATE DATABASE"};
  static const std::vector<std::string> database = {"CREATE TABLE", "CREATE VIEW", "CREATE FUNCTION",
                                                    "CREATE PIPE", "ALTER", "DROP"};
  static const std::vector<std::string> table = {"SELECT", "INSERT", "UPDATE", "DELETE", "ALTER", "DROP"};
  static const std::vector<std::string> pipe = {"USAGE", "ALTER", "DROP"};
  static const std::vector<std::string> storage = {"USAGE", "ALTER", "DROP"};
  switch (kind) {
    case ObjectKind::kSystem: return system;
    case ObjectKind::kCatalog: return catalog;
    case ObjectKind::kDatabase: return database;
    case ObjectKind::kTable: return table;
    case ObjectKind::kPipe: return pipe;
    case ObjectKind::kStorageVolume:
    case ObjectKind::kStorageConnection: return storage;
  }
  return system;
}

bool IsPrivilegeOf(ObjectKind kind, std::string_view privilege) {
  if (privilege == "ALL") return true;
  const auto& list = PrivilegesOf(kind);
  return std::find(list.begin(), list.end(), privilege) != list.end();
}

bool Covers(const ObjectRef& granted, const ObjectRef& wanted) {
  if (granted.kind != wanted.kind) return false;
  switch (granted.kind) {
    case ObjectKind::kSystem:
    case ObjectKind::kCatalog: return true;
    case ObjectKind::kDatabase: return NameCovers(granted.db, wanted.db);
    case ObjectKind::kTable:
    case ObjectKind::kPipe: return NameCovers(granted.db, wanted.db) && NameCovers(granted.name, wanted.name);
    case ObjectKind::kStorageVolume:
    case ObjectKind::kStorageConnection: return NameCovers(granted.name, wanted.name);
  }
  return false;
}

std::string DescribeObject(const ObjectRef& o) {
  std::string plural = o.kind == ObjectKind::kTable ? "TABLES" : o.kind == ObjectKind::kPipe ? "PIPES" : "";
  switch (o.kind) {
    case ObjectKind::kSystem: return "SYSTEM";
    case ObjectKind::kCatalog: return "CATALOG default_catalog";
    case ObjectKind::kDatabase: return o.db == kAll ? "ALL DATABASES" : "DATABASE " + o.db;
    case ObjectKind::kTable:
    case ObjectKind::kPipe:
      if (o.db == kAll) return "ALL " + plural + " IN ALL DATABASES";
      if (o.name == kAll) return "ALL " + plural + " IN DATABASE " + o.db;
      return std::string(ObjectKindName(o.kind)) + " " + o.db + "." + o.name;
    case ObjectKind::kStorageVolume:
    case ObjectKind::kStorageConnection:
      if (o.name == kAll)
        return o.kind == ObjectKind::kStorageVolume ? "ALL STORAGE VOLUMES" : "ALL STORAGE CONNECTIONS";
      return std::string(ObjectKindName(o.kind)) + " " + o.name;
  }
  return "?";
}

bool IsBuiltinRole(std::string_view role) {
  for (const char* r : {kRootRole, kClusterAdminRole, kDbAdminRole, kUserAdminRole, kPublicRole})
    if (EqualsIgnoreCase(role, r)) return true;
  return false;
}

}  // namespace sluice::auth
