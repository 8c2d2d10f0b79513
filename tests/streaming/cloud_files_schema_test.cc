// Auto Loader's schema (streaming/cloud_files_schema.h): the versioned store, inference from a
// sample (sizes, inferColumnTypes, hints, partition directories, the rescued-data column), and
// every schemaEvolutionMode through a restart of a real stream of JSON files into a Delta table.

#include "streaming/cloud_files_schema.h"

#include <algorithm>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "delta/snapshot.h"
#include "plan/data_sources.h"
#include "streaming/delta_sink.h"
#include "streaming/delta_tables.h"
#include "streaming/file_source.h"
#include "streaming/metadata_log.h"
#include "streaming/schema_change.h"
#include "streaming/source_fixture.h"
#include "streaming/stream_execution.h"
#include "tributary/pipeline.h"
#include "tributary/session.h"

namespace tributary::streaming {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// An Auto Loader source as the cloudFiles source holds one: the plain file source discovers
// and logs the files, and every batch is read with DefineCloudFilesSchema's scan template.
class SchemaOverFileSource final : public SourceDefinition {
 public:
  static Result<std::shared_ptr<const SourceDefinition>> Make(
      storage::FileSystem& fs, const std::string& path, const formats::OptionMap& options,
      const std::map<std::string, std::string>& session_config = {}) {
    CloudFilesSchemaRequest request;
    request.fs = &fs;
    request.format = "json";
    request.path = path;
    request.options = options;
    request.session_config = session_config;
    TRIBUTARY_ASSIGN_OR_RAISE(CloudFilesSchema schema, DefineCloudFilesSchema(request));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto files,
        FileSourceDefinition::Make(fs, "json", path, {}, schema.scan_template.files.schema, {}));
    return std::shared_ptr<const SourceDefinition>(
        new SchemaOverFileSource(std::move(files), std::move(schema)));
  }

  columnar::SchemaPtr Schema() const override { return schema_.scan_template.schema; }
  std::string Description() const override { return "AutoLoader" + files_->Description(); }
  std::string Identity() const override { return files_->Identity(); }
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override {
    TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Source> files, files_->Open(context));
    return std::unique_ptr<Source>(new Opened(std::move(files), schema_.scan_template));
  }

 private:
  class Opened final : public Source {
   public:
    Opened(std::unique_ptr<Source> files, plan::ScanSource scan_template)
        : files_(std::move(files)), template_(std::move(scan_template)) {}
    Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                               bool respect_limits) override {
      return files_->LatestOffset(start, respect_limits);
    }
    Status PrepareForTriggerAvailableNow() override {
      return files_->PrepareForTriggerAvailableNow();
    }
    Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start,
                                      const Offset& end) override {
      TRIBUTARY_ASSIGN_OR_RAISE(plan::ScanSource files, files_->GetBatch(start, end));
      plan::ScanSource batch = template_;
      batch.files.paths = std::move(files.files.paths);
      batch.description = std::move(files.description);
      return batch;
    }
    Status Commit(const Offset& end) override { return files_->Commit(end); }

   private:
    std::unique_ptr<Source> files_;
    plan::ScanSource template_;
  };

  SchemaOverFileSource(std::shared_ptr<const FileSourceDefinition> files, CloudFilesSchema schema)
      : files_(std::move(files)), schema_(std::move(schema)) {}

  std::shared_ptr<const FileSourceDefinition> files_;
  CloudFilesSchema schema_;
};

class CloudFilesSchemaTest : public testing::SourceTest {
 protected:
  std::string Landing() const { return dir_ + "/landing"; }
  std::string SchemaLocation() const { return dir_ + "/checkpoint"; }

  // A file below the landing folder, its modification time `order` seconds after a fixed
  // start, so ingestion order is the order of the calls.
  void Land(const std::string& name, const std::string& text) {
    WriteFile("landing/" + name, text, 1'700'000'000'000 + int64_t{1000} * landed_++);
  }

  Result<CloudFilesSchema> Define(formats::OptionMap options,
                                  const std::map<std::string, std::string>& config = {}) {
    CloudFilesSchemaRequest request;
    request.fs = &fs_;
    request.format = "json";
    request.path = Landing();
    request.options = std::move(options);
    request.session_config = config;
    return DefineCloudFilesSchema(request);
  }

  formats::OptionMap WithLocation(formats::OptionMap options = {}) {
    options["cloudFiles.schemaLocation"] = SchemaLocation();
    return options;
  }

  // Runs a new definition of the stream landing -> Delta table `sink` with Trigger.AvailableNow
  // (a restart, as a new job run would) until it ends; its final status.
  Status RunToEnd(const formats::OptionMap& options) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto definition, SchemaOverFileSource::Make(fs_, Landing(), options));
    TRIBUTARY_ASSIGN_OR_RAISE(auto sink, DeltaSink::Make(Sink(), {{"mergeSchema", "true"}}));
    QueryOptions query;
    query.checkpoint_location = dir_ + "/checkpoint";
    query.trigger = Trigger::AvailableNow();
    TRIBUTARY_ASSIGN_OR_RAISE(auto execution,
                              StreamExecution::Start(StreamScan(definition), std::move(sink),
                                                     std::move(query), shared_fs_));
    execution->AwaitTermination();
    return execution->Exception();
  }

  std::string Sink() const { return dir_ + "/table"; }

  std::vector<std::string> SinkRows() {
    auto rows = testing::DeltaTableRows(fs_, Sink());
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  int64_t SinkVersion() {
    auto snapshot = delta::Snapshot::Load(fs_, Sink());
    return snapshot.ok() ? (*snapshot)->Version() : -1;
  }

  std::vector<int64_t> StoredVersions() {
    auto versions = ListLogBatchIds(fs_, SchemaLocation() + "/_schemas");
    EXPECT_TRUE(versions.ok()) << versions.status().ToString();
    return versions.ok() ? *versions : std::vector<int64_t>{};
  }

  std::shared_ptr<storage::FileSystem> shared_fs_ = std::make_shared<storage::LocalFileSystem>();
  int landed_ = 0;
};

TEST_F(CloudFilesSchemaTest, StoreKeepsVersionsPutIfAbsent) {
  CloudFilesSchemaStore store(fs_, SchemaLocation());
  ASSERT_OK_AND_ASSIGN(auto none, store.Latest());
  EXPECT_FALSE(none.has_value());
  StoredSchema first{0, tributary::testing::MakeSchema({Field("a", DataType::String())}),
                     tributary::testing::MakeSchema({Field("day", DataType::String())})};
  ASSERT_OK(store.Write(first));
  StoredSchema second = first;
  second.version = 1;
  second.data = tributary::testing::MakeSchema(
      {Field("a", DataType::String()), Field("b", DataType::Int64())});
  ASSERT_OK(store.Write(second));
  EXPECT_TRUE(store.Write(first).IsAlreadyExists());

  ASSERT_OK_AND_ASSIGN(auto latest, store.Latest());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->version, 1);
  EXPECT_TRUE(latest->data->Equals(*second.data)) << latest->data->ToString();
  EXPECT_TRUE(latest->partition->Equals(*first.partition));
  ASSERT_OK_AND_ASSIGN(StoredSchema zero, store.Read(0));
  EXPECT_TRUE(zero.data->Equals(*first.data));

  ASSERT_OK_AND_ASSIGN(std::string text, fs_.ReadFile(store.VersionPath(1)));
  EXPECT_EQ(text.substr(0, 21), "v1\n{\"dataSchemaJson\":");
  EXPECT_THAT(text, HasSubstr("partitionSchemaJson"));

  ASSERT_OK(fs_.WriteFile(store.VersionPath(2), "v1\n{\"dataSchemaJson\":1}\n",
                          storage::WriteMode::kPutIfAbsent));
  auto damaged = store.Latest();
  ASSERT_TRUE(damaged.status().IsCorruption()) << damaged.status().ToString();
  EXPECT_THAT(damaged.status().Message(), HasSubstr(store.VersionPath(2) + " line 2"));
}

TEST_F(CloudFilesSchemaTest, ScansReportFieldsOutsideTheSchemaOnceAtTheEnd) {
  // JSON and CSV (header names), through the hook the evolution modes set; the hook runs after
  // the last file, once, with distinct names in order of first appearance.
  for (const std::string format : {"json", "csv"}) {
    const bool json = format == "json";
    Land("1." + format, json ? "{\"a\": \"1\", \"z\": 1}\n{\"y\": 2, \"z\": 3}\n" : "a,z\n1,2\n");
    Land("2." + format, json ? "{\"a\": \"2\", \"y\": 4}\n" : "a,y,z\n2,3,4\n");
    formats::OptionMap options = {{"header", "true"}};
    ASSERT_OK_AND_ASSIGN(
        plan::ScanSource scan,
        plan::FileScanSource(fs_, format, {Landing() + "/1." + format, Landing() + "/2." + format},
                             options,
                             tributary::testing::MakeSchema({Field("a", DataType::String())}),
                             formats::OptionDefaults::kAutoLoader));
    std::vector<std::vector<std::string>> calls;
    scan.files.on_unknown_fields = [&](const std::vector<std::string>& names,
                                       const std::vector<std::string>& paths) {
      calls.push_back(names);
      EXPECT_EQ(paths.size(), 2u);
      return Status::OK();
    };
    EXPECT_EQ(Rows(scan).size(), json ? 3u : 2u) << format;
    EXPECT_EQ(calls, (std::vector<std::vector<std::string>>{{"z", "y"}})) << format;
    std::filesystem::remove_all(Landing());
  }
}

TEST_F(CloudFilesSchemaTest, InfersStringsByDefaultStoresVersionZeroAndReusesItOnRestart) {
  Land("a.json", R"({"id": 1, "name": "x", "tags": {"k": true}})"
                 "\n");
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema schema, Define(WithLocation()));
  EXPECT_EQ(schema.scan_template.schema->ToString(),
            tributary::testing::MakeSchema(
                {Field("id", DataType::String()), Field("name", DataType::String()),
                 Field("tags", DataType::Struct({Field("k", DataType::String())})),
                 Field("_rescued_data", DataType::String())})
                ->ToString());
  EXPECT_EQ(schema.version, 0);
  EXPECT_EQ(schema.mode, SchemaEvolutionMode::kAddNewColumns);
  EXPECT_EQ(schema.num_files_sampled, 1);
  EXPECT_EQ(StoredVersions(), std::vector<int64_t>{0});

  // A restart reads the stored schema: a file with another column changes nothing, and
  // nothing is sampled.
  Land("b.json", R"({"id": 2, "extra": 3})"
                 "\n");
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema again, Define(WithLocation()));
  EXPECT_TRUE(again.scan_template.schema->Equals(*schema.scan_template.schema));
  EXPECT_EQ(again.num_files_sampled, 0);
  EXPECT_EQ(StoredVersions(), std::vector<int64_t>{0});
}

TEST_F(CloudFilesSchemaTest, InferColumnTypesAndHints) {
  Land("a.json", R"({"id": 1, "score": 1.5, "ok": true, "nested": {"n": 2}, "code": 7})"
                 "\n");
  ASSERT_OK_AND_ASSIGN(
      CloudFilesSchema schema,
      Define(WithLocation({{"cloudFiles.inferColumnTypes", "true"},
                           {"cloudFiles.schemaHints", "code STRING, added DATE"}})));
  EXPECT_EQ(schema.scan_template.schema->ToString(),
            tributary::testing::MakeSchema(
                {Field("code", DataType::String()), Field("id", DataType::Int64()),
                 Field("nested", DataType::Struct({Field("n", DataType::Int64())})),
                 Field("ok", DataType::Boolean()), Field("score", DataType::Float64()),
                 Field("added", DataType::Date()), Field("_rescued_data", DataType::String())})
                ->ToString());
  // Hints of a later definition apply over the stored schema.
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema hinted,
                       Define(WithLocation({{"schemaHints", "id STRING"}})));
  EXPECT_EQ(hinted.scan_template.schema->FieldAt(1).ToString(), "id: string");
}

TEST_F(CloudFilesSchemaTest, SampleSizeSettingsBoundTheInference) {
  Land("1.json", R"({"a": 1})"
                 "\n");
  Land("2.json", R"({"b": 2})"
                 "\n");
  Land("3.json", R"({"c": 3})"
                 "\n");
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema two,
                       Define(WithLocation(), {{std::string(kSampleNumFilesSetting), "2"}}));
  EXPECT_EQ(two.num_files_sampled, 2);
  EXPECT_EQ(two.scan_template.schema->NumFields(), 3);  // a, b, _rescued_data
  std::filesystem::remove_all(SchemaLocation());

  // numBytes stops after the file that reaches it (always at least one file).
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema one,
                       Define(WithLocation(), {{std::string(kSampleNumBytesSetting), "1"}}));
  EXPECT_EQ(one.num_files_sampled, 1);
  EXPECT_EQ(one.scan_template.schema->FieldAt(0).Name(), "a");
  std::filesystem::remove_all(SchemaLocation());

  ASSERT_OK_AND_ASSIGN(CloudFilesSchema all, Define(WithLocation()));
  EXPECT_EQ(all.num_files_sampled, 3);
  EXPECT_EQ(all.num_bytes_sampled, 3 * 9);
  std::filesystem::remove_all(SchemaLocation());

  auto bad = Define(WithLocation(), {{std::string(kSampleNumFilesSetting), "lots"}});
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_THAT(bad.status().Message(), HasSubstr("sampleSize.numFiles"));
}

TEST_F(CloudFilesSchemaTest, PartitionColumnsFromKeyValueDirectories) {
  Land("country=DE/day=1/a.json", R"({"id": 1, "country": "ignored"})"
                                  "\n");
  Land("country=FR/day=2/b.json", R"({"id": 2})"
                                  "\n");
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema schema, Define(WithLocation()));
  ASSERT_NE(schema.partition_schema, nullptr);
  EXPECT_EQ(schema.partition_schema->ToString(),
            tributary::testing::MakeSchema(
                {Field("country", DataType::String()), Field("day", DataType::String())})
                ->ToString());
  // The files' own `country` stays a data column of the schema (the scan fills the
  // directory's value into it).
  EXPECT_GE(schema.scan_template.schema->FieldIndex("country"), 0);
  CloudFilesSchemaStore store(fs_, SchemaLocation());
  ASSERT_OK_AND_ASSIGN(StoredSchema stored, store.Read(0));
  EXPECT_TRUE(stored.partition->Equals(*schema.partition_schema));

  // Conflicting layouts give none; the option names them.
  std::vector<storage::FileInfo> mixed = {{Landing() + "/country=DE/a.json", 1, 0, false},
                                          {Landing() + "/day=2/b.json", 1, 0, false}};
  EXPECT_EQ(InferPartitionColumns(Landing(), mixed)->NumFields(), 0);
  std::filesystem::remove_all(SchemaLocation());
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema named,
                       Define(WithLocation({{"cloudFiles.partitionColumns", "day"}})));
  EXPECT_EQ(named.partition_schema->ToString(),
            tributary::testing::MakeSchema({Field("day", DataType::String())})->ToString());
  EXPECT_GE(named.scan_template.schema->FieldIndex("country"), 0);
}

TEST_F(CloudFilesSchemaTest, OptionsThatCannotWork) {
  Land("a.json", R"({"a": 1})"
                 "\n");
  auto no_location = Define({});
  EXPECT_TRUE(no_location.status().IsInvalidArgument());
  EXPECT_THAT(no_location.status().Message(), HasSubstr("cloudFiles.schemaLocation"));

  CloudFilesSchemaRequest given;
  given.fs = &fs_;
  given.format = "json";
  given.path = Landing();
  given.user_schema = tributary::testing::MakeSchema({Field("a", DataType::Int64())});
  given.options = {{"cloudFiles.schemaEvolutionMode", "addNewColumns"}};
  EXPECT_THAT(DefineCloudFilesSchema(given).status().Message(), HasSubstr("addNewColumns"));
  given.options = {{"cloudFiles.schemaEvolutionMode", "sometimes"}};
  EXPECT_THAT(DefineCloudFilesSchema(given).status().Message(), HasSubstr("'sometimes'"));
  // A given schema without a location: mode none, nothing stored, the rescued-data column
  // all the same (renamed or dropped by rescuedDataColumn).
  given.options = {};
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema plain, DefineCloudFilesSchema(given));
  EXPECT_EQ(plain.mode, SchemaEvolutionMode::kNone);
  EXPECT_EQ(plain.scan_template.schema->NumFields(), 2);
  EXPECT_FALSE(plain.version.has_value());
  given.options = {{"rescuedDataColumn", ""}};
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema bare, DefineCloudFilesSchema(given));
  EXPECT_EQ(bare.scan_template.schema->NumFields(), 1);
  given.options = {{"rescuedDataColumn", "leftovers"}};
  ASSERT_OK_AND_ASSIGN(CloudFilesSchema renamed, DefineCloudFilesSchema(given));
  EXPECT_EQ(renamed.scan_template.schema->FieldAt(1).Name(), "leftovers");
}

TEST_F(CloudFilesSchemaTest, AddNewColumnsStopsRecordsTheMergedSchemaAndTheRestartLosesNothing) {
  Land("1.json", R"({"id": "1", "status": "active"})"
                 "\n");
  ASSERT_OK(RunToEnd(WithLocation()));
  EXPECT_THAT(SinkRows(), ElementsAre(R"({"id":"1","status":"active","_rescued_data":null})"));
  const int64_t version_before = SinkVersion();

  // One batch of two files, the second with two new columns and a malformed line.
  Land("2.json", R"({"id": "2", "status": "idle"})"
                 "\n");
  Land("3.json", R"({"id": "3", "status": "active", "country": "DE", "zone": {"z": 1}})"
                 "\n"
                 "{not json\n");
  Status stopped = RunToEnd(WithLocation());
  ASSERT_TRUE(IsSchemaChange(stopped)) << stopped.ToString();
  // One line naming the new columns and the stored schema version, without the sink's and the
  // engine's context repeated in front of it.
  EXPECT_THAT(stopped.Message(),
              ::testing::StartsWith("Auto Loader found new columns country, zone"));
  EXPECT_THAT(stopped.Message(), HasSubstr("schema version 1"));
  EXPECT_THAT(stopped.Message(), ::testing::Not(HasSubstr("DeltaSink")));
  EXPECT_EQ(stopped.Message().find('\n'), std::string::npos);
  // The failed batch committed nothing.
  EXPECT_EQ(SinkVersion(), version_before);
  EXPECT_EQ(StoredVersions(), (std::vector<int64_t>{0, 1}));
  CloudFilesSchemaStore store(fs_, SchemaLocation());
  ASSERT_OK_AND_ASSIGN(StoredSchema merged, store.Read(1));
  EXPECT_EQ(merged.data->ToString(),
            tributary::testing::MakeSchema(
                {Field("id", DataType::String()), Field("status", DataType::String()),
                 Field("country", DataType::String()),
                 Field("zone", DataType::Struct({Field("z", DataType::String())}))})
                ->ToString());

  // The restart re-reads the same batch (its offsets were logged) with the merged schema.
  ASSERT_OK(RunToEnd(WithLocation()));
  const std::vector<std::string> rows = SinkRows();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_THAT(rows[0], HasSubstr(R"("id":"1","status":"active","_rescued_data":null,)"
                                 R"("country":null,"zone":null)"));
  EXPECT_EQ(rows[1], R"({"id":"2","status":"idle","_rescued_data":null,"country":null,)"
                     R"("zone":null})");
  EXPECT_EQ(rows[2], R"({"id":"3","status":"active","_rescued_data":null,"country":"DE",)"
                     R"("zone":{"z":"1"}})");
  // The malformed line: one row, data columns null, its text rescued.
  EXPECT_THAT(
      rows[3],
      HasSubstr(R"({"id":null,"status":null,"_rescued_data":"{\"_corrupt_record\":\"{not json\")"));
  EXPECT_THAT(rows[3], HasSubstr("3.json"));
  ASSERT_OK_AND_ASSIGN(auto offsets, ListLogBatchIds(fs_, dir_ + "/checkpoint/offsets"));
  ASSERT_OK_AND_ASSIGN(auto commits, ListLogBatchIds(fs_, dir_ + "/checkpoint/commits"));
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 1}));  // batch 1 was re-run, not replanned
  EXPECT_EQ(commits, (std::vector<int64_t>{0, 1}));

  // Nothing new: another run writes nothing and the schema stays.
  ASSERT_OK(RunToEnd(WithLocation()));
  EXPECT_EQ(SinkRows().size(), 4u);
  EXPECT_EQ(StoredVersions(), (std::vector<int64_t>{0, 1}));
}

TEST_F(CloudFilesSchemaTest, RescueModeKeepsTheSchemaAndRescuesNewColumns) {
  const formats::OptionMap options = WithLocation({{"cloudFiles.schemaEvolutionMode", "rescue"}});
  Land("1.json", R"({"id": "1"})"
                 "\n");
  ASSERT_OK(RunToEnd(options));
  Land("2.json", R"({"id": "2", "country": "DE"})"
                 "\n");
  ASSERT_OK(RunToEnd(options));
  ASSERT_OK(RunToEnd(options));
  EXPECT_EQ(StoredVersions(), std::vector<int64_t>{0});
  const std::vector<std::string> rows = SinkRows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], R"({"id":"1","_rescued_data":null})");
  EXPECT_EQ(rows[1], R"({"id":"2","_rescued_data":"{\"country\":\"DE\",\"_file_path\":\")" +
                         Landing() + R"(/2.json\"}"})");
}

TEST_F(CloudFilesSchemaTest, FailOnNewColumnsStopsAndStaysStoppedWithTheSchemaUnchanged) {
  const formats::OptionMap options =
      WithLocation({{"cloudFiles.schemaEvolutionMode", "failOnNewColumns"}});
  Land("1.json", R"({"id": "1"})"
                 "\n");
  ASSERT_OK(RunToEnd(options));
  Land("2.json", R"({"id": "2", "country": "DE"})"
                 "\n");
  for (int attempt = 0; attempt < 2; ++attempt) {
    Status stopped = RunToEnd(options);
    ASSERT_TRUE(stopped.IsInvalidArgument()) << stopped.ToString();
    EXPECT_THAT(stopped.Message(), HasSubstr("new columns country"));
    EXPECT_THAT(stopped.Message(), HasSubstr("failOnNewColumns"));
  }
  EXPECT_EQ(StoredVersions(), std::vector<int64_t>{0});
  EXPECT_THAT(SinkRows(), ElementsAre(R"({"id":"1","_rescued_data":null})"));
}

TEST_F(CloudFilesSchemaTest, NoneModeIgnoresNewColumns) {
  // Without a rescued-data column the new column's values are dropped; the stream goes on.
  const formats::OptionMap options = WithLocation(
      {{"cloudFiles.schemaEvolutionMode", "none"}, {"cloudFiles.rescuedDataColumn", ""}});
  Land("1.json", R"({"id": "1"})"
                 "\n");
  ASSERT_OK(RunToEnd(options));
  Land("2.json", R"({"id": "2", "country": "DE"})"
                 "\n");
  ASSERT_OK(RunToEnd(options));
  ASSERT_OK(RunToEnd(options));
  EXPECT_EQ(StoredVersions(), std::vector<int64_t>{0});
  EXPECT_THAT(SinkRows(), ElementsAre(R"({"id":"1"})", R"({"id":"2"})"));
}

TEST_F(CloudFilesSchemaTest, ACaseMismatchIsRescuedNotANewColumn) {
  Land("1.json", R"({"id": "1"})"
                 "\n");
  ASSERT_OK(RunToEnd(WithLocation()));
  Land("2.json", R"({"ID": "2"})"
                 "\n");
  ASSERT_OK(RunToEnd(WithLocation()));
  EXPECT_EQ(StoredVersions(), std::vector<int64_t>{0});
  const std::vector<std::string> rows = SinkRows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_THAT(rows[1], HasSubstr(R"({"id":null,"_rescued_data":"{\"ID\":\"2\")"));
}

// The reference pipeline's shape: bronze read_files (no options beyond the format: the schema
// location is inside the table's checkpoint) -> gold STREAM(bronze), evolving end to end.
TEST_F(CloudFilesSchemaTest, PipelineBronzeToGoldEvolvesEndToEnd) {
  ASSERT_OK_AND_ASSIGN(auto session,
                       Session::Builder().Warehouse(dir_ + "/warehouse").TimeZone("UTC").Build());
  const std::string sql =
      "CREATE OR REFRESH STREAMING TABLE raw_logs AS\n"
      "  SELECT * FROM STREAM read_files('" +
      Landing() +
      "', format => 'json', inferColumnTypes => true);\n"
      "CREATE OR REFRESH STREAMING TABLE gold_active_logs AS\n"
      "  SELECT * FROM STREAM(raw_logs) WHERE status = 'active';\n";
  const auto run = [&](std::vector<std::string>* restarts) -> Status {
    TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<Pipeline> pipeline, Pipeline::Parse(session, sql));
    pipeline->OnEvent([restarts](const PipelineEvent& event) {
      if (event.kind == PipelineEvent::Kind::kSchemaRestart) {
        restarts->push_back(event.table);
      }
    });
    return pipeline->Run();
  };
  const auto rows = [&](const std::string& query) {
    auto collected = session->Sql(query).Collect();
    EXPECT_TRUE(collected.ok()) << collected.status().ToString();
    std::vector<std::string> out;
    for (const Row& row : collected.ok() ? *collected : std::vector<Row>{}) {
      out.push_back(row.ToJson());
    }
    return out;
  };

  Land("1.json", R"({"id": 1, "status": "active"})"
                 "\n"
                 R"({"id": 2, "status": "idle"})"
                 "\n");
  std::vector<std::string> restarts;
  ASSERT_OK(run(&restarts));
  EXPECT_TRUE(restarts.empty());
  EXPECT_THAT(rows("SELECT id FROM gold_active_logs"), ElementsAre(R"({"id":1})"));

  Land("2.json", R"({"id": 3, "status": "active", "device": "phone"})"
                 "\n"
                 "{oops\n");
  ASSERT_OK(run(&restarts));
  // Bronze stopped on the new column and restarted with it; gold, bound after bronze's run,
  // starts with bronze's new schema.
  EXPECT_THAT(restarts, ElementsAre("raw_logs"));
  EXPECT_THAT(rows("SELECT id, device FROM raw_logs WHERE id IS NOT NULL ORDER BY id"),
              ElementsAre(R"({"id":1,"device":null})", R"({"id":2,"device":null})",
                          R"({"id":3,"device":"phone"})"));
  const std::vector<std::string> rescued =
      rows("SELECT _rescued_data FROM raw_logs WHERE id IS NULL");
  ASSERT_EQ(rescued.size(), 1u);
  EXPECT_THAT(rescued[0], HasSubstr("{oops"));
  EXPECT_THAT(rows("SELECT id, device FROM gold_active_logs ORDER BY id"),
              ElementsAre(R"({"id":1,"device":null})", R"({"id":3,"device":"phone"})"));
  // The schema versions live in the bronze table's checkpoint.
  EXPECT_TRUE(
      std::filesystem::exists(dir_ + "/warehouse/_checkpoints/raw_logs/sources/0/_schemas/1"));
}

}  // namespace
}  // namespace tributary::streaming
