// SET with expressions and user variables, as drivers send them on connect:
// `SET sql_mode = concat(@@sql_mode, ',STRICT_TRANS_TABLES')` (MariaDB Connector/J), `SET @a = 1`, `SELECT @a`.
// An expression is evaluated as `SELECT <expression>` with every check a client's SELECT gets, so SET cannot
// reach anything a SELECT could not.
#include "common/overloaded.h"
#include "executor/sql_session.h"
#include "sql/parser.h"

namespace sluice {

namespace {

bool IsNumeric(ValueType t) {
  switch (t) {
    case ValueType::kTinyInt: case ValueType::kSmallInt: case ValueType::kInteger: case ValueType::kBigInt:
    case ValueType::kHugeInt: case ValueType::kUTinyInt: case ValueType::kUSmallInt: case ValueType::kUInteger:
    case ValueType::kUBigInt: case ValueType::kFloat: case ValueType::kDouble: case ValueType::kDecimal:
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<SqlSession::EvaluatedValue> SqlSession::EvaluateExpression(const std::string& expression) {
  const std::string select = "SELECT " + expression;
  ASSIGN_OR_RETURN(sql::StatementScan scan, sql::ScanStatement(select));
  ASSIGN_OR_RETURN(NameCheck names, guard_.CheckNames(scan));
  ASSIGN_OR_RETURN(sql::Statement stmt, sql::ParseStatement(select, Context()));
  const auto* pass = std::get_if<sql::PassThrough>(&stmt);
  if (pass == nullptr)
    return Status::InvalidArgument("SET takes a value or an expression, not '" + expression + "'");
  RETURN_IF_ERROR(Authorize(stmt, scan, names));
  ASSIGN_OR_RETURN(StatementResult r, con_->Query(pass->sql));
  if (!r.result_set || r.result_set->columns.size() != 1 || r.result_set->rows.size() != 1)
    return Status::InvalidArgument("the value of SET must be one value: '" + expression + "' is not");
  EvaluatedValue v;
  const Row& row = r.result_set->rows[0];
  if (row.empty() || !row[0]) {
    v.literal = "NULL";
    return v;
  }
  v.text = *row[0];
  const ValueType type = r.result_set->columns[0].type;
  if (type == ValueType::kBoolean)
    v.literal = (*v.text == "true" || *v.text == "1") ? "TRUE" : "FALSE";
  else if (IsNumeric(type))
    v.literal = *v.text;
  else
    v.literal = sql::QuoteLiteral(*v.text);
  return v;
}

Status SqlSession::SetUserVariable(const sql::SetVariables::Assignment& a) {
  if (a.expression) {
    ASSIGN_OR_RETURN(EvaluatedValue v, EvaluateExpression(a.value));
    user_variables_[a.name] = v.literal;
    return Status::Ok();
  }
  // A literal: quoted strings stay strings, numbers numbers, NULL/TRUE/FALSE themselves (MySQL's typing).
  const std::string& v = a.value;
  bool number = !a.string_literal && !v.empty() && v.find_first_not_of("0123456789.-+eE") == std::string::npos &&
                v.find_first_of("0123456789") != std::string::npos;
  if (a.string_literal) {
    user_variables_[a.name] = sql::QuoteLiteral(v);
  } else if (number) {
    user_variables_[a.name] = v;
  } else if (v == "NULL" || v == "TRUE" || v == "FALSE") {
    user_variables_[a.name] = v;
  } else if (v == "ON" || v == "OFF") {
    user_variables_[a.name] = v == "ON" ? "1" : "0";
  } else {
    user_variables_[a.name] = sql::QuoteLiteral(v);
  }
  return Status::Ok();
}

}  // namespace sluice
