// The blocking operators against DuckDB: random data written as Parquet with the project's
// writer, the equivalent SQL run by DuckDB over the file, rows compared as canonical JSON.

#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "exec/hash_aggregate.h"
#include "exec/hash_join.h"
#include "exec/operator_io.h"
#include "exec/sort.h"
#include "formats/parquet/writer.h"
#include "storage/local_file_system.h"
#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::MakeSchema;

class ExecOracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(4242);
    const int64_t rows = 6000;
    std::vector<std::optional<int64_t>> k, v, id;
    std::vector<std::optional<std::string>> g;
    std::vector<std::optional<double>> d;
    const char* names[] = {"alpha", "beta", "gamma", "", "delta"};
    for (int64_t i = 0; i < rows; ++i) {
      k.push_back(rng() % 15 == 0 ? std::nullopt
                                  : std::optional<int64_t>(static_cast<int64_t>(rng() % 60)));
      g.push_back(rng() % 12 == 0 ? std::nullopt : std::optional<std::string>(names[rng() % 5]));
      v.push_back(rng() % 10 == 0
                      ? std::nullopt
                      : std::optional<int64_t>(static_cast<int64_t>(rng() % 100000) - 50000));
      d.push_back(rng() % 9 == 0 ? std::nullopt
                                 : std::optional<double>(static_cast<double>(rng() % 1000) / 8.0));
      id.emplace_back(i);
    }
    t_schema_ = MakeSchema({Field("k", DataType::Int32()), Field("g", DataType::String()),
                            Field("v", DataType::Int64()), Field("d", DataType::Float64()),
                            Field("id", DataType::Int64())});
    t_ = *columnar::RecordBatch::Make(
        t_schema_, rows,
        {MakeColumn<int64_t>(DataType::Int32(), k), MakeColumn<std::string>(DataType::String(), g),
         MakeColumn<int64_t>(DataType::Int64(), v), MakeColumn<double>(DataType::Float64(), d),
         MakeColumn<int64_t>(DataType::Int64(), id)});
    std::vector<std::optional<int64_t>> uk;
    std::vector<std::optional<std::string>> w;
    for (int64_t i = 0; i < 400; ++i) {
      uk.push_back(rng() % 20 == 0 ? std::nullopt
                                   : std::optional<int64_t>(static_cast<int64_t>(rng() % 80)));
      w.emplace_back(std::to_string(i * 37 % 1000));
    }
    u_schema_ = MakeSchema({Field("uk", DataType::Int32()), Field("w", DataType::String())});
    u_ = *columnar::RecordBatch::Make(u_schema_, 400,
                                      {MakeColumn<int64_t>(DataType::Int32(), uk),
                                       MakeColumn<std::string>(DataType::String(), w)});
    t_path_ = dir_.Join("t.parquet");
    u_path_ = dir_.Join("u.parquet");
    ASSERT_OK(parquet::WriteParquetFile(fs_, t_path_, {t_}, t_schema_));
    ASSERT_OK(parquet::WriteParquetFile(fs_, u_path_, {u_}, u_schema_));
  }

  std::string T() const { return "read_parquet('" + t_path_ + "')"; }
  std::string U() const { return "read_parquet('" + u_path_ + "')"; }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  columnar::SchemaPtr t_schema_;
  columnar::SchemaPtr u_schema_;
  RecordBatchPtr t_;
  RecordBatchPtr u_;
  std::string t_path_;
  std::string u_path_;
};

TEST_F(ExecOracleTest, GroupByMatchesDuckDb) {
  ExecContext context;
  const auto& s = *t_schema_;
  std::vector<AggregateCall> calls = {
      {"count", {}, false},
      {"sum", {ColumnRef(s, "v")}, false},
      {"min", {ColumnRef(s, "d")}, false},
      {"max", {ColumnRef(s, "id")}, false},
      {"avg", {ColumnRef(s, "d")}, false},
      {"count", {ColumnRef(s, "v")}, true},
  };
  auto output = MakeSchema({Field("k", DataType::Int32()), Field("g", DataType::String()),
                            Field("n", DataType::Int64()), Field("s", DataType::Int64()),
                            Field("lo", DataType::Float64()), Field("hi", DataType::Int64()),
                            Field("a", DataType::Float64()), Field("cd", DataType::Int64())});
  OperatorPtr op =
      Instantiate(std::make_shared<HashAggregateNode>(
                      Source(t_schema_, Split(t_, 1000)),
                      std::vector<expr::BoundExprPtr>{ColumnRef(s, "k"), ColumnRef(s, "g")},
                      std::move(calls), output),
                  context);
  ASSERT_OK_AND_ASSIGN(auto ours, RowsOf(*op));
  ASSERT_OK_AND_ASSIGN(
      auto theirs,
      testing::OracleQuery("SELECT k, g, count(*) AS n, sum(v)::BIGINT AS s, min(d) AS lo, "
                           "max(id) AS hi, avg(d) AS a, count(DISTINCT v) AS cd FROM " +
                           T() + " GROUP BY k, g"));
  ASSERT_GT(theirs.size(), 100u);
  EXPECT_EQ(Sorted(ours), Sorted(theirs));
}

TEST_F(ExecOracleTest, JoinsMatchDuckDb) {
  ExecContext context;
  const std::pair<JoinType, std::string> cases[] = {{JoinType::kInner, "INNER JOIN"},
                                                    {JoinType::kLeft, "LEFT JOIN"},
                                                    {JoinType::kFull, "FULL OUTER JOIN"},
                                                    {JoinType::kLeftAnti, "ANTI JOIN"}};
  for (const auto& [type, sql_join] : cases) {
    SCOPED_TRACE(sql_join);
    std::vector<Field> fields = t_schema_->Fields();
    if (type != JoinType::kLeftAnti) {
      fields.insert(fields.end(), u_schema_->Fields().begin(), u_schema_->Fields().end());
    }
    auto pair_schema =
        MakeSchema({t_schema_->Fields()[0], t_schema_->Fields()[1], t_schema_->Fields()[2],
                    t_schema_->Fields()[3], t_schema_->Fields()[4], u_schema_->Fields()[0],
                    u_schema_->Fields()[1]});
    auto residual = BindOrDie(
        expr::Call(expr::Op::kGreater, {expr::Col("v"), expr::Lit(expr::Scalar::Int64(-20000))}),
        *pair_schema);
    OperatorPtr op =
        Instantiate(std::make_shared<HashJoinNode>(
                        Source(t_schema_, Split(t_, 1000)), Source(u_schema_, {u_}), type,
                        std::vector<expr::BoundExprPtr>{ColumnRef(*t_schema_, "k")},
                        std::vector<expr::BoundExprPtr>{ColumnRef(*u_schema_, "uk")}, residual,
                        MakeSchema(fields)),
                    context);
    ASSERT_OK_AND_ASSIGN(auto ours, RowsOf(*op));
    const std::string select = type == JoinType::kLeftAnti ? "t.*" : "t.*, u.*";
    ASSERT_OK_AND_ASSIGN(
        auto theirs, testing::OracleQuery(
                         fmt::format("SELECT {} FROM {} t {} {} u ON t.k = u.uk AND t.v > -20000",
                                     select, T(), sql_join, U())));
    ASSERT_GT(theirs.size(), 1000u);
    EXPECT_EQ(Sorted(ours), Sorted(theirs));
  }
}

TEST_F(ExecOracleTest, TopNAndSortMatchDuckDbOrder) {
  ExecContext context;
  const auto& s = *t_schema_;
  for (std::optional<int64_t> limit : {std::optional<int64_t>(150), std::optional<int64_t>()}) {
    OperatorPtr op = Instantiate(
        std::make_shared<SortNode>(Source(t_schema_, Split(t_, 1000)),
                                   std::vector<SortKey>{{ColumnRef(s, "g"), false, false},
                                                        {ColumnRef(s, "d"), true, true},
                                                        {ColumnRef(s, "id"), true, true}},
                                   limit),
        context);
    ASSERT_OK_AND_ASSIGN(auto ours, RowsOf(*op));
    ASSERT_OK_AND_ASSIGN(
        auto theirs,
        testing::OracleQuery("SELECT * FROM " + T() +
                             " ORDER BY g DESC NULLS LAST, d ASC NULLS FIRST, id" +
                             (limit ? " LIMIT " + std::to_string(*limit) : std::string())));
    EXPECT_EQ(ours, theirs);
  }
}

}  // namespace
}  // namespace tributary::exec
