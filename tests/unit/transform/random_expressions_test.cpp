// Random expressions over columns of every kind: whatever Compile() accepts, DuckDB must accept and run over a
// batch without failing it (bad values become NULL or error rows, never a failed query).
#include <random>

#include "transform/function_map.h"
#include "transform_harness.h"

namespace sluice::transform::testing {
namespace {

const std::vector<std::string> kSources = {"txt", "num_txt", "date_txt", "json_txt", "i", "d", "dec", "b",
                                           "dt", "ts", "tz", "js", "arr", "m"};
const std::vector<TargetColumn> kTyped = {{"i", "INTEGER", true},          {"d", "DOUBLE", true},
                                          {"dec", "DECIMAL(10,2)", true},  {"b", "BOOLEAN", true},
                                          {"dt", "DATE", true},            {"ts", "TIMESTAMP", true},
                                          {"tz", "TIMESTAMPTZ", true},     {"js", "JSON", true},
                                          {"arr", "VARCHAR[]", true},      {"m", "MAP(VARCHAR, INTEGER)", true}};
const std::vector<std::string> kOutTypes = {"VARCHAR", "BIGINT", "DOUBLE", "DECIMAL(12,3)", "DATE", "TIMESTAMP",
                                            "BOOLEAN", "JSON", "VARCHAR(5)", "INTEGER[]", "TIMESTAMPTZ"};
const std::vector<std::string> kLiterals = {"1", "0", "-7", "2.5", "1e2", "'abc'", "'2020-05-08'", "'42'", "NULL",
                                            "TRUE", "'%Y-%m-%d'", "'$.a'", "INTERVAL 2 DAY", "''"};
const std::vector<std::string> kOperators = {"+", "-", "*", "/", "%", "DIV", "=", "<>", "<", ">=", "<=>",
                                             "AND", "OR", "XOR"};

Rows SampleRows() {
  return {{"hello", "12", "2020-05-08 01:02:03", R"({"a": 1, "b": [1, 2]})", "3", "2.5", "1.25", "true",
           "2020-05-08", "2020-05-08 10:00:00", "2020-05-08 10:00:00", R"({"a": "x"})", R"(["p", "q"])",
           R"({"k": 1})"},
          {"", "-3.5", "20200508", "not json", "-1", "0", "0", "false", "1999-12-31", "1999-12-31 23:59:59",
           "2000-01-01 00:00:00", "[1]", "[]", "{}"},
          std::vector<Cell>(kSources.size(), std::nullopt),
          {"'quoted'", "x", "garbage", "[", "2147483647", "1e308", "99999999.99", "maybe", "bad", "bad", "bad", "{",
           "[", "{"}};
}

class RandomExpressionGenerator {
 public:
  explicit RandomExpressionGenerator(uint32_t seed) : rng_(seed) {}

  std::string Expression(int depth) {
    int pick = Uniform(depth <= 0 ? 2 : 10);
    if (pick == 0) return kSources[Uniform(kSources.size())];
    if (pick == 1) return kLiterals[Uniform(kLiterals.size())];
    if (pick <= 5) return Call(depth);
    if (pick == 6) return "(" + Expression(depth - 1) + " " + kOperators[Uniform(kOperators.size())] + " " +
                          Expression(depth - 1) + ")";
    if (pick == 7) {
      switch (Uniform(5)) {
        case 0: return Expression(depth - 1) + " IS NOT NULL";
        case 1: return Expression(depth - 1) + " IN (" + Expression(depth - 1) + ", " + Expression(0) + ")";
        case 2: return Expression(depth - 1) + " BETWEEN " + Expression(0) + " AND " + Expression(0);
        case 3: return Expression(depth - 1) + " LIKE " + Expression(0);
        default: return "NOT " + Expression(depth - 1);
      }
    }
    if (pick == 8) {
      return "CASE WHEN " + Expression(depth - 1) + " THEN " + Expression(depth - 1) + " ELSE " +
             Expression(depth - 1) + " END";
    }
    static const std::vector<std::string> kCastTypes = {"int", "bigint", "double", "decimal(8,2)", "varchar",
                                                        "date", "datetime", "boolean", "json", "string"};
    return "CAST(" + Expression(depth - 1) + " AS " + kCastTypes[Uniform(kCastTypes.size())] + ")";
  }

  std::string OutType() { return kOutTypes[Uniform(kOutTypes.size())]; }

 private:
  size_t Uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  std::string Call(int depth) {
    const auto& all = AllFunctions();
    const FunctionInfo& f = all[Uniform(all.size())];
    int max = f.max_args < 0 ? f.min_args + 2 : f.max_args;
    int n = f.min_args + static_cast<int>(Uniform(max - f.min_args + 1));
    std::string out = std::string(f.name) + "(";
    for (int i = 0; i < n; i++) out += (i ? ", " : "") + Expression(depth - 1);
    return out + ")";
  }

  std::mt19937 rng_;
};

class RandomExpressionsTest : public TransformHarness {};

TEST_F(RandomExpressionsTest, DuckDBAcceptsEveryCompiledExpression) {
  const Rows rows = SampleRows();
  int compiled_count = 0;
  for (uint32_t seed = 1; seed <= 60; seed++) {
    RandomExpressionGenerator gen(seed);
    TransformSpec spec;
    spec.source_columns = kSources;
    spec.table = kTyped;
    spec.timezone = seed % 2 ? "Asia/Shanghai" : "-05:30";
    spec.strict_mode = seed % 3 == 0;
    // Ten computed columns per batch; expressions the compiler refuses (wrong types, formats) are skipped.
    for (int k = 0; spec.derived.size() < 10 && k < 100; k++) {
      std::string name = "out" + std::to_string(spec.derived.size());
      TransformSpec one = spec;
      one.derived.push_back({name, gen.Expression(3)});
      one.table.push_back({name, gen.OutType(), k % 4 != 0});
      if (k % 2 == 0) one.where = gen.Expression(2);
      if (!Compile(one).ok()) continue;
      spec = std::move(one);
    }
    compiled_count += static_cast<int>(spec.derived.size());
    auto out = Run(spec, rows);
    if (!out.ok()) {
      // Find the expression DuckDB refused.
      for (const auto& [name, text] : spec.derived) {
        TransformSpec one = spec;
        one.derived = {{name, text}};
        one.where.reset();
        auto single = Run(one, rows);
        EXPECT_TRUE(single.ok()) << name << " = " << text << "\n" << single.status().ToString();
      }
      if (spec.where) ADD_FAILURE() << "WHERE " << *spec.where << "\n" << out.status().ToString();
      continue;
    }
    EXPECT_EQ(out->rows.size(), rows.size());
  }
  EXPECT_GT(compiled_count, 300);
}

}  // namespace
}  // namespace sluice::transform::testing
