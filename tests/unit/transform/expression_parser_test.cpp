#include <gtest/gtest.h>

#include <random>
#include <string>

#include "transform/expression.h"

namespace sluice::transform {
namespace {

std::string Parsed(const std::string& text) {
  auto e = ParseExpression(text);
  if (!e.ok()) return "ERROR: " + e.status().message();
  return DebugString(**e);
}

std::string ErrorOf(const std::string& text) {
  auto e = ParseExpression(text);
  if (e.ok()) return "parsed as " + DebugString(**e);
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  return e.status().message();
}

TEST(ExpressionParserTest, Literals) {
  EXPECT_EQ(Parsed("42"), "42");
  EXPECT_EQ(Parsed("1.5"), "1.5");
  EXPECT_EQ(Parsed(".5"), "0.5");
  EXPECT_EQ(Parsed("1e3"), "1e3");
  EXPECT_EQ(Parsed("0x1F"), "31");
  EXPECT_EQ(Parsed("0b101"), "5");
  EXPECT_EQ(Parsed("'it''s'"), "'it's'");
  EXPECT_EQ(Parsed("\"double\""), "'double'");  // a string in MySQL
  EXPECT_EQ(Parsed("TRUE"), "TRUE");
  EXPECT_EQ(Parsed("false"), "FALSE");
  EXPECT_EQ(Parsed("null"), "NULL");
  auto e = ParseExpression("1.5e-3");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->literal, LiteralKind::kFloat);
  e = ParseExpression("2.50");
  EXPECT_EQ((*e)->literal, LiteralKind::kDecimal);
  e = ParseExpression("'x'");
  EXPECT_EQ((*e)->literal, LiteralKind::kString);
}

TEST(ExpressionParserTest, ColumnsAndCalls) {
  EXPECT_EQ(Parsed("pay_time"), "`pay_time`");
  EXPECT_EQ(Parsed("`order id`"), "`order id`");
  EXPECT_EQ(Parsed("FROM_UNIXTIME(pay_time, '%Y%m%d')"), "from_unixtime(`pay_time`, '%Y%m%d')");
  EXPECT_EQ(Parsed("now()"), "now()");
  EXPECT_EQ(Parsed("current_timestamp"), "current_timestamp()");
  EXPECT_EQ(Parsed("CURRENT_DATE()"), "current_date()");
  EXPECT_EQ(Parsed("if(a > 1, 'x', 'y')"), "if((> `a` 1), 'x', 'y')");
  EXPECT_EQ(Parsed("mod(a, 3)"), "mod(`a`, 3)");
  EXPECT_EQ(Parsed("left(s, 2)"), "left(`s`, 2)");
}

TEST(ExpressionParserTest, LambdasAndArrays) {
  EXPECT_EQ(Parsed("array_filter(x -> x > 0, arr)"), "array_filter((LAMBDA (x) (> `x` 0)), `arr`)");
  EXPECT_EQ(Parsed("array_map((x, y) -> x + y, a, b)"), "array_map((LAMBDA (x y) (+ `x` `y`)), `a`, `b`)");
  EXPECT_EQ(Parsed("array_map(a, x -> x * 2)"), "array_map(`a`, (LAMBDA (x) (* `x` 2)))");
  EXPECT_EQ(Parsed("f(() -> 5)"), "f((LAMBDA () 5))");
  EXPECT_EQ(Parsed("f((x) -> x)"), "f((LAMBDA (x) `x`))");
  EXPECT_EQ(Parsed("f((a + b), (x))"), "f((+ `a` `b`), `x`)");  // parentheses without -> stay expressions
  EXPECT_NE(ErrorOf("f(x -> y -> 1)").find("expected ')'"), std::string::npos) << "a body is no lambda";
  EXPECT_EQ(Parsed("[1, 'a', b]"), "[1, 'a', `b`]");
  EXPECT_EQ(Parsed("[]"), "[]");
  EXPECT_EQ(Parsed("cast(a as array<array<varchar(10)>>)"), "(CAST `a` AS ARRAY<ARRAY<VARCHAR(10)>>)");
  EXPECT_EQ(Parsed("[1, 2][0]"), "([] [1, 2] 0)");
  EXPECT_NE(ErrorOf("f((x, x) -> 1)").find("the lambda parameter 'x' is declared twice"), std::string::npos);
  EXPECT_NE(ErrorOf("x -> x + 1").find("a lambda (x -> expr) can only be an argument"), std::string::npos);
  EXPECT_NE(ErrorOf("[1, 2").find("to close the array"), std::string::npos);
}

TEST(ExpressionParserTest, ArithmeticPrecedence) {
  EXPECT_EQ(Parsed("a + b * c"), "(+ `a` (* `b` `c`))");
  EXPECT_EQ(Parsed("(a + b) * c"), "(* (+ `a` `b`) `c`)");
  EXPECT_EQ(Parsed("a - b - c"), "(- (- `a` `b`) `c`)");
  EXPECT_EQ(Parsed("a / b % c DIV d"), "(DIV (% (/ `a` `b`) `c`) `d`)");
  EXPECT_EQ(Parsed("a MOD 2"), "(% `a` 2)");
  EXPECT_EQ(Parsed("-a * -2"), "(* (- `a`) (- 2))");
  EXPECT_EQ(Parsed("+a"), "(+ `a`)");
  EXPECT_EQ(Parsed("- - 1"), "(- (- 1))");
}

TEST(ExpressionParserTest, LogicalPrecedence) {
  EXPECT_EQ(Parsed("a OR b AND c"), "(OR `a` (AND `b` `c`))");
  EXPECT_EQ(Parsed("a || b && c"), "(OR `a` (AND `b` `c`))");  // MySQL: || is OR
  EXPECT_EQ(Parsed("a XOR b OR c"), "(OR (XOR `a` `b`) `c`)");
  EXPECT_EQ(Parsed("a AND b XOR c"), "(XOR (AND `a` `b`) `c`)");
  EXPECT_EQ(Parsed("NOT a = 1"), "(NOT (= `a` 1))");
  EXPECT_EQ(Parsed("!a = 1"), "(= (NOT `a`) 1)");
  EXPECT_EQ(Parsed("NOT NOT a"), "(NOT (NOT `a`))");
  // AND/OR chains stay flat.
  EXPECT_EQ(Parsed("a AND b AND c OR d OR e"), "(OR (AND `a` `b` `c`) `d` `e`)");
}

TEST(ExpressionParserTest, Comparisons) {
  EXPECT_EQ(Parsed("a = 1"), "(= `a` 1)");
  EXPECT_EQ(Parsed("a <=> NULL"), "(<=> `a` NULL)");
  EXPECT_EQ(Parsed("a != 1"), "(<> `a` 1)");
  EXPECT_EQ(Parsed("a <> 1"), "(<> `a` 1)");
  EXPECT_EQ(Parsed("a < 1 + 2"), "(< `a` (+ 1 2))");
  EXPECT_EQ(Parsed("a <= 1"), "(<= `a` 1)");
  EXPECT_EQ(Parsed("a > 1"), "(> `a` 1)");
  EXPECT_EQ(Parsed("a >= 1"), "(>= `a` 1)");
}

TEST(ExpressionParserTest, Predicates) {
  EXPECT_EQ(Parsed("a IS NULL"), "(IS NULL `a`)");
  EXPECT_EQ(Parsed("a is not null"), "(IS NOT NULL `a`)");
  EXPECT_EQ(Parsed("a IN (1, 2, 'x')"), "(IN `a` 1 2 'x')");
  EXPECT_EQ(Parsed("a NOT IN (1)"), "(NOT IN `a` 1)");
  EXPECT_EQ(Parsed("a BETWEEN 1 AND 2 + 3"), "(BETWEEN `a` 1 (+ 2 3))");
  EXPECT_EQ(Parsed("a NOT BETWEEN 1 AND 2 AND b"), "(AND (NOT BETWEEN `a` 1 2) `b`)");
  EXPECT_EQ(Parsed("a LIKE 'x%'"), "(LIKE `a` 'x%')");
  EXPECT_EQ(Parsed("a NOT LIKE 'x|%' ESCAPE '|'"), "(NOT LIKE `a` 'x|%' '|')");
}

TEST(ExpressionParserTest, CaseCastInterval) {
  EXPECT_EQ(Parsed("CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END"),
            "(CASE (WHEN (> `a` 1) 'big') (WHEN (> `a` 0) 'small') (ELSE 'none'))");
  EXPECT_EQ(Parsed("case g when 'm' then 1 end"), "(CASE `g` (WHEN 'm' 1))");
  EXPECT_EQ(Parsed("CAST(a AS decimal(10, 2))"), "(CAST `a` AS DECIMAL(10,2))");
  EXPECT_EQ(Parsed("cast(a as varchar(20))"), "(CAST `a` AS VARCHAR(20))");
  EXPECT_EQ(Parsed("CAST(a AS SIGNED INTEGER)"), "(CAST `a` AS SIGNED)");
  EXPECT_EQ(Parsed("CAST(a AS datetime)"), "(CAST `a` AS DATETIME)");
  EXPECT_EQ(Parsed("CONVERT(a, int)"), "(CAST `a` AS INT)");
  EXPECT_EQ(Parsed("TRY_CAST(a AS bigint)"), "(CAST `a` AS BIGINT)");  // a failed CAST is NULL already
  EXPECT_EQ(Parsed("try_cast(value::STRING as decimal(10, 2)) + 1"), "(+ (CAST (CAST `value` AS STRING) AS DECIMAL(10,2)) 1)");
  EXPECT_EQ(Parsed("date_add(d, INTERVAL 1 DAY)"), "date_add(`d`, (INTERVAL 1 DAY))");
  EXPECT_EQ(Parsed("d - interval n hours"), "(- `d` (INTERVAL `n` HOUR))");
}

TEST(ExpressionParserTest, PositionsOfNodes) {
  auto e = ParseExpression("a +\n  foo(1)");
  ASSERT_TRUE(e.ok());
  const Expr& call = *(*e)->children[1];
  EXPECT_EQ(call.line, 2u);
  EXPECT_EQ(call.column, 3u);
  EXPECT_EQ(PositionOf(call), "line 2, column 3");
  EXPECT_EQ(PositionOf(**e), "column 1");
}

TEST(ExpressionParserTest, SyntaxErrorsNamePositionAndExpectation) {
  EXPECT_EQ(ErrorOf("a +"), "syntax error at column 4: expected an expression, found the end of the expression");
  EXPECT_EQ(ErrorOf("(a + 1"),
            "syntax error at column 7: expected ')' to close the '(' at column 1, found the end of the expression");
  EXPECT_EQ(ErrorOf("a b"), "syntax error at column 3: expected an operator or the end of the expression, found 'b'");
  EXPECT_EQ(ErrorOf("f(1,)"), "syntax error at column 5: expected an expression, found ')'");
  EXPECT_EQ(ErrorOf("f(1 2)"),
            "syntax error at column 5: expected ')' or ',' in the arguments of f(), found '2'");
  EXPECT_EQ(ErrorOf(""), "syntax error at column 1: the expression is empty");
  EXPECT_EQ(ErrorOf("'abc"), "syntax error at column 1: unterminated string: missing closing \"'\"");
  EXPECT_EQ(ErrorOf("CASE a END"), "syntax error at column 8: expected WHEN in CASE, found 'END'");
  EXPECT_EQ(ErrorOf("CASE WHEN a THEN 1"),
            "syntax error at column 19: expected END to close CASE (or another WHEN/ELSE), found the end of the "
            "expression");
  EXPECT_EQ(ErrorOf("CAST(a int)"), "syntax error at column 8: expected AS in CAST(expr AS type), found 'int'");
  EXPECT_EQ(ErrorOf("TRY_CAST(a int)"),
            "syntax error at column 12: expected AS in TRY_CAST(expr AS type), found 'int'");
  EXPECT_EQ(ErrorOf("CAST(a AS 1)"), "syntax error at column 11: expected a type name, found '1'");
  EXPECT_EQ(ErrorOf("a BETWEEN 1 OR 2"),
            "syntax error at column 13: expected AND in BETWEEN ... AND ..., found 'OR'");
  EXPECT_EQ(ErrorOf("a IS 1"), "syntax error at column 6: expected NULL after IS, found '1'");
  EXPECT_EQ(ErrorOf("a IN 1"), "syntax error at column 6: expected '(' after IN, found '1'");
  EXPECT_EQ(ErrorOf("a = AND"), "syntax error at column 5: expected an expression, found 'AND'");
  EXPECT_EQ(ErrorOf("t.col"), "syntax error at column 2: qualified names (table.column) are not supported here");
  EXPECT_EQ(ErrorOf("count(*)"),
            "syntax error at column 7: '*' arguments (aggregates) are not supported in load expressions");
  EXPECT_EQ(ErrorOf("a IN (SELECT 1)"), "syntax error at column 7: subqueries are not supported in load expressions");
  EXPECT_EQ(ErrorOf("INTERVAL 1 FORTNIGHT"),
            "syntax error at column 12: expected an interval unit (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, "
            "SECOND, MILLISECOND, MICROSECOND), found 'FORTNIGHT'");
  EXPECT_EQ(ErrorOf("@x"), "syntax error at column 1: expected an expression, found '@x'");
  EXPECT_EQ(ErrorOf("a\n  + )"), "syntax error at line 2, column 5: expected an expression, found ')'");
}

TEST(ExpressionParserTest, DepthIsLimited) {
  std::string deep_parens(kMaxExpressionDepth + 5, '(');
  deep_parens += "1" + std::string(kMaxExpressionDepth + 5, ')');
  EXPECT_NE(ErrorOf(deep_parens).find("nested too deeply"), std::string::npos);

  std::string deep_calls;
  for (int i = 0; i < 1000; i++) deep_calls += "abs(";
  deep_calls += "1" + std::string(1000, ')');
  EXPECT_NE(ErrorOf(deep_calls).find("nested too deeply"), std::string::npos);

  std::string long_chain = "1";
  for (int i = 0; i < 5000; i++) long_chain += " + 1";
  EXPECT_NE(ErrorOf(long_chain).find("nested too deeply"), std::string::npos);

  std::string unary;
  for (int i = 0; i < 100000; i++) unary += "- ";  // "--" would start a comment
  EXPECT_NE(ErrorOf(unary + "1").find("nested too deeply"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 100000; i++) nots += "NOT ";
  EXPECT_NE(ErrorOf(nots + "a").find("nested too deeply"), std::string::npos);

  // Wide is fine: long AND/OR chains and IN lists stay shallow.
  std::string wide = "a = 0";
  for (int i = 1; i < 2000; i++) wide += " OR a = " + std::to_string(i);
  EXPECT_TRUE(ParseExpression(wide).ok());
  std::string in_list = "a IN (0";
  for (int i = 1; i < 5000; i++) in_list += ", " + std::to_string(i);
  EXPECT_TRUE(ParseExpression(in_list + ")").ok());

  std::string within(kMaxExpressionDepth - 2, '(');
  EXPECT_TRUE(ParseExpression(within + "1" + std::string(kMaxExpressionDepth - 2, ')')).ok());
}

// Random token soup never crashes the parser and always ends in a value or an InvalidArgument.
TEST(ExpressionParserTest, RandomInputNeverCrashes) {
  const std::vector<std::string> pieces = {"a", "1", "'s'", "(", ")", ",", "+", "-", "*", "/", "%", "=", "<", ">=",
                                           "<=>", "AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "LIKE", "CASE",
                                           "WHEN", "THEN", "ELSE", "END", "CAST", "AS", "int", "INTERVAL", "DAY",
                                           "f", "`q`", "\"d\"", "DIV", "XOR", "!", "||", "&&", "ESCAPE", "'"};
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; i++) {
    std::string text;
    int n = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < n; k++) text += pieces[rng() % pieces.size()] + " ";
    auto e = ParseExpression(text);
    if (!e.ok()) {
      EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument) << text;
    } else {
      EXPECT_FALSE(DebugString(**e).empty());
    }
  }
}

}  // namespace
}  // namespace sluice::transform

namespace sluice::transform {
namespace {

TEST(ExpressionParserTest, LakehousePostfixForms) {
  EXPECT_EQ(Parsed("x::STRING"), "(CAST `x` AS STRING)");
  EXPECT_EQ(Parsed("x::decimal(10,2)"), "(CAST `x` AS DECIMAL(10,2))");
  EXPECT_EQ(Parsed("j['a']"), "([] `j` 'a')");
  EXPECT_EQ(Parsed("PARSE_JSON(value::STRING)['a']['b']::INT"),
            "(CAST ([] ([] parse_json((CAST `value` AS STRING)) 'a') 'b') AS INT)");
  EXPECT_EQ(Parsed("-a::int"), "(- (CAST `a` AS INT))");
  EXPECT_EQ(Parsed("a::int + b[0] * 2"), "(+ (CAST `a` AS INT) (* ([] `b` 0) 2))");
  EXPECT_NE(ErrorOf("j['a'").find("']'"), std::string::npos);
  EXPECT_NE(ErrorOf("x::").find("type name"), std::string::npos);
  std::string deep = "j";
  for (int i = 0; i < 300; i++) deep += "['k']";
  EXPECT_NE(ErrorOf(deep).find("nest"), std::string::npos) << ErrorOf(deep);
}

}  // namespace
}  // namespace sluice::transform
