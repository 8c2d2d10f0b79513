// What `tributary state` shows: operators, partitions, rows and bytes of a checkpoint's state,
// and the rows of a version decoded with the operator's schemas.

#include "state/state_inspection.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/data_type.h"
#include "exec/row_key.h"
#include "state/state_store.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::state {
namespace {

class StateInspectionTest : public ::testing::Test {
 protected:
  std::string Checkpoint() const { return dir_.Join("checkpoint"); }

  /// The grouping encoding of each row of `rows_json` under `schema`, optionally prefixed by
  /// the state format version byte (values).
  static std::vector<std::string> Encode(const columnar::SchemaPtr& schema,
                                         std::string_view rows_json, bool value) {
    auto batch = testing::BatchFromJson(schema, rows_json);
    EXPECT_OK(batch.status());
    exec::EncodedKeys encoded;
    exec::EncodeGroupingKeys((*batch)->Columns(), (*batch)->NumRows(), &encoded);
    std::vector<std::string> out;
    for (int64_t i = 0; i < encoded.NumRows(); ++i) {
      std::string row;
      if (value) {
        row.push_back('\x01');
      }
      row.append(encoded.Key(i));
      out.push_back(std::move(row));
    }
    return out;
  }

  /// Commits one version of partition `partition` holding `keys` -> `values`.
  void CommitPartition(int32_t partition, int64_t version, const std::vector<std::string>& keys,
                       const std::vector<std::string>& values) {
    StateStoreConf conf;
    conf.local_dir = dir_.Join("local");
    ASSERT_OK_AND_ASSIGN(auto provider,
                         StateStoreProvider::Open(fs_.get(), Checkpoint(), 0, partition, conf));
    ASSERT_OK_AND_ASSIGN(auto store, provider->Load(version));
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_OK(store->Put(keys[i], values[i]));
    }
    ASSERT_OK(store->Commit());
  }

  testing::TempDir dir_;
  std::shared_ptr<storage::FileSystem> fs_ = std::make_shared<storage::LocalFileSystem>();
};

TEST_F(StateInspectionTest, SummarizesAndPrintsTheRowsOfAVersion) {
  const auto key_schema = testing::MakeSchema(
      {{"country", columnar::DataType::String()}, {"hour", columnar::DataType::Int64()}});
  const auto value_schema = testing::MakeSchema(
      {{"count", columnar::DataType::Int64(), false}, {"total", columnar::DataType::Float64()}});
  OperatorStateMetadata metadata{0, "stateStoreSave", 2, key_schema, value_schema, 1};
  ASSERT_OK(WriteOperatorMetadata(fs_.get(), Checkpoint(), metadata));
  // Batch 0 commits version 1 of both partitions; batch 1 version 2.
  CommitPartition(
      0, 0,
      Encode(key_schema, R"([{"country": "de", "hour": 1}, {"country": null, "hour": 2}])", false),
      Encode(value_schema, R"([{"count": 3, "total": 1.5}, {"count": 1, "total": null}])", true));
  CommitPartition(1, 0, Encode(key_schema, R"([{"country": "fr", "hour": 1}])", false),
                  Encode(value_schema, R"([{"count": 7, "total": 2.0}])", true));
  CommitPartition(0, 1, Encode(key_schema, R"([{"country": "de", "hour": 1}])", false),
                  Encode(value_schema, R"([{"count": 4, "total": 2.5}])", true));
  CommitPartition(1, 1, {}, {});
  ASSERT_OK(
      fs_->WriteFile(Checkpoint() + "/commits/0", "v1\n{}\n", storage::WriteMode::kPutIfAbsent));

  ASSERT_OK_AND_ASSIGN(const auto summary, SummarizeCheckpointState(fs_.get(), Checkpoint()));
  EXPECT_EQ(summary.last_committed_batch, std::optional<int64_t>(0));
  EXPECT_EQ(summary.committed_version, 1);
  ASSERT_EQ(summary.operators.size(), 1U);
  EXPECT_EQ(summary.operators[0].operator_name, "stateStoreSave");
  ASSERT_EQ(summary.operators[0].partitions.size(), 2U);
  EXPECT_EQ(summary.operators[0].partitions[0].num_rows, std::optional<int64_t>(2));
  EXPECT_EQ(summary.operators[0].partitions[1].num_rows, std::optional<int64_t>(1));
  EXPECT_EQ(summary.operators[0].partitions[0].num_files, 2);
  EXPECT_GT(summary.operators[0].partitions[0].file_bytes, 0);

  std::vector<std::string> lines;
  const auto collect = [&lines](std::string_view line) {
    lines.emplace_back(line);
    return Status::OK();
  };
  ASSERT_OK(ReadStateRows(fs_.get(), Checkpoint(), 0, 1, collect));
  // Keys in byte order of their encoding within a partition (a null key sorts first).
  EXPECT_EQ(
      lines,
      (std::vector<std::string>{
          R"({"key":{"country":null,"hour":2},"value":{"count":1,"total":null},"partition_id":0})",
          R"({"key":{"country":"de","hour":1},"value":{"count":3,"total":1.5},"partition_id":0})",
          R"({"key":{"country":"fr","hour":1},"value":{"count":7,"total":2.0},"partition_id":1})"}));
  lines.clear();
  ASSERT_OK(ReadStateRows(fs_.get(), Checkpoint(), 0, 2, collect));
  EXPECT_EQ(lines.size(), 3U);
  EXPECT_EQ(
      lines[1],
      R"({"key":{"country":"de","hour":1},"value":{"count":4,"total":2.5},"partition_id":0})");
  ASSERT_RAISES(NotFound, ReadStateRows(fs_.get(), Checkpoint(), 0, 3, collect));
  ASSERT_RAISES(NotFound, ReadStateRows(fs_.get(), Checkpoint(), 5, 1, collect));
}

TEST_F(StateInspectionTest, ACheckpointWithoutStateHasNoOperators) {
  ASSERT_RAISES(NotFound, SummarizeCheckpointState(fs_.get(), Checkpoint()));
  ASSERT_OK(fs_->WriteFile(Checkpoint() + "/metadata", "{}", storage::WriteMode::kPutIfAbsent));
  ASSERT_OK_AND_ASSIGN(const auto summary, SummarizeCheckpointState(fs_.get(), Checkpoint()));
  EXPECT_FALSE(summary.last_committed_batch.has_value());
  EXPECT_EQ(summary.committed_version, 0);
  EXPECT_TRUE(summary.operators.empty());
}

}  // namespace
}  // namespace tributary::state
