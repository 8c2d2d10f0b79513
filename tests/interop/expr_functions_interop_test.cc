// Scalar functions against DuckDB where Spark and DuckDB define the same result: random strings
// and timestamps go into a tributary batch and into a DuckDB VALUES list, each side computes
// the functions, rows are compared as canonical JSON. (Where the two differ, e.g. substring
// from position 0 or dayofweek's numbering, the query adapts DuckDB to Spark's definition.)

#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "expr/evaluator.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::DataType;
using columnar::Field;

struct Case {
  std::string name;  // output column name
  ExprPtr ours;
  std::string duckdb;  // the same over column s (VARCHAR) or t (TIMESTAMP)
};

class ExprFunctionsInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(20240501);
    const std::vector<std::string> pieces = {"a", "B", "c", " ", "é", "Δ", "δ", "xyz", "Ab", "0"};
    columnar::ColumnBuilder s(DataType::String());
    columnar::ColumnBuilder t(DataType::Timestamp());
    values_ = "";
    for (int i = 0; i < kRows; ++i) {
      std::string text;
      const size_t length = rng() % 8;
      for (size_t k = 0; k < length; ++k) {
        text += pieces[rng() % pieces.size()];
      }
      // Timestamps from 1950 to 2050 in microseconds.
      const int64_t micros = static_cast<int64_t>(rng() % 3155760000000000ULL) - 631152000000000LL;
      const bool null = rng() % 10 == 0;
      null ? s.AppendNull() : s.AppendBytes(text);
      null ? t.AppendNull() : t.AppendInt(micros);
      std::string quoted = "'";
      for (char c : text) {
        quoted += c == '\'' ? "''" : std::string(1, c);
      }
      values_ += fmt::format("{}({}, {}, {})", i > 0 ? ", " : "", i, null ? "NULL" : quoted + "'",
                             null ? "NULL" : fmt::format("make_timestamp({}::BIGINT)", micros));
    }
    auto schema = std::make_shared<const columnar::Schema>(
        std::vector<Field>{Field("s", DataType::String()), Field("t", DataType::Timestamp())});
    batch_ = *columnar::RecordBatch::Make(schema, kRows, {*s.Finish(), *t.Finish()});
  }

  void Compare(const std::vector<Case>& cases) {
    std::vector<Field> fields;
    std::vector<columnar::ColumnPtr> columns;
    std::string select;
    for (const Case& c : cases) {
      ASSERT_OK_AND_ASSIGN(auto bound, Bind(*c.ours, *batch_->Schema()));
      ASSERT_OK_AND_ASSIGN(auto column, Evaluate(*bound, *batch_));
      fields.emplace_back(c.name, column->Type());
      columns.push_back(std::move(column));
      select += fmt::format("{}{} AS {}", select.empty() ? "" : ", ", c.duckdb, c.name);
    }
    auto schema = std::make_shared<const columnar::Schema>(fields);
    ASSERT_OK_AND_ASSIGN(auto ours, columnar::RecordBatch::Make(schema, kRows, columns));
    ASSERT_OK_AND_ASSIGN(
        auto theirs, testing::OracleQuery(fmt::format(
                         "SELECT {} FROM (VALUES {}) v(id, s, t) ORDER BY id", select, values_)));
    const std::vector<std::string> rows = columnar::CanonicalJsonRows(*ours);
    ASSERT_EQ(rows.size(), theirs.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ(rows[i], theirs[i]) << "row " << i;
    }
  }

  static constexpr int kRows = 300;
  std::string values_;
  columnar::RecordBatchPtr batch_;
};

ExprPtr Str(std::string v) {
  return Lit(Scalar::String(std::move(v)));
}
ExprPtr Int(int32_t v) {
  return Lit(Scalar::Int32(v));
}

TEST_F(ExprFunctionsInteropTest, StringFunctionsMatchDuckDB) {
  auto s = Col("s");
  Compare({
      {"lower", Function("lower", {s}), "lower(s)"},
      {"upper", Function("upper", {s}), "upper(s)"},
      {"len", Function("length", {s}), "length(s)"},
      {"sub", Function("substring", {s, Int(2), Int(3)}), "substring(s, 2, 3)"},
      {"tail", Function("substr", {s, Int(-3)}), "substring(s, -3)"},
      {"rev", Function("reverse", {s}), "reverse(s)"},
      {"rep", Function("replace", {s, Str("a"), Str("<>")}), "replace(s, 'a', '<>')"},
      {"ws", Function("concat_ws", {Str("-"), s, Str("x"), s}), "concat_ws('-', s, 'x', s)"},
      {"cat", Function("concat", {s, Str("!")}), "s || '!'"},
      {"trim", Function("trim", {s}), "trim(s)"},
      {"lp", Function("lpad", {s, Int(5), Str("*")}), "lpad(s, 5, '*')"},
      {"rp", Function("rpad", {s, Int(4), Str("ab")}), "rpad(s, 4, 'ab')"},
      {"pos", Function("instr", {s, Str("c")}), "instr(s, 'c')"},
      {"sw", Function("startswith", {s, Str("a")}), "starts_with(s, 'a')"},
      {"has", Function("contains", {s, Str("Δ")}), "contains(s, 'Δ')"},
      {"lk", Function("like", {s, Str("%a_c%")}), "s LIKE '%a_c%'"},
      {"rl", Function("rlike", {s, Str("^[a-c]+\\s")}), "regexp_matches(s, '^[a-c]+\\s')"},
      {"rr", Function("regexp_replace", {s, Str("[aB]+"), Str("($0)")}),
       "regexp_replace(s, '[aB]+', '(\\0)', 'g')"},
      {"rx", Function("regexp_extract", {s, Str("([a-c])([a-c ])"), Int(2)}),
       "regexp_extract(s, '([a-c])([a-c ])', 2)"},
      {"md", Function("md5", {s}), "md5(s)"},
      {"sh", Function("sha2", {s, Int(256)}), "sha256(s)"},
  });
}

TEST_F(ExprFunctionsInteropTest, DatetimeFunctionsMatchDuckDB) {
  auto t = Col("t");
  auto seconds = [](ExprPtr e) {
    return Function("unix_timestamp", {std::move(e)});
  };
  Compare({
      {"y", Function("year", {t}), "year(t)"},
      {"q", Function("quarter", {t}), "quarter(t)"},
      {"m", Function("month", {t}), "month(t)"},
      {"d", Function("day", {t}), "day(t)"},
      {"dow", Function("dayofweek", {t}), "dayofweek(t) + 1"},
      {"doy", Function("dayofyear", {t}), "dayofyear(t)"},
      {"h", Function("hour", {t}), "hour(t)"},
      {"mi", Function("minute", {t}), "minute(t)"},
      {"se", Function("second", {t}), "second(t)"},
      {"tw", seconds(Function("date_trunc", {Str("week"), t})),
       "epoch_ms(date_trunc('week', t)) // 1000"},
      {"tq", seconds(Function("date_trunc", {Str("quarter"), t})),
       "epoch_ms(date_trunc('quarter', t)) // 1000"},
      {"th", seconds(Function("date_trunc", {Str("hour"), t})),
       "epoch_ms(date_trunc('hour', t)) // 1000"},
      {"da", Function("datediff", {t, Str("2000-01-01")}),
       "date_diff('day', DATE '2000-01-01', t::DATE)"},
      {"fmt", Function("date_format", {t, Str("yyyy-MM-dd HH:mm:ss")}),
       "strftime(t, '%Y-%m-%d %H:%M:%S')"},
  });
}

}  // namespace
}  // namespace tributary::expr
