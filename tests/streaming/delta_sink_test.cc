// The Delta sink: idempotent batches, table creation, commitInfo, mergeSchema, concurrent
// queries appending to one table, the table read back by DuckDB; and the batch writer's
// txnAppId/txnVersion options as foreachBatch users rely on them.

#include "streaming/delta_sink.h"

#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "delta/history.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "streaming/delta_tables.h"
#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"
#include "tributary/session.h"

namespace tributary::streaming {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SortedRows;

class DeltaSinkTest : public ::testing::Test {
 protected:
  // Batch `batch_id` of query `query_id` over the rows `rows_json` of `schema`.
  Result<int64_t> Write(DeltaSink& sink, const std::string& query_id, int64_t batch_id,
                        const columnar::SchemaPtr& schema, const std::string& rows_json) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto rows, tributary::testing::BatchFromJson(schema, rows_json));
    plan::ScanSource values;
    values.kind = plan::ScanSource::Kind::kValues;
    values.schema = schema;
    values.batches = {rows};
    values.description = "VALUES";
    exec::ExecContext context;
    context.fs = &fs_;
    MicroBatch batch;
    batch.query_id = query_id;
    batch.batch_id = batch_id;
    batch.plan = plan::Scan(std::move(values), "");
    batch.context = &context;
    return sink.AddBatch(batch);
  }

  std::unique_ptr<DeltaSink> Sink(const std::map<std::string, std::string>& options = {},
                                  std::vector<std::string> partition_by = {}) {
    auto sink = DeltaSink::Make(root_, options, std::move(partition_by));
    EXPECT_TRUE(sink.ok()) << sink.status().ToString();
    return sink.ok() ? std::move(*sink) : nullptr;
  }

  std::vector<std::string> TableRows() {
    auto snapshot = delta::Snapshot::Load(fs_, root_);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    if (!snapshot.ok()) {
      return {};
    }
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kDelta;
    source.schema = (*snapshot)->Schema();
    source.snapshot = *snapshot;
    auto rows = SortedRows(fs_, source);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  // The rows DuckDB reads from the files our log adds (the sink only appends), sorted.
  std::vector<std::string> DuckDBRows(const std::string& columns) {
    auto files = tributary::testing::OracleQuery(
        "SELECT add.path AS path FROM read_json('" + root_ +
        "/_delta_log/0*.json', format='newline_delimited', union_by_name=true) WHERE add IS NOT "
        "NULL ORDER BY path");
    EXPECT_TRUE(files.ok()) << files.status().ToString();
    if (!files.ok() || files->empty()) {
      return {};
    }
    std::string list;
    for (const std::string& line : *files) {
      auto path = nlohmann::json::parse(line)["path"].get<std::string>();
      list += (list.empty() ? "'" : ", '") + root_ + "/" + path + "'";
    }
    auto rows = tributary::testing::OracleQuery("SELECT " + columns + " FROM read_parquet([" +
                                                list + "], union_by_name=true)");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    std::vector<std::string> sorted = rows.ok() ? *rows : std::vector<std::string>{};
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  std::string root_ = dir_.Join("sink");
  columnar::SchemaPtr schema_ = tributary::testing::MakeSchema(
      {Field("id", DataType::Int64()), Field("p", DataType::String())});
};

TEST_F(DeltaSinkTest, CommitsEachBatchOnceWithItsTransactionId) {
  auto sink = Sink({{"delta.checkpointInterval", "5"}, {"partitionBy", "p"}});
  ASSERT_NE(sink, nullptr);
  EXPECT_EQ(sink->Description(), "DeltaSink[" + root_ + "]");
  ASSERT_OK_AND_ASSIGN(int64_t first, Write(*sink, "q1", 0, schema_, R"([[1, "a"], [2, "b"]])"));
  EXPECT_EQ(first, 2);
  // The same batch again (a re-run after a crash) writes nothing.
  ASSERT_OK_AND_ASSIGN(int64_t again, Write(*sink, "q1", 0, schema_, R"([[1, "a"], [2, "b"]])"));
  EXPECT_EQ(again, 0);
  ASSERT_OK_AND_ASSIGN(int64_t second, Write(*sink, "q1", 1, schema_, R"([[3, "a"]])"));
  EXPECT_EQ(second, 1);

  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Version(), 1);
  EXPECT_EQ(snapshot->Transactions().at("q1"), 1);
  EXPECT_THAT(snapshot->GetMetadata().partition_columns, ElementsAre("p"));
  EXPECT_EQ(snapshot->GetMetadata().configuration.at("delta.checkpointInterval"), "5");
  ASSERT_OK_AND_ASSIGN(auto history, delta::ReadHistory(fs_, root_));
  ASSERT_EQ(history.size(), 2u);
  for (int64_t v = 0; v < 2; ++v) {
    EXPECT_EQ(history[static_cast<size_t>(v)].operation, "STREAMING UPDATE");
    auto parameters = nlohmann::json::parse(history[static_cast<size_t>(v)].operation_parameters);
    EXPECT_EQ(parameters,
              nlohmann::json(
                  {{"outputMode", "Append"}, {"queryId", "q1"}, {"epochId", std::to_string(v)}}));
  }
  const std::vector<std::string> expected = {R"({"id":1,"p":"a"})", R"({"id":2,"p":"b"})",
                                             R"({"id":3,"p":"a"})"};
  EXPECT_EQ(TableRows(), expected);
  // DuckDB reads the Parquet files our log adds; partition values live in the paths, so it is
  // asked for the ids only.
  EXPECT_THAT(DuckDBRows("id"), ElementsAre(R"({"id":1})", R"({"id":2})", R"({"id":3})"));
}

TEST_F(DeltaSinkTest, NewColumnsNeedMergeSchemaAndTheErrorNamesThem) {
  auto sink = Sink();
  ASSERT_NE(sink, nullptr);
  ASSERT_OK(Write(*sink, "q", 0, schema_, R"([[1, "a"]])"));
  auto wider = tributary::testing::MakeSchema(
      {Field("id", DataType::Int64()), Field("p", DataType::String()),
       Field("x", DataType::Int32()), Field("y", DataType::String())});
  auto refused = Write(*sink, "q", 1, wider, R"([[2, "b", 7, "why"]])");
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_THAT(refused.status().Message(), HasSubstr("'x' (int), 'y' (string)"));
  EXPECT_THAT(refused.status().Message(), HasSubstr("mergeSchema"));
  EXPECT_THAT(refused.status().Message(), HasSubstr("batch 1 of query q"));

  auto merging = Sink({{"mergeSchema", "true"}});
  ASSERT_NE(merging, nullptr);
  ASSERT_OK_AND_ASSIGN(int64_t rows, Write(*merging, "q", 1, wider, R"([[2, "b", 7, "why"]])"));
  EXPECT_EQ(rows, 1);
  EXPECT_THAT(TableRows(), ElementsAre(R"({"id":1,"p":"a","x":null,"y":null})",
                                       R"({"id":2,"p":"b","x":7,"y":"why"})"));
  EXPECT_THAT(DuckDBRows("id, p, x, y"), ElementsAre(R"({"id":1,"p":"a","x":null,"y":null})",
                                                     R"({"id":2,"p":"b","x":7,"y":"why"})"));
  ASSERT_RAISES(InvalidArgument, DeltaSink::Make(root_, {{"mergeSchema", "maybe"}}));
}

TEST_F(DeltaSinkTest, QueriesAppendingToOneTableAtOnceAllCommit) {
  constexpr int kBatches = 15;
  std::vector<std::thread> threads;
  threads.reserve(2);
  std::vector<Status> failures(2);
  for (int query = 0; query < 2; ++query) {
    threads.emplace_back([&, query] {
      // Each query has its own sink, as two running queries would; the table does not exist
      // yet, so both race to create it too.
      auto sink = DeltaSink::Make(root_, {});
      if (!sink.ok()) {
        failures[static_cast<size_t>(query)] = sink.status();
        return;
      }
      for (int batch = 0; batch < kBatches; ++batch) {
        const int64_t id = query * 1000 + batch;
        auto written = Write(**sink, "query-" + std::to_string(query), batch, schema_,
                             "[[" + std::to_string(id) + ", \"p\"]]");
        if (!written.ok()) {
          failures[static_cast<size_t>(query)] = written.status();
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const Status& failure : failures) {
    ASSERT_OK(failure);
  }
  std::vector<std::string> expected;
  for (int query = 0; query < 2; ++query) {
    for (int batch = 0; batch < kBatches; ++batch) {
      expected.push_back("{\"id\":" + std::to_string(query * 1000 + batch) + ",\"p\":\"p\"}");
    }
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(TableRows(), expected);
  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Version(), 2 * kBatches - 1);
  EXPECT_EQ(snapshot->Transactions().at("query-0"), kBatches - 1);
  EXPECT_EQ(snapshot->Transactions().at("query-1"), kBatches - 1);
  EXPECT_EQ(DuckDBRows("id, p"), expected);
}

// foreachBatch users make their batch writes idempotent with txnAppId/txnVersion: as in Delta,
// a version the table already holds for the application is skipped, whatever the save mode.
TEST_F(DeltaSinkTest, BatchWriterTxnOptionsSkipVersionsAlreadyWritten) {
  const std::string source = dir_.Join("source");
  ASSERT_OK(testing::AppendRows(fs_, source, schema_, R"([[1, "a"], [2, "b"]])"));
  ASSERT_OK_AND_ASSIGN(auto session, Session::Builder().TimeZone("UTC").Build());
  DataFrame rows = session->Read().Format("delta").Load(source);
  auto write = [&](const std::string& mode, const std::string& version) {
    return rows.Write()
        .Mode(mode)
        .Option("txnAppId", "app")
        .Option("txnVersion", version)
        .Save(root_);
  };
  auto count = [&]() {
    return session->Read().Format("delta").Load(root_).Count().ValueOrDie();
  };
  ASSERT_OK(write("append", "5"));
  EXPECT_EQ(count(), 2);
  ASSERT_OK(write("append", "5"));  // the same batch again
  ASSERT_OK(write("append", "3"));  // an older one
  EXPECT_EQ(count(), 2);
  // Delta checks the transaction before the save mode: no "already exists" error.
  ASSERT_OK(write("errorifexists", "5"));
  ASSERT_OK(write("overwrite", "4"));
  EXPECT_EQ(count(), 2);
  ASSERT_OK(write("append", "6"));
  EXPECT_EQ(count(), 4);
  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Transactions().at("app"), 6);
  EXPECT_EQ(snapshot->Version(), 1);
}

}  // namespace
}  // namespace tributary::streaming
