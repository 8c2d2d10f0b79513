// Writing Delta tables: create/append/overwrite round trips, idempotent txn writes, schema
// merging, conflict detection between concurrent transactions and crash safety under the fault
// injector. Several OS processes appending to one table at once: delta_storage_test.cc, on every
// storage backend.

#include "delta/table_writes.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/history.h"
#include "delta/log_segment.h"
#include "delta/maintenance.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "storage/fault_injection_file_system.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/duckdb_oracle.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "table_rows.h"

namespace tributary::delta {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

columnar::SchemaPtr EventSchema() {
  return MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                     Field("day", DataType::Date()), Field("amount", DataType::Float64())});
}

columnar::RecordBatchPtr Events(const std::string& rows) {
  return BatchFromJson(EventSchema(), rows).ValueOrDie();
}

Result<std::vector<std::string>> Rows(storage::FileSystem& fs, const std::string& root,
                                      std::optional<int64_t> version = {}) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Snapshot::Load(fs, root, version));
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ReadTable(fs, *snapshot));
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

class TableWritesTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = dir_ + "/events"; }

  TableWriteOptions Options(SaveMode mode) {
    TableWriteOptions options;
    options.mode = mode;
    options.partition_by = {"country"};
    return options;
  }

  storage::LocalFileSystem fs_;
  testing::TempDir temp_;
  std::string dir_ = temp_.Path();
  std::string root_;
};

TEST_F(TableWritesTest, CreateAppendOverwriteAndTimeTravel) {
  ASSERT_OK_AND_ASSIGN(auto created,
                       WriteTable(fs_, root_, EventSchema(),
                                  {Events(R"([[1, "fr", 19844, 1.5], [2, "a/b %c", 19845, null],
                                              [3, null, 19845, 2.0]])")},
                                  Options(SaveMode::kErrorIfExists)));
  EXPECT_EQ(created.version, 0);
  EXPECT_EQ(created.files_added, 3);  // one file per partition, the null one included
  ASSERT_OK_AND_ASSIGN(auto appended,
                       WriteTable(fs_, root_, EventSchema(), {Events(R"([[4, "fr", 19846, 4.0]])")},
                                  Options(SaveMode::kAppend)));
  EXPECT_EQ(appended.version, 1);
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows, (std::vector<std::string>{
                      R"({"id":1,"country":"fr","day":"2024-05-01","amount":1.5})",
                      R"({"id":2,"country":"a/b %c","day":"2024-05-02","amount":null})",
                      R"({"id":3,"country":null,"day":"2024-05-02","amount":2.0})",
                      R"({"id":4,"country":"fr","day":"2024-05-03","amount":4.0})"}));
  ASSERT_RAISES(AlreadyExists,
                WriteTable(fs_, root_, EventSchema(), {}, Options(SaveMode::kErrorIfExists)));
  ASSERT_OK_AND_ASSIGN(auto ignored,
                       WriteTable(fs_, root_, EventSchema(), {Events(R"([[9, "x", 1, 1.0]])")},
                                  Options(SaveMode::kIgnore)));
  EXPECT_FALSE(ignored.committed);
  ASSERT_OK_AND_ASSIGN(auto overwritten,
                       WriteTable(fs_, root_, EventSchema(), {Events(R"([[5, "de", 19847, 5.0]])")},
                                  Options(SaveMode::kOverwrite)));
  EXPECT_EQ(overwritten.version, 2);
  EXPECT_EQ(overwritten.files_removed, 4);
  ASSERT_OK_AND_ASSIGN(rows, Rows(fs_, root_));
  EXPECT_EQ(
      rows,
      (std::vector<std::string>{R"({"id":5,"country":"de","day":"2024-05-04","amount":5.0})"}));
  ASSERT_OK_AND_ASSIGN(rows, Rows(fs_, root_, 0));
  EXPECT_EQ(rows.size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(fs_, root_));
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].operation, "CREATE TABLE AS SELECT");
  EXPECT_NE(history[2].operation_parameters.find("Overwrite"), std::string::npos);
  // Hive-style escaping in the directory, URI escaping in the log, decoded in the snapshot.
  ASSERT_OK_AND_ASSIGN(auto v0, Snapshot::Load(fs_, root_, 0));
  bool found = false;
  for (const AddFile& add : v0->Files()) {
    if (add.partition_values.at("country") == std::optional<std::string>("a/b %c")) {
      found = true;
      EXPECT_EQ(add.path.rfind("country=a%2Fb %25c/part-", 0), 0u) << add.path;
      EXPECT_TRUE(std::filesystem::exists(root_ + "/" + add.path));
      EXPECT_NE(add.stats->find(R"("numRecords":1)"), std::string::npos) << *add.stats;
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(TableWritesTest, DuckDBReadsEveryDataFileWeWrite) {
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(),
                       {Events(R"([[1, "fr", 19844, 1.5], [2, "de", 19845, null]])")},
                       Options(SaveMode::kErrorIfExists)));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  int64_t rows = 0;
  for (const AddFile& add : snapshot->Files()) {
    ASSERT_OK_AND_ASSIGN(
        auto count, testing::OracleQuery("SELECT count(*) AS n FROM read_parquet('" + root_ + "/" +
                                         add.path + "')"));
    ASSERT_EQ(count.size(), 1u);
    rows += std::stoll(count[0].substr(5));
  }
  EXPECT_EQ(rows, 2);
}

TEST_F(TableWritesTest, TxnMakesStreamingWritesIdempotent) {
  TableWriteOptions options = Options(SaveMode::kAppend);
  options.txn = std::make_pair(std::string("query-1"), int64_t{7});
  ASSERT_OK_AND_ASSIGN(auto first, WriteTable(fs_, root_, EventSchema(),
                                              {Events(R"([[1, "fr", 1, 1.0]])")}, options));
  EXPECT_TRUE(first.committed);
  ASSERT_OK_AND_ASSIGN(auto replay, WriteTable(fs_, root_, EventSchema(),
                                               {Events(R"([[1, "fr", 1, 1.0]])")}, options));
  EXPECT_FALSE(replay.committed);
  EXPECT_EQ(replay.version, first.version);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Transactions().at("query-1"), 7);
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows.size(), 1u);
}

// Delta checks an idempotent write's transaction before the save mode: a version already
// written is skipped even in mode error or overwrite (foreachBatch users rely on it).
TEST_F(TableWritesTest, TxnAlreadyWrittenIsSkippedWhateverTheSaveMode) {
  TableWriteOptions options = Options(SaveMode::kErrorIfExists);
  options.txn = std::make_pair(std::string("app"), int64_t{3});
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")}, options));
  for (SaveMode mode : {SaveMode::kErrorIfExists, SaveMode::kOverwrite, SaveMode::kAppend}) {
    options.mode = mode;
    ASSERT_OK_AND_ASSIGN(auto skipped, WriteTable(fs_, root_, EventSchema(),
                                                  {Events(R"([[2, "fr", 1, 1.0]])")}, options));
    EXPECT_FALSE(skipped.committed);
  }
  options.mode = SaveMode::kErrorIfExists;
  options.txn->second = 4;
  ASSERT_RAISES(AlreadyExists,
                WriteTable(fs_, root_, EventSchema(), {Events(R"([[2, "fr", 1, 1.0]])")}, options));
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows.size(), 1u);
}

TEST_F(TableWritesTest, OperationNameAndParametersCanBeGiven) {
  TableWriteOptions options = Options(SaveMode::kAppend);
  options.operation = "STREAMING UPDATE";
  options.operation_parameters = {{"outputMode", "Append"}, {"epochId", "0"}};
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")}, options));
  ASSERT_OK_AND_ASSIGN(auto history, ReadHistory(fs_, root_));
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].operation, "STREAMING UPDATE");
  EXPECT_EQ(history[0].operation_parameters, R"({"epochId":"0","outputMode":"Append"})");
}

TEST_F(TableWritesTest, MergeSchemaAddsColumnsOtherwiseErrorNamesThem) {
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")},
                       Options(SaveMode::kErrorIfExists)));
  auto wider = MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                           Field("day", DataType::Date()), Field("amount", DataType::Float64()),
                           Field("note", DataType::String())});
  auto batch = BatchFromJson(wider, R"([[2, "fr", 2, 2.0, "hello"]])").ValueOrDie();
  auto refused = WriteTable(fs_, root_, wider, {batch}, Options(SaveMode::kAppend));
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_NE(refused.status().Message().find("'note'"), std::string::npos);
  TableWriteOptions merge = Options(SaveMode::kAppend);
  merge.merge_schema = true;
  ASSERT_OK(WriteTable(fs_, root_, wider, {batch}, merge));
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows,
            (std::vector<std::string>{
                R"({"id":1,"country":"fr","day":"1970-01-02","amount":1.0,"note":null})",
                R"({"id":2,"country":"fr","day":"1970-01-03","amount":2.0,"note":"hello"})"}));
  auto wrong_type = MakeSchema({Field("id", DataType::String())});
  auto bad = BatchFromJson(wrong_type, R"([["x"]])").ValueOrDie();
  auto mismatch = WriteTable(fs_, root_, wrong_type, {bad}, merge);
  ASSERT_RAISES(InvalidArgument, mismatch);
  EXPECT_NE(mismatch.status().Message().find("'id' is bigint in the table but string"),
            std::string::npos);
}

TEST_F(TableWritesTest, OverwriteWithAnotherSchemaNeedsOverwriteSchema) {
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")},
                       Options(SaveMode::kErrorIfExists)));
  auto other = MakeSchema({Field("id", DataType::String()), Field("city", DataType::String())});
  auto batch = BatchFromJson(other, R"([["a", "paris"], ["b", "lyon"]])").ValueOrDie();
  TableWriteOptions overwrite;
  overwrite.mode = SaveMode::kOverwrite;
  auto refused = WriteTable(fs_, root_, other, {batch}, overwrite);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_NE(refused.status().Message().find("column 'id' is bigint in the table but string"),
            std::string::npos)
      << refused.status().ToString();
  overwrite.partition_by = {"city"};
  auto repartition = WriteTable(fs_, root_, other, {batch}, overwrite);
  ASSERT_RAISES(InvalidArgument, repartition);
  EXPECT_NE(repartition.status().Message().find("overwriteSchema"), std::string::npos);

  overwrite.overwrite_schema = true;
  ASSERT_OK(WriteTable(fs_, root_, other, {batch}, overwrite));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Schema()->ToString(), other->ToString());
  EXPECT_EQ(snapshot->GetMetadata().partition_columns, std::vector<std::string>{"city"});
  for (const AddFile& add : snapshot->Files()) {
    EXPECT_EQ(add.path.rfind("city=", 0), 0u) << add.path;
  }
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"id":"a","city":"paris"})",
                                            R"({"id":"b","city":"lyon"})"}));
  // The old version keeps its schema and rows.
  ASSERT_OK_AND_ASSIGN(auto old_rows, Rows(fs_, root_, 0));
  EXPECT_EQ(old_rows.size(), 1u);
  // Without partitionBy the table becomes unpartitioned.
  TableWriteOptions unpartition;
  unpartition.mode = SaveMode::kOverwrite;
  unpartition.overwrite_schema = true;
  ASSERT_OK(WriteTable(fs_, root_, other, {batch}, unpartition));
  ASSERT_OK_AND_ASSIGN(auto flat, Snapshot::Load(fs_, root_));
  EXPECT_TRUE(flat->GetMetadata().partition_columns.empty());
  // overwriteSchema is for overwrites only.
  unpartition.mode = SaveMode::kAppend;
  ASSERT_RAISES(InvalidArgument, WriteTable(fs_, root_, other, {batch}, unpartition));
}

columnar::SchemaPtr NestedSchema(bool wider) {
  std::vector<Field> s = {Field("a", DataType::Int32())};
  std::vector<Field> x = {Field("x", DataType::Int32())};
  std::vector<Field> y = {Field("y", DataType::Int32())};
  if (wider) {
    s.emplace_back("b", DataType::String());
    x.emplace_back("z", DataType::Float64());
    y.emplace_back("w", DataType::Boolean());
  }
  return MakeSchema({Field("id", DataType::Int64()), Field("s", DataType::Struct(s)),
                     Field("arr", DataType::Array(DataType::Struct(x))),
                     Field("m", DataType::Map(DataType::String(), DataType::Struct(y)))});
}

TEST_F(TableWritesTest, MergeSchemaAddsNestedFieldsInStructsArraysAndMaps) {
  TableWriteOptions create;
  ASSERT_OK(WriteTable(
      fs_, root_, NestedSchema(false),
      {BatchFromJson(NestedSchema(false), R"([[1, [10], [[11]], [["k", [12]]]]])").ValueOrDie()},
      create));
  auto wider = NestedSchema(true);
  auto batch =
      BatchFromJson(wider, R"([[2, [20, "b"], [[21, 0.5]], [["k", [22, true]]]]])").ValueOrDie();
  TableWriteOptions append;
  append.mode = SaveMode::kAppend;
  auto refused = WriteTable(fs_, root_, wider, {batch}, append);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_NE(refused.status().Message().find("column 's.b' (string) is not in the table schema"),
            std::string::npos)
      << refused.status().ToString();
  append.merge_schema = true;
  ASSERT_OK(WriteTable(fs_, root_, wider, {batch}, append));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Schema()->ToString(), wider->ToString());
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(
      rows,
      (std::vector<std::string>{
          R"({"id":1,"s":{"a":10,"b":null},"arr":[{"x":11,"z":null}],"m":[{"key":"k","value":{"y":12,"w":null}}]})",
          R"({"id":2,"s":{"a":20,"b":"b"},"arr":[{"x":21,"z":0.5}],"m":[{"key":"k","value":{"y":22,"w":true}}]})"}));
  // Data without the new nested fields still fits: they are written as nulls.
  ASSERT_OK(WriteTable(fs_, root_, NestedSchema(false),
                       {BatchFromJson(NestedSchema(false), R"([[3, [30], [], []]])").ValueOrDie()},
                       append));
  ASSERT_OK_AND_ASSIGN(auto three, Rows(fs_, root_));
  EXPECT_EQ(three.back(), R"({"id":3,"s":{"a":30,"b":null},"arr":[],"m":[]})");
  // An incompatible nested type is refused with its path, even with mergeSchema.
  auto clash = MakeSchema(
      {Field("id", DataType::Int64()),
       Field("arr", DataType::Array(DataType::Struct({Field("x", DataType::String())})))});
  auto bad = WriteTable(fs_, root_, clash,
                        {BatchFromJson(clash, R"([[4, [["no"]]]])").ValueOrDie()}, append);
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("column 'arr.element.x' is int in the table but string"),
            std::string::npos)
      << bad.status().ToString();
}

TEST_F(TableWritesTest, MergeSchemaGivesVoidColumnsTheIncomingType) {
  auto untyped = MakeSchema({Field("id", DataType::Int64()), Field("v", DataType::Null())});
  ASSERT_OK(
      WriteTable(fs_, root_, untyped, {BatchFromJson(untyped, R"([[1, null]])").ValueOrDie()}, {}));
  auto typed = MakeSchema({Field("id", DataType::Int64()), Field("v", DataType::Int32())});
  auto batch = BatchFromJson(typed, R"([[2, 7]])").ValueOrDie();
  TableWriteOptions append;
  append.mode = SaveMode::kAppend;
  auto refused = WriteTable(fs_, root_, typed, {batch}, append);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_NE(refused.status().Message().find("column 'v' is void in the table but int"),
            std::string::npos)
      << refused.status().ToString();
  append.merge_schema = true;
  ASSERT_OK(WriteTable(fs_, root_, typed, {batch}, append));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Schema()->FieldAt(1).Type()->ToString(), "int");
  // Untyped nulls written into the typed column take its type.
  ASSERT_OK(WriteTable(fs_, root_, untyped, {BatchFromJson(untyped, R"([[3, null]])").ValueOrDie()},
                       append));
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"id":1,"v":null})", R"({"id":2,"v":7})",
                                            R"({"id":3,"v":null})"}));
}

TEST_F(TableWritesTest, MergingATimestampNtzColumnUpgradesTheProtocol) {
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")},
                       Options(SaveMode::kErrorIfExists)));
  auto wider = MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                           Field("at", DataType::TimestampNtz())});
  TableWriteOptions merge = Options(SaveMode::kAppend);
  merge.merge_schema = true;
  ASSERT_OK(WriteTable(fs_, root_, wider,
                       {BatchFromJson(wider, R"([[2, "fr", 1000000]])").ValueOrDie()}, merge));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  const Protocol& protocol = snapshot->GetProtocol();
  EXPECT_EQ(protocol.min_reader_version, 3);
  EXPECT_EQ(protocol.min_writer_version, 7);
  EXPECT_EQ(*protocol.reader_features, std::vector<std::string>{"timestampNtz"});
  EXPECT_EQ(*protocol.writer_features,
            (std::vector<std::string>{"appendOnly", "invariants", "timestampNtz"}));
  // The upgraded table stays writable.
  ASSERT_OK(WriteTable(fs_, root_, wider,
                       {BatchFromJson(wider, R"([[3, "fr", 2000000]])").ValueOrDie()}, merge));
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows.size(), 3u);
}

TEST_F(TableWritesTest, TableFeaturesComeFromTableProperties) {
  TableWriteOptions create = Options(SaveMode::kErrorIfExists);
  create.properties = {{"delta.feature.domainMetadata", "supported"}};
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")}, create));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->GetProtocol().min_reader_version, 1);
  EXPECT_EQ(snapshot->GetProtocol().min_writer_version, 7);
  EXPECT_FALSE(snapshot->GetProtocol().reader_features.has_value());
  EXPECT_EQ(*snapshot->GetProtocol().writer_features,
            (std::vector<std::string>{"appendOnly", "invariants", "domainMetadata"}));

  const std::string v2_root = dir_ + "/v2";
  create.properties = {{"delta.checkpointPolicy", "v2"}};
  ASSERT_OK(WriteTable(fs_, v2_root, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")}, create));
  ASSERT_OK_AND_ASSIGN(auto v2, Snapshot::Load(fs_, v2_root));
  EXPECT_EQ(v2->GetProtocol().min_reader_version, 3);
  EXPECT_EQ(*v2->GetProtocol().reader_features, std::vector<std::string>{"v2Checkpoint"});

  const std::string refused_root = dir_ + "/refused";
  create.properties = {{"delta.feature.columnMapping", "supported"}};
  auto refused =
      WriteTable(fs_, refused_root, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")}, create);
  ASSERT_RAISES(NotImplemented, refused);
  EXPECT_NE(refused.status().Message().find("'columnMapping'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(refused_root + "/_delta_log"));
}

// Tables with v2Checkpoint get classic-named checkpoints in the V2 layout (a checkpointMetadata
// row), which every reader understands (PROTOCOL.md "V2 Spec", classic-named V2 checkpoints).
TEST_F(TableWritesTest, V2CheckpointTablesGetClassicNamedV2Checkpoints) {
  TableWriteOptions options = Options(SaveMode::kAppend);
  options.properties = {{"delta.checkpointPolicy", "v2"}, {"delta.checkpointInterval", "2"}};
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(WriteTable(fs_, root_, EventSchema(),
                         {Events("[[" + std::to_string(i) + R"(, "fr", 1, 1.0]])")}, options));
  }
  const std::string checkpoint = root_ + "/_delta_log/00000000000000000002.checkpoint.parquet";
  ASSERT_OK_AND_ASSIGN(
      auto rows, testing::OracleQuery("SELECT checkpointMetadata.version AS v FROM "
                                      "read_parquet('" +
                                      checkpoint + "') WHERE checkpointMetadata IS NOT NULL"));
  EXPECT_EQ(rows, std::vector<std::string>{R"({"v":2})"});
  std::filesystem::remove(root_ + "/_delta_log/00000000000000000000.json");
  std::filesystem::remove(root_ + "/_delta_log/00000000000000000001.json");
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Segment().checkpoint_version, 2);
  ASSERT_OK_AND_ASSIGN(auto all, Rows(fs_, root_));
  EXPECT_EQ(all.size(), 3u);
}

TEST_F(TableWritesTest, DomainMetadataIsWrittenAndRemovedThroughTransactions) {
  TableWriteOptions create = Options(SaveMode::kErrorIfExists);
  create.properties = {{"delta.feature.domainMetadata", "supported"}};
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")}, create));
  ASSERT_OK_AND_ASSIGN(auto set, Transaction::Begin(fs_, root_));
  set->SetDomainMetadata("app.owner", R"({"team":"ingest"})");
  set->SetDomainMetadata("app.other", "x");
  ASSERT_OK_AND_ASSIGN(int64_t v1, set->Commit());
  ASSERT_OK_AND_ASSIGN(auto remove, Transaction::Begin(fs_, root_));
  remove->RemoveDomainMetadata("app.other");
  ASSERT_OK_AND_ASSIGN(int64_t v2, remove->Commit());
  ASSERT_OK_AND_ASSIGN(auto at_v1, Snapshot::Load(fs_, root_, v1));
  EXPECT_EQ(at_v1->Domains(), (std::map<std::string, std::string>{
                                  {"app.other", "x"}, {"app.owner", R"({"team":"ingest"})"}}));
  ASSERT_OK_AND_ASSIGN(auto at_v2, Snapshot::Load(fs_, root_, v2));
  EXPECT_EQ(at_v2->Domains(),
            (std::map<std::string, std::string>{{"app.owner", R"({"team":"ingest"})"}}));
  // The tombstone is in the log as the protocol spells it.
  ASSERT_OK_AND_ASSIGN(std::string commit, fs_.ReadFile(CommitPath(root_ + "/_delta_log", v2)));
  EXPECT_NE(
      commit.find(R"({"domainMetadata":{"configuration":"","domain":"app.other","removed":true}})"),
      std::string::npos)
      << commit;
}

TEST_F(TableWritesTest, DomainMetadataNeedsTheTableFeature) {
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")},
                       Options(SaveMode::kErrorIfExists)));
  ASSERT_OK_AND_ASSIGN(auto txn, Transaction::Begin(fs_, root_));
  txn->SetDomainMetadata("app.owner", "x");
  auto refused = txn->Commit();
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_NE(refused.status().Message().find("domainMetadata table feature"), std::string::npos);
}

class ConflictTest : public TableWritesTest {
 protected:
  void SetUp() override {
    TableWritesTest::SetUp();
    ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")},
                         Options(SaveMode::kErrorIfExists)));
  }

  // A transaction that appends one file (blind).
  std::unique_ptr<Transaction> Appender(TransactionOptions options = {}) {
    auto txn = Transaction::Begin(fs_, root_, std::move(options)).ValueOrDie();
    auto adds =
        WriteDataFiles(fs_, root_, EventSchema(), {"country"}, {Events(R"([[2, "fr", 2, 2.0]])")})
            .ValueOrDie();
    txn->AddFile(adds[0]);
    return txn;
  }
  // A transaction that deletes every file it read.
  std::unique_ptr<Transaction> Deleter(TransactionOptions options = {}) {
    auto txn = Transaction::Begin(fs_, root_, std::move(options)).ValueOrDie();
    txn->ReadWholeTable();
    for (const AddFile& add : txn->ReadSnapshot()->Files()) {
      RemoveFile remove;
      remove.path = add.path;
      remove.partition_values = add.partition_values;
      txn->RemoveFile(remove);
    }
    txn->SetOperation("DELETE", {});
    return txn;
  }
};

TEST_F(ConflictTest, ConcurrentChangesOfTheSameDomainConflict) {
  const std::string root = dir_ + "/domains";
  TableWriteOptions create = Options(SaveMode::kErrorIfExists);
  create.properties = {{"delta.feature.domainMetadata", "supported"}};
  ASSERT_OK(WriteTable(fs_, root, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")}, create));
  ASSERT_OK_AND_ASSIGN(auto first, Transaction::Begin(fs_, root));
  ASSERT_OK_AND_ASSIGN(auto second, Transaction::Begin(fs_, root));
  ASSERT_OK_AND_ASSIGN(auto other, Transaction::Begin(fs_, root));
  first->SetDomainMetadata("app.owner", "first");
  second->RemoveDomainMetadata("app.owner");
  other->SetDomainMetadata("app.other", "other");
  ASSERT_OK_AND_ASSIGN(int64_t won, first->Commit());
  auto lost = second->Commit();
  ASSERT_RAISES(Conflict, lost);
  EXPECT_NE(lost.status().Message().find(fmt::format("conflicts with version {}", won)),
            std::string::npos)
      << lost.status().ToString();
  EXPECT_NE(lost.status().Message().find("domain 'app.owner'"), std::string::npos);
  // A different domain does not conflict.
  ASSERT_OK(other->Commit());
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root));
  EXPECT_EQ(snapshot->Domains(),
            (std::map<std::string, std::string>{{"app.other", "other"}, {"app.owner", "first"}}));
}

TEST_F(ConflictTest, ConcurrentBlindAppendsBothCommit) {
  auto a = Appender();
  auto b = Appender();
  ASSERT_OK_AND_ASSIGN(int64_t va, a->Commit());
  ASSERT_OK_AND_ASSIGN(int64_t vb, b->Commit());
  EXPECT_EQ(va, 1);
  EXPECT_EQ(vb, 2);  // rebased on top of the winner
}

TEST_F(ConflictTest, DeleteAfterConcurrentAppendDependsOnIsolation) {
  // WriteSerializable: a blind append may commit under a delete that read the table.
  auto deleter = Deleter();
  auto appender = Appender();
  ASSERT_OK(appender->Commit());
  ASSERT_OK(deleter->Commit());
  // Serializable: the same interleaving conflicts.
  TransactionOptions serializable;
  serializable.isolation = IsolationLevel::kSerializable;
  auto strict = Deleter(serializable);
  ASSERT_OK(Appender()->Commit());
  auto result = strict->Commit();
  ASSERT_RAISES(Conflict, result);
  EXPECT_NE(result.status().Message().find("ConcurrentAppendException"), std::string::npos);
  EXPECT_NE(result.status().Message().find("conflicts with version 3"), std::string::npos)
      << result.status();
}

TEST_F(ConflictTest, TwoDeletesOfTheSameFilesConflict) {
  auto first = Deleter();
  auto second = Deleter();
  ASSERT_OK(first->Commit());
  auto result = second->Commit();
  ASSERT_RAISES(Conflict, result);
  EXPECT_NE(result.status().Message().find("ConcurrentDelete"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_TRUE(rows.empty());
}

TEST_F(ConflictTest, SameApplicationTransactionConflicts) {
  auto a = Appender();
  auto b = Appender();
  a->SetTransaction("query", 1);
  b->SetTransaction("query", 1);
  ASSERT_OK(a->Commit());
  auto result = b->Commit();
  ASSERT_RAISES(Conflict, result);
  EXPECT_NE(result.status().Message().find("ConcurrentTransactionException"), std::string::npos);
}

// Every write of an append fails or is torn in turn: the table stays at its previous version
// with nothing partial visible, and a retry succeeds.
TEST_F(TableWritesTest, CrashAtEveryWriteLeavesThePreviousVersion) {
  auto local = std::make_shared<storage::LocalFileSystem>();
  ASSERT_OK(WriteTable(*local, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")},
                       Options(SaveMode::kErrorIfExists)));
  ASSERT_OK_AND_ASSIGN(auto before, Rows(*local, root_));
  for (int64_t n = 1; n <= 12; ++n) {
    for (bool tear : {false, true}) {
      storage::FaultInjectionFileSystem faulty(local);
      if (tear) {
        faulty.TearNthWrite(n, storage::TornWriteOutcome::kNotApplied);
      } else {
        faulty.FailNthWrite(n, /*retryable=*/false);
      }
      auto result = WriteTable(faulty, root_, EventSchema(),
                               {Events(R"([[2, "de", 2, 2.0], [3, "fr", 3, 3.0]])")},
                               Options(SaveMode::kAppend));
      ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(*local, root_));
      ASSERT_OK_AND_ASSIGN(auto rows, Rows(*local, root_));
      if (result.ok()) {
        // The fault hit a write after the commit (none today) or none at all.
        EXPECT_EQ(rows.size(), before.size() + 2);
        return;
      }
      EXPECT_EQ(snapshot->Version(), 0) << "fault at write " << n;
      EXPECT_EQ(rows, before) << "fault at write " << n;
    }
  }
  // A retry without faults succeeds.
  ASSERT_OK(WriteTable(*local, root_, EventSchema(), {Events(R"([[2, "de", 2, 2.0]])")},
                       Options(SaveMode::kAppend)));
  ASSERT_OK_AND_ASSIGN(auto after, Rows(*local, root_));
  EXPECT_EQ(after.size(), before.size() + 1);
}

}  // namespace
}  // namespace tributary::delta

namespace tributary::delta {
namespace {

TEST_F(TableWritesTest, ReplaceWhereOverwritesOnlyMatchingPartitions) {
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(),
                       {Events(R"([[1, "fr", 1, 1.0], [2, "de", 1, 2.0], [3, "it", 1, 3.0]])")},
                       Options(SaveMode::kErrorIfExists)));
  TableWriteOptions replace = Options(SaveMode::kOverwrite);
  replace.replace_where =
      expr::Call(expr::Op::kEqual, {expr::Col("country"), expr::Lit(expr::Scalar::String("fr"))});
  ASSERT_OK_AND_ASSIGN(auto result, WriteTable(fs_, root_, EventSchema(),
                                               {Events(R"([[10, "fr", 2, 10.0]])")}, replace));
  EXPECT_EQ(result.files_removed, 1);
  ASSERT_OK_AND_ASSIGN(auto rows, Rows(fs_, root_));
  EXPECT_EQ(rows, (std::vector<std::string>{
                      R"({"id":10,"country":"fr","day":"1970-01-03","amount":10.0})",
                      R"({"id":2,"country":"de","day":"1970-01-02","amount":2.0})",
                      R"({"id":3,"country":"it","day":"1970-01-02","amount":3.0})"}));
  // Data outside the replaced partitions is refused, and nothing is committed.
  auto outside =
      WriteTable(fs_, root_, EventSchema(), {Events(R"([[11, "de", 2, 1.0]])")}, replace);
  ASSERT_RAISES(InvalidArgument, outside);
  EXPECT_NE(outside.status().Message().find("does not match replaceWhere"), std::string::npos);
  // A predicate on a data column is not a partition predicate.
  replace.replace_where =
      expr::Call(expr::Op::kEqual, {expr::Col("id"), expr::Lit(expr::Scalar::Int64(1))});
  ASSERT_RAISES(InvalidArgument,
                WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 2, 1.0]])")}, replace));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(fs_, root_));
  EXPECT_EQ(snapshot->Version(), 1);
}

}  // namespace
}  // namespace tributary::delta

namespace tributary::delta {
namespace {

// Snapshot::Update (only the commits after a kept snapshot) must give what a full replay gives,
// across appends with txns, an overwrite's removes, a schema change and a checkpoint.
TEST_F(TableWritesTest, SnapshotUpdateEqualsAFullReplay) {
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[1, "fr", 1, 1.0]])")},
                       Options(SaveMode::kErrorIfExists))
                .status());
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<const Snapshot> kept, Snapshot::Load(fs_, root_));
  const auto expect_same = [&](const Snapshot& updated) {
    ASSERT_OK_AND_ASSIGN(auto loaded, Snapshot::Load(fs_, root_));
    EXPECT_EQ(updated.Version(), loaded->Version());
    std::vector<std::string> updated_files;
    std::vector<std::string> loaded_files;
    for (const AddFile& add : updated.Files()) {
      updated_files.push_back(add.path);
    }
    for (const AddFile& add : loaded->Files()) {
      loaded_files.push_back(add.path);
    }
    EXPECT_EQ(updated_files, loaded_files);
    std::vector<std::string> updated_tombstones;
    std::vector<std::string> loaded_tombstones;
    for (const RemoveFile& remove : updated.Tombstones()) {
      updated_tombstones.push_back(remove.path);
    }
    for (const RemoveFile& remove : loaded->Tombstones()) {
      loaded_tombstones.push_back(remove.path);
    }
    std::sort(updated_tombstones.begin(), updated_tombstones.end());
    std::sort(loaded_tombstones.begin(), loaded_tombstones.end());
    EXPECT_EQ(updated_tombstones, loaded_tombstones);
    EXPECT_EQ(updated.Transactions(), loaded->Transactions());
    EXPECT_TRUE(updated.Schema()->Equals(*loaded->Schema()));
    EXPECT_EQ(testing::SortedRows(fs_, updated), testing::SortedRows(fs_, *loaded));
  };
  for (int i = 0; i < 12; ++i) {
    TableWriteOptions append = Options(SaveMode::kAppend);
    append.txn = std::make_pair(std::string("query"), int64_t{i});
    ASSERT_OK(WriteTable(fs_, root_, EventSchema(),
                         {Events(fmt::format(R"([[{}, "de", 2, 2.0]])", i + 10))}, append)
                  .status());
    if (i % 5 == 4) {
      ASSERT_OK_AND_ASSIGN(kept, Snapshot::Update(fs_, kept));
      expect_same(*kept);
    }
  }
  ASSERT_OK(WriteTable(fs_, root_, EventSchema(), {Events(R"([[99, "fr", 3, 3.0]])")},
                       Options(SaveMode::kOverwrite))
                .status());
  auto wider = MakeSchema({Field("id", DataType::Int64()), Field("country", DataType::String()),
                           Field("day", DataType::Date()), Field("amount", DataType::Float64()),
                           Field("note", DataType::String())});
  TableWriteOptions merge = Options(SaveMode::kAppend);
  merge.merge_schema = true;
  ASSERT_OK(WriteTable(fs_, root_, wider,
                       {BatchFromJson(wider, R"([[100, "fr", 4, 4.0, "new"]])").ValueOrDie()},
                       merge)
                .status());
  ASSERT_OK_AND_ASSIGN(auto updated, Snapshot::Update(fs_, kept));
  expect_same(*updated);
  EXPECT_EQ(updated->Schema()->NumFields(), 5);
  // Nothing new: the same snapshot back. An older version: a replay of that version.
  ASSERT_OK_AND_ASSIGN(auto again, Snapshot::Update(fs_, updated));
  EXPECT_EQ(again.get(), updated.get());
  ASSERT_OK_AND_ASSIGN(auto at_three, Snapshot::Update(fs_, updated, 3));
  EXPECT_EQ(at_three->Version(), 3);
  EXPECT_EQ(at_three->Files().size(), 4U);
}

}  // namespace
}  // namespace tributary::delta
