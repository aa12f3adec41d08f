// CREATE / ALTER / DROP USER, SET PASSWORD, CREATE / DROP ROLE, GRANT / REVOKE, SET [DEFAULT] ROLE,
// SHOW USERS / ROLES / GRANTS: StarRocks v3's forms and MySQL's.
#include "sql/account_parser.h"

#include <type_traits>

#include "common/ascii.h"
#include "sql/statement_parsers.h"

namespace sluice::sql {

namespace {

Statement Wrap(auto st) { return Statement{AccountStatement{std::move(st)}}; }

// 'user', "user", `user` or user; then @'host' / @host (the lexer reads @... as one variable token).
Result<UserName> ParseUserName(TokenStream& ts) {
  const Token& t = ts.Peek();
  UserName name;
  if (t.IsString() || t.IsIdentifier()) {
    name.user = t.text;
    ts.Next();
  } else {
    return ts.Error("a user name such as 'alice'@'%'");
  }
  if (name.user.empty()) return ts.Complain(t, "a user name cannot be empty");
  const Token& at = ts.Peek();
  if (at.kind == TokenKind::kVariable && at.raw.size() > 1 && at.raw[0] == '@' && at.raw[1] != '@') {
    std::string_view host = at.raw.substr(1);
    if (host.size() >= 2 && (host.front() == '\'' || host.front() == '"' || host.front() == '`') &&
        host.back() == host.front())
      host = host.substr(1, host.size() - 2);
    name.host = std::string(host);
    ts.Next();
  } else if (at.IsSymbol("@")) {
    ts.Next();
    const Token& h = ts.Peek();
    if (!h.IsString() && !h.IsIdentifier()) return ts.Error("a host such as '%' or '127.0.0.1'");
    name.host = h.text;
    ts.Next();
  }
  if (name.host.empty()) name.host = "%";
  return name;
}

// `item [, item ...]`, each read by `parse_one`.
template <class ParseOne>
auto ParseCommaList(TokenStream& ts, ParseOne parse_one)
    -> Result<std::vector<std::decay_t<decltype(*parse_one(ts))>>> {
  std::vector<std::decay_t<decltype(*parse_one(ts))>> out;
  do {
    auto item = parse_one(ts);
    if (!item.ok()) return item.status();
    out.push_back(std::move(*item));
  } while (ts.AcceptSymbol(","));
  return out;
}

Result<std::vector<UserName>> ParseUserList(TokenStream& ts) { return ParseCommaList(ts, ParseUserName); }

Result<std::string> ParseRoleName(TokenStream& ts) {
  const Token& t = ts.Peek();
  if (!t.IsString() && !t.IsIdentifier()) return ts.Error("a role name");
  std::string name = t.text;
  ts.Next();
  if (name.empty()) return ts.Complain(t, "a role name cannot be empty");
  return name;
}

Result<std::vector<std::string>> ParseRoleList(TokenStream& ts) { return ParseCommaList(ts, ParseRoleName); }

Result<int> ParseSmallInt(TokenStream& ts, std::string_view what) {
  ASSIGN_OR_RETURN(int64_t v, ts.ExpectInteger(what));
  if (v > 1'000'000) return ts.Complain(ts.Peek(), std::string(what) + " is at most 1000000");
  return static_cast<int>(v);
}

// IDENTIFIED BY 'pw' | IDENTIFIED BY PASSWORD 'hash' | IDENTIFIED WITH plugin [BY 'pw' | AS 'hash']
Status ParseIdentified(TokenStream& ts, AccountSpec& spec) {
  if (ts.AcceptWord("BY")) {
    if (ts.AcceptWord("PASSWORD")) {
      ASSIGN_OR_RETURN(std::string hash, ts.ExpectString("a password hash"));
      spec.hashed = std::move(hash);
      spec.plugin = "mysql_native_password";
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(std::string pw, ts.ExpectString("a password in quotes"));
    spec.password = std::move(pw);
    return Status::Ok();
  }
  RETURN_IF_ERROR(ts.ExpectWord("WITH"));
  const Token& plugin = ts.Peek();
  std::string name = AsciiLower(plugin.text);
  if (name != "mysql_native_password" && name != "caching_sha2_password")
    return ts.Complain(plugin, "unknown authentication plugin; Sluice offers mysql_native_password and "
                               "caching_sha2_password");
  ts.Next();
  spec.plugin = name;
  if (ts.AcceptWord("BY")) {
    ASSIGN_OR_RETURN(std::string pw, ts.ExpectString("a password in quotes"));
    spec.password = std::move(pw);
  } else if (ts.AcceptWord("AS")) {
    ASSIGN_OR_RETURN(std::string hash, ts.ExpectString("a password hash in quotes"));
    spec.hashed = std::move(hash);
  }
  return Status::Ok();
}

Result<std::vector<std::string>> ParseDefaultRoles(TokenStream& ts) {
  if (ts.AcceptWord("ALL")) return std::vector<std::string>{"ALL"};
  if (ts.AcceptWord("NONE")) return std::vector<std::string>{"NONE"};
  return ParseRoleList(ts);
}

// Everything after the user name in CREATE / ALTER USER, in any order.
Status ParseAccountOptions(TokenStream& ts, AccountSpec& spec) {
  while (!ts.AtEnd()) {
    const Token& t = ts.Peek();
    if (ts.AcceptWord("IDENTIFIED")) {
      RETURN_IF_ERROR(ParseIdentified(ts, spec));
    } else if (ts.AcceptWords({"DEFAULT", "ROLE"})) {
      ASSIGN_OR_RETURN(spec.default_roles, ParseDefaultRoles(ts));
    } else if (ts.AcceptWord("REQUIRE")) {
      if (ts.AcceptWord("SSL") || ts.AcceptWord("X509")) spec.require_ssl = true;
      else if (ts.AcceptWord("NONE")) spec.require_ssl = false;
      else return ts.ErrorExpecting({"SSL", "NONE"});
    } else if (ts.AcceptWord("WITH")) {
      if (!ts.AcceptWord("MAX_USER_CONNECTIONS")) return ts.Error("MAX_USER_CONNECTIONS");
      ASSIGN_OR_RETURN(spec.max_user_connections, ParseSmallInt(ts, "a number of connections"));
    } else if (ts.AcceptWord("FAILED_LOGIN_ATTEMPTS")) {
      ASSIGN_OR_RETURN(spec.failed_login_attempts, ParseSmallInt(ts, "a number of attempts (0: never lock)"));
    } else if (ts.AcceptWord("PASSWORD_LOCK_TIME")) {
      if (ts.AcceptWord("UNBOUNDED")) {
        spec.password_lock_days = -1;
      } else {
        ASSIGN_OR_RETURN(spec.password_lock_days, ParseSmallInt(ts, "a number of days or UNBOUNDED"));
      }
    } else if (ts.AcceptWord("ACCOUNT")) {
      if (ts.AcceptWord("LOCK")) spec.account_locked = true;
      else if (ts.AcceptWord("UNLOCK")) spec.account_locked = false;
      else return ts.ErrorExpecting({"LOCK", "UNLOCK"});
    } else {
      return ts.ErrorAt(t, "IDENTIFIED, DEFAULT ROLE, REQUIRE, WITH MAX_USER_CONNECTIONS, FAILED_LOGIN_ATTEMPTS, "
                           "PASSWORD_LOCK_TIME, ACCOUNT LOCK|UNLOCK or end of statement");
    }
  }
  return Status::Ok();
}

Result<Statement> ParseCreateUser(TokenStream& ts) {
  CreateUser st;
  st.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
  ASSIGN_OR_RETURN(st.who, ParseUserName(ts));
  RETURN_IF_ERROR(ParseAccountOptions(ts, st.spec));
  return Wrap(std::move(st));
}

Result<Statement> ParseAlterUser(TokenStream& ts) {
  AlterUser st;
  st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(st.who, ParseUserName(ts));
  RETURN_IF_ERROR(ParseAccountOptions(ts, st.spec));
  return Wrap(std::move(st));
}

Result<Statement> ParseDropUser(TokenStream& ts) {
  DropUser st;
  st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
  ASSIGN_OR_RETURN(st.who, ParseUserList(ts));
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Wrap(std::move(st));
}

// Privileges up to ON: words joined, comma separated. ALL [PRIVILEGES] becomes "ALL".
Result<std::vector<std::string>> ParsePrivilegeList(TokenStream& ts) {
  std::vector<std::string> out;
  for (;;) {
    std::string priv;
    while (ts.Peek().kind == TokenKind::kWord && !ts.PeekWord("ON")) {
      priv += (priv.empty() ? "" : " ") + AsciiUpper(ts.Peek().raw);
      ts.Next();
    }
    if (priv.empty()) return ts.Error("a privilege such as SELECT, INSERT or CREATE TABLE");
    if (priv == "ALL PRIVILEGES") priv = "ALL";
    out.push_back(std::move(priv));
    if (!ts.AcceptSymbol(",")) break;
  }
  return out;
}

// *, *.*, db.*, db.t or t (the MySQL forms), and catalog.db.* / catalog.db.t.
Result<GrantObject> ParseMysqlObject(TokenStream& ts) {
  GrantObject o;
  if (ts.AcceptSymbol("*")) {
    if (ts.AcceptSymbol(".")) {
      RETURN_IF_ERROR(ts.ExpectSymbol("*"));
      o.kind = GrantObjectKind::kMysqlDbStar;
      o.db = "*";
      return o;
    }
    o.kind = GrantObjectKind::kMysqlDbStar;  // * alone: the current database
    return o;
  }
  ASSIGN_OR_RETURN(std::string first, ts.ExpectIdentifier("a database or table name"));
  if (ts.AcceptSymbol(".")) {
    if (ts.AcceptSymbol("*")) {
      o.kind = GrantObjectKind::kMysqlDbStar;
      o.db = first;
      return o;
    }
    ASSIGN_OR_RETURN(o.name, ts.ExpectIdentifier("a table name"));
    o.kind = GrantObjectKind::kTable;
    o.db = first;
    // catalog.db.* and catalog.db.t: an external catalog's database, kept as "catalog.db" (as ParseNamedObject).
    if (ts.AcceptSymbol(".")) {
      o.db = AsciiLower(first) == "default_catalog" ? o.name : first + "." + o.name;
      if (ts.AcceptSymbol("*")) {
        o.kind = GrantObjectKind::kMysqlDbStar;
        o.name.clear();
        return o;
      }
      ASSIGN_OR_RETURN(o.name, ts.ExpectIdentifier("a table name"));
    }
    return o;
  }
  o.kind = GrantObjectKind::kTable;
  o.name = first;
  return o;
}

// ALL <plural> IN DATABASE db | ALL <plural> IN ALL DATABASES
Result<GrantObject> ParseAllIn(TokenStream& ts, GrantObjectKind kind) {
  GrantObject o{kind, "*", "*"};
  RETURN_IF_ERROR(ts.ExpectWord("IN"));
  if (ts.AcceptWords({"ALL", "DATABASES"})) return o;
  RETURN_IF_ERROR(ts.ExpectWord("DATABASE"));
  ASSIGN_OR_RETURN(QualifiedName db, ts.ExpectQualifiedName("a database name"));
  o.db = db.db.empty() ? db.name : db.db + "." + db.name;  // catalog.db: an external catalog's database
  return o;
}

Result<GrantObject> ParseNamedObject(TokenStream& ts, GrantObjectKind kind) {
  GrantObject o{kind, "", ""};
  // catalog.db.t: a table of an external catalog, whose privileges are kept under the database "catalog.db".
  ASSIGN_OR_RETURN(QualifiedName n, ts.ExpectTableName("a name"));
  o.db = n.catalog.empty() || AsciiLower(n.catalog) == "default_catalog" ? n.db : n.catalog + "." + n.db;
  o.name = n.name;
  return o;
}

Result<GrantObject> ParseGrantObject(TokenStream& ts) {
  if (ts.AcceptWord("SYSTEM")) return GrantObject{GrantObjectKind::kSystem, "", ""};
  if (ts.AcceptWord("CATALOG")) {
    ASSIGN_OR_RETURN(std::string name, ts.ExpectIdentifier("a catalog name"));
    if (AsciiLower(name) != "default_catalog")
      return ts.Complain(ts.Peek(), "the only catalog is default_catalog");
    return GrantObject{GrantObjectKind::kCatalog, "", ""};
  }
  if (ts.AcceptWord("DATABASE")) {
    ASSIGN_OR_RETURN(QualifiedName db, ts.ExpectQualifiedName("a database name"));
    return GrantObject{GrantObjectKind::kDatabase, db.db.empty() ? db.name : db.db + "." + db.name, ""};
  }
  if (ts.AcceptWord("TABLE")) return ParseNamedObject(ts, GrantObjectKind::kTable);
  if (ts.AcceptWord("VIEW")) return ParseNamedObject(ts, GrantObjectKind::kTable);
  if (ts.AcceptWord("PIPE")) return ParseNamedObject(ts, GrantObjectKind::kPipe);
  if (ts.AcceptWords({"STORAGE", "VOLUME"})) {
    ASSIGN_OR_RETURN(std::string name, ts.ExpectIdentifier("a storage volume name"));
    return GrantObject{GrantObjectKind::kStorageVolume, "", name};
  }
  if (ts.AcceptWords({"STORAGE", "CONNECTION"})) {
    ASSIGN_OR_RETURN(std::string name, ts.ExpectIdentifier("a storage connection name"));
    return GrantObject{GrantObjectKind::kStorageConnection, "", name};
  }
  if (ts.PeekWord("ALL")) {
    ts.Next();
    if (ts.AcceptWord("DATABASES")) return GrantObject{GrantObjectKind::kDatabase, "*", ""};
    if (ts.AcceptWord("TABLES") || ts.AcceptWord("VIEWS")) return ParseAllIn(ts, GrantObjectKind::kTable);
    if (ts.AcceptWord("PIPES")) return ParseAllIn(ts, GrantObjectKind::kPipe);
    if (ts.AcceptWords({"STORAGE", "VOLUMES"})) return GrantObject{GrantObjectKind::kStorageVolume, "", "*"};
    if (ts.AcceptWords({"STORAGE", "CONNECTIONS"})) return GrantObject{GrantObjectKind::kStorageConnection, "", "*"};
    return ts.ErrorExpecting({"DATABASES", "TABLES", "PIPES", "STORAGE VOLUMES", "STORAGE CONNECTIONS"});
  }
  return ParseMysqlObject(ts);
}

Result<GranteeName> ParseGrantee(TokenStream& ts) {
  GranteeName g;
  if (ts.AcceptWord("ROLE")) {
    g.is_role = true;
    ASSIGN_OR_RETURN(g.role, ParseRoleName(ts));
    return g;
  }
  (void)ts.AcceptWord("USER");
  ASSIGN_OR_RETURN(g.user, ParseUserName(ts));
  return g;
}

Result<std::vector<GranteeName>> ParseGranteeList(TokenStream& ts) { return ParseCommaList(ts, ParseGrantee); }

// Whether the GRANT / REVOKE names privileges (an ON comes before TO / FROM) or roles.
bool NamesPrivileges(const TokenStream& ts) {
  for (size_t i = 1;; i++) {
    const Token& t = ts.Peek(i);
    if (t.kind == TokenKind::kEnd || t.IsWord("TO") || t.IsWord("FROM")) return false;
    if (t.IsWord("ON")) return true;
  }
}

Result<Statement> ParseGrantOrRevoke(TokenStream& ts) {
  bool revoke = ts.Peek().IsWord("REVOKE");
  bool privileges = NamesPrivileges(ts);
  ts.Next();  // GRANT | REVOKE
  const char* direction = revoke ? "FROM" : "TO";
  if (!privileges) {
    GrantRoles st;
    st.revoke = revoke;
    ASSIGN_OR_RETURN(st.roles, ParseRoleList(ts));
    RETURN_IF_ERROR(ts.ExpectWord(direction));
    ASSIGN_OR_RETURN(st.grantees, ParseGranteeList(ts));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Wrap(std::move(st));
  }
  GrantPrivileges st;
  st.revoke = revoke;
  ASSIGN_OR_RETURN(st.privileges, ParsePrivilegeList(ts));
  RETURN_IF_ERROR(ts.ExpectWord("ON"));
  ASSIGN_OR_RETURN(st.object, ParseGrantObject(ts));
  RETURN_IF_ERROR(ts.ExpectWord(direction));
  ASSIGN_OR_RETURN(st.grantees, ParseGranteeList(ts));
  if (!revoke && ts.AcceptWords({"WITH", "GRANT", "OPTION"})) st.with_grant_option = true;
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Wrap(std::move(st));
}

Result<std::string> ParsePasswordValue(TokenStream& ts) {
  if (ts.AcceptWord("PASSWORD")) {
    RETURN_IF_ERROR(ts.ExpectSymbol("("));
    ASSIGN_OR_RETURN(std::string pw, ts.ExpectString("a password in quotes"));
    RETURN_IF_ERROR(ts.ExpectSymbol(")"));
    return pw;
  }
  return ts.ExpectString("a password in quotes");
}

Result<RoleChoice> ParseRoleChoice(TokenStream& ts, std::vector<std::string>& roles, bool allow_default) {
  if (ts.AcceptWord("ALL")) return RoleChoice::kAll;
  if (ts.AcceptWord("NONE")) return RoleChoice::kNone;
  if (allow_default && ts.AcceptWord("DEFAULT")) return RoleChoice::kDefault;
  ASSIGN_OR_RETURN(roles, ParseRoleList(ts));
  return RoleChoice::kNamed;
}

}  // namespace

bool IsAccountStatement(const TokenStream& ts) {
  const Token& a = ts.Peek();
  const Token& b = ts.Peek(1);
  if (a.IsWord("GRANT") || a.IsWord("REVOKE")) return true;
  if ((a.IsWord("CREATE") || a.IsWord("DROP")) && (b.IsWord("USER") || b.IsWord("ROLE"))) return true;
  if (a.IsWord("ALTER") && b.IsWord("USER")) return true;
  if (a.IsWord("SET") && (b.IsWord("PASSWORD") || b.IsWord("ROLE") || (b.IsWord("DEFAULT") && ts.PeekWord("ROLE", 2))))
    return true;
  if (a.IsWord("SHOW") && (b.IsWord("USERS") || b.IsWord("ROLES") || b.IsWord("GRANTS"))) return true;
  return false;
}

Result<Statement> ParseAccountStatement(TokenStream& ts) {
  if (ts.PeekWord("GRANT") || ts.PeekWord("REVOKE")) return ParseGrantOrRevoke(ts);
  const Token& first = ts.Next();
  if (first.IsWord("CREATE")) {
    if (ts.AcceptWord("USER")) return ParseCreateUser(ts);
    ts.Next();  // ROLE
    CreateRole st;
    st.if_not_exists = ts.AcceptWords({"IF", "NOT", "EXISTS"});
    ASSIGN_OR_RETURN(st.names, ParseRoleList(ts));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Wrap(std::move(st));
  }
  if (first.IsWord("DROP")) {
    if (ts.AcceptWord("USER")) return ParseDropUser(ts);
    ts.Next();  // ROLE
    DropRole st;
    st.if_exists = ts.AcceptWords({"IF", "EXISTS"});
    ASSIGN_OR_RETURN(st.names, ParseRoleList(ts));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Wrap(std::move(st));
  }
  if (first.IsWord("ALTER")) {
    ts.Next();  // USER
    return ParseAlterUser(ts);
  }
  if (first.IsWord("SET")) {
    if (ts.AcceptWord("PASSWORD")) {
      SetPassword st;
      if (ts.AcceptWord("FOR")) {
        ASSIGN_OR_RETURN(st.who, ParseUserName(ts));
      }
      if (!ts.AcceptSymbol("=")) RETURN_IF_ERROR(ts.ExpectSymbol(":="));
      ASSIGN_OR_RETURN(st.password, ParsePasswordValue(ts));
      RETURN_IF_ERROR(ts.ExpectEnd());
      return Wrap(std::move(st));
    }
    if (ts.AcceptWord("ROLE")) {
      SetRole st;
      ASSIGN_OR_RETURN(st.choice, ParseRoleChoice(ts, st.roles, true));
      RETURN_IF_ERROR(ts.ExpectEnd());
      return Wrap(std::move(st));
    }
    ts.Next();  // DEFAULT
    ts.Next();  // ROLE
    SetDefaultRole st;
    ASSIGN_OR_RETURN(st.choice, ParseRoleChoice(ts, st.roles, false));
    RETURN_IF_ERROR(ts.ExpectWord("TO"));
    ASSIGN_OR_RETURN(st.users, ParseUserList(ts));
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Wrap(std::move(st));
  }
  // SHOW
  if (ts.AcceptWord("USERS")) {
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Wrap(ShowUsers{});
  }
  if (ts.AcceptWord("ROLES")) {
    RETURN_IF_ERROR(ts.ExpectEnd());
    return Wrap(ShowRoles{});
  }
  ts.Next();  // GRANTS
  ShowGrants st;
  if (ts.AcceptWord("FOR")) {
    if (ts.AcceptWords({"CURRENT_USER"})) {
      if (ts.AcceptSymbol("(")) RETURN_IF_ERROR(ts.ExpectSymbol(")"));
    } else {
      ASSIGN_OR_RETURN(GranteeName g, ParseGrantee(ts));
      st.grantee = std::move(g);
    }
  }
  RETURN_IF_ERROR(ts.ExpectEnd());
  return Wrap(std::move(st));
}

}  // namespace sluice::sql
