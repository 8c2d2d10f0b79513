#include "streaming/file_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "formats/parquet/writer.h"
#include "plan/data_sources.h"
#include "streaming/source_fixture.h"
#include "support/batch_from_json.h"

namespace tributary::streaming {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kDay = int64_t{24} * 3600 * 1000;
// 2026-01-01T00:00:00Z: a fixed base for modification times.
constexpr int64_t kBase = 1'767'225'600'000;

class FileSourceTest : public testing::SourceTest {
 protected:
  void SetUp() override {
    SourceTest::SetUp();
    input_ = dir_ + "/in";
    ASSERT_OK(fs_.CreateDir(input_));
  }

  std::shared_ptr<const FileSourceDefinition> Define(const formats::OptionMap& options = {},
                                                     const std::string& schema = "id INT") {
    columnar::SchemaPtr parsed;
    if (!schema.empty()) {
      auto ddl = plan::ParseSchemaDdl(schema);
      EXPECT_TRUE(ddl.ok()) << ddl.status().ToString();
      parsed = *ddl;
    }
    auto definition =
        FileSourceDefinition::Make(fs_, "json", input_, options, parsed, session_config_);
    EXPECT_TRUE(definition.ok()) << definition.status().ToString();
    return definition.ok() ? *definition : nullptr;
  }

  /// Writes in/<name> holding one row {"id": id} per id, with modification time `mtime_ms`.
  void WriteInput(const std::string& name, const std::vector<int>& ids, int64_t mtime_ms = kBase) {
    std::string text;
    for (int id : ids) {
      text += "{\"id\":" + std::to_string(id) + "}\n";
    }
    WriteFile("in/" + name, text, mtime_ms);
  }

  /// The rows of the batch (start, end].
  std::vector<std::string> BatchRows(Source& source, const std::optional<Offset>& start,
                                     const Offset& end) {
    auto batch = source.GetBatch(start, end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    return batch.ok() ? Rows(*batch) : std::vector<std::string>{};
  }

  /// The file names of the batch (start, end], in order.
  std::vector<std::string> BatchFiles(Source& source, const std::optional<Offset>& start,
                                      const Offset& end) {
    auto batch = source.GetBatch(start, end);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    std::vector<std::string> names;
    if (batch.ok()) {
      for (const std::string& path : batch->files.paths) {
        names.push_back(path.substr(input_.size() + 1));
      }
    }
    return names;
  }

  std::string input_;
  std::map<std::string, std::string> session_config_;
};

TEST_F(FileSourceTest, PicksUpNewFilesBatchByBatch) {
  auto definition = Define();
  EXPECT_EQ(definition->Description(), "FileStreamSource[json " + input_ + "]");
  auto source = Open(*definition);
  ASSERT_OK_AND_ASSIGN(auto none, source->LatestOffset(std::nullopt, true));
  EXPECT_FALSE(none.has_value());

  WriteInput("a.json", {1, 2});
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, R"({"logOffset":0})");
  EXPECT_THAT(BatchRows(*source, std::nullopt, *first), ElementsAre(R"({"id":1})", R"({"id":2})"));

  ASSERT_OK_AND_ASSIGN(auto same, source->LatestOffset(first, true));
  EXPECT_EQ(same, first);

  WriteInput("b.json", {3});
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  EXPECT_EQ(second, R"({"logOffset":1})");
  EXPECT_THAT(BatchRows(*source, first, *second), ElementsAre(R"({"id":3})"));
  EXPECT_THAT(BatchRows(*source, std::nullopt, *second),
              ElementsAre(R"({"id":1})", R"({"id":2})", R"({"id":3})"));
}

TEST_F(FileSourceTest, LogsEachBatchInSparksFileStreamSourceLogShape) {
  auto source = Open(*Define());
  WriteInput("a.json", {1}, kBase + 5);
  ASSERT_OK(source->LatestOffset(std::nullopt, true));
  ASSERT_OK_AND_ASSIGN(std::string log, fs_.ReadFile(context_.metadata_dir + "/0"));
  EXPECT_EQ(log, "v1\n{\"path\":\"" + input_ +
                     "/a.json\",\"timestamp\":" + std::to_string(kBase + 5) + ",\"batchId\":0}");
  // Entries are never rewritten.
  FileSourceLog file_log(fs_, context_.metadata_dir);
  FileEntry other{"x", 1, 0};
  ASSERT_RAISES(AlreadyExists, file_log.Write(0, {&other, 1}));
}

TEST_F(FileSourceTest, SkipsHiddenNamesAndListsSubdirectories) {
  WriteInput("_SUCCESS", {9});
  WriteInput(".a.json.crc", {9});
  WriteInput("_tmp/x.json", {9});
  WriteInput(".staging/y.json", {9});
  WriteInput("date=2026-01-01/part.json", {1});
  WriteInput("top.json", {2}, kBase + 1);
  auto source = Open(*Define());
  ASSERT_OK_AND_ASSIGN(auto offset, source->LatestOffset(std::nullopt, true));
  EXPECT_THAT(BatchFiles(*source, std::nullopt, *offset),
              ElementsAre("date=2026-01-01/part.json", "top.json"));
}

TEST_F(FileSourceTest, SkipsFifosAndCountsThem) {
  WriteInput("a.json", {1});
  WriteInput("sub/b.json", {2}, kBase + 1);
  ASSERT_EQ(::mkfifo((input_ + "/pipe.json").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((input_ + "/sub/pipe.json").c_str(), 0644), 0);
  auto source = Open(*Define());
  ASSERT_OK_AND_ASSIGN(auto offset, source->LatestOffset(std::nullopt, true));
  // Checked before reading: a FIFO in the batch used to block the read in open() forever.
  ASSERT_THAT(BatchFiles(*source, std::nullopt, *offset), ElementsAre("a.json", "sub/b.json"));
  EXPECT_EQ(source->Metrics().at("numNonRegularFilesSkipped"), "2");
  EXPECT_THAT(BatchRows(*source, std::nullopt, *offset), ElementsAre(R"({"id":1})", R"({"id":2})"));
  // A count over the run, as numCorruptFilesSkipped: a FIFO gone since still counts, a new one
  // adds, one listed again by a later trigger does not count twice.
  ASSERT_EQ(::unlink((input_ + "/pipe.json").c_str()), 0);
  ASSERT_EQ(::mkfifo((input_ + "/late.json").c_str(), 0644), 0);
  WriteInput("c.json", {3}, kBase + 2);
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(offset, true));
  EXPECT_EQ(source->Metrics().at("numNonRegularFilesSkipped"), "3");
  ASSERT_OK(source->LatestOffset(second, true));
  EXPECT_EQ(source->Metrics().at("numNonRegularFilesSkipped"), "3");
  // Schema inference skips them too.
  session_config_["spark.sql.streaming.schemaInference"] = "true";
  auto inferred = Define({}, "");
  ASSERT_NE(inferred, nullptr);
  EXPECT_GE(inferred->Schema()->FieldIndex("id"), 0);
}

TEST_F(FileSourceTest, MissingDirectoryIsAnEmptyStreamUntilItAppears) {
  input_ = dir_ + "/later";
  auto source = Open(*Define());
  ASSERT_OK_AND_ASSIGN(auto none, source->LatestOffset(std::nullopt, true));
  EXPECT_FALSE(none.has_value());
  WriteFile("later/a.json", "{\"id\":7}\n");
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  ASSERT_TRUE(first.has_value());
  EXPECT_THAT(BatchRows(*source, std::nullopt, *first), ElementsAre(R"({"id":7})"));
}

TEST_F(FileSourceTest, MaxFilesPerTriggerTakesOldestFirstThenByPath) {
  WriteInput("c.json", {3}, kBase + 10);
  WriteInput("b.json", {2}, kBase + 20);
  WriteInput("a.json", {1}, kBase + 20);
  WriteInput("d.json", {4}, kBase + 30);
  auto source = Open(*Define({{"maxFilesPerTrigger", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  EXPECT_THAT(BatchFiles(*source, std::nullopt, *first), ElementsAre("c.json", "a.json"));
  EXPECT_EQ(source->Metrics().at("numFilesOutstanding"), "2");
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  EXPECT_THAT(BatchFiles(*source, first, *second), ElementsAre("b.json", "d.json"));
  ASSERT_OK_AND_ASSIGN(auto third, source->LatestOffset(second, true));
  EXPECT_EQ(third, second);
}

TEST_F(FileSourceTest, WithoutLimitsTakesEverything) {
  for (int i = 0; i < 5; ++i) {
    // (Built step by step: g++ 12 warns falsely on "literal" + std::string&&.)
    std::string name = std::to_string(i);
    name += ".json";
    WriteInput(name, {i}, kBase + i);
  }
  auto source = Open(*Define({{"maxFilesPerTrigger", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto all, source->LatestOffset(std::nullopt, /*respect_limits=*/false));
  EXPECT_EQ(BatchFiles(*source, std::nullopt, *all).size(), 5u);
}

TEST_F(FileSourceTest, LatestFirstTakesNewestFiles) {
  WriteInput("old.json", {1}, kBase);
  WriteInput("mid.json", {2}, kBase + 1000);
  WriteInput("new.json", {3}, kBase + 2000);
  auto source = Open(*Define({{"maxFilesPerTrigger", "1"}, {"latestFirst", "true"}}));
  std::optional<Offset> offset;
  std::vector<std::string> order;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto next, source->LatestOffset(offset, true));
    for (std::string& name : BatchFiles(*source, offset, *next)) {
      order.push_back(std::move(name));
    }
    offset = next;
  }
  EXPECT_THAT(order, ElementsAre("new.json", "mid.json", "old.json"));
}

TEST_F(FileSourceTest, MaxBytesPerTriggerTakesAtLeastOneFile) {
  WriteInput("a.json", {1, 2, 3}, kBase);  // 24 bytes
  WriteInput("b.json", {4}, kBase + 1);    // 8 bytes
  WriteInput("c.json", {5}, kBase + 2);    // 8 bytes
  auto source = Open(*Define({{"maxBytesPerTrigger", "20"}}));
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  EXPECT_THAT(BatchFiles(*source, std::nullopt, *first), ElementsAre("a.json"));
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  EXPECT_THAT(BatchFiles(*source, first, *second), ElementsAre("b.json", "c.json"));
}

TEST_F(FileSourceTest, ReplaysTheSameFilesAfterReopening) {
  WriteInput("a.json", {1}, kBase);
  WriteInput("b.json", {2}, kBase + 1);
  auto definition = Define({{"maxFilesPerTrigger", "1"}});
  std::optional<Offset> first;
  std::optional<Offset> second;
  {
    auto source = Open(*definition);
    ASSERT_OK_AND_ASSIGN(first, source->LatestOffset(std::nullopt, true));
    ASSERT_OK_AND_ASSIGN(second, source->LatestOffset(first, true));
    ASSERT_OK(source->Commit(*second));
  }
  // A file that arrives later must not change the replayed batches.
  WriteInput("0-early-name.json", {3}, kBase - 1);
  auto reopened = Open(*definition);
  EXPECT_THAT(BatchFiles(*reopened, std::nullopt, *first), ElementsAre("a.json"));
  EXPECT_THAT(BatchFiles(*reopened, first, *second), ElementsAre("b.json"));
  EXPECT_THAT(BatchRows(*reopened, first, *second), ElementsAre(R"({"id":2})"));
  ASSERT_OK_AND_ASSIGN(auto third, reopened->LatestOffset(second, true));
  EXPECT_THAT(BatchFiles(*reopened, second, *third), ElementsAre("0-early-name.json"));
  // a.json and b.json were taken before the restart.
  ASSERT_OK_AND_ASSIGN(auto fourth, reopened->LatestOffset(third, true));
  EXPECT_EQ(fourth, third);
}

// The engine asks for the latest offset (the source logs batch 0), then dies before writing
// offsets/0. On restart it asks again from the same start: the logged batch is reused, its
// files are not taken again, and files that arrived meanwhile come in the batch after.
TEST_F(FileSourceTest, CrashBetweenLoggingAndTheEnginesOffsetsNeitherSkipsNorDuplicates) {
  for (bool respect_limits : {true, false}) {
    SCOPED_TRACE(respect_limits ? "with limits" : "without limits");
    TearDown();
    SetUp();
    WriteInput("a.json", {1}, kBase);
    auto definition = Define({{"maxFilesPerTrigger", "1"}});
    {
      auto source = Open(*definition);
      ASSERT_OK_AND_ASSIGN(auto logged, source->LatestOffset(std::nullopt, respect_limits));
      EXPECT_EQ(logged, R"({"logOffset":0})");
    }
    WriteInput("b.json", {2}, kBase + 1);
    auto restarted = Open(*definition);
    std::vector<std::vector<std::string>> batches;
    std::optional<Offset> offset;
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK_AND_ASSIGN(auto next, restarted->LatestOffset(offset, respect_limits));
      ASSERT_TRUE(next.has_value());
      if (next == offset) {
        break;
      }
      batches.push_back(BatchRows(*restarted, offset, *next));
      offset = next;
    }
    if (respect_limits) {
      // The logged batch first, within the limit, then the file that came after.
      EXPECT_THAT(batches, ElementsAre(ElementsAre(R"({"id":1})"), ElementsAre(R"({"id":2})")));
    } else {
      EXPECT_THAT(batches, ElementsAre(ElementsAre(R"({"id":1})", R"({"id":2})")));
    }
    ASSERT_OK_AND_ASSIGN(std::vector<int64_t> ids,
                         FileSourceLog(fs_, context_.metadata_dir).BatchIds());
    EXPECT_EQ(ids.size(), 2u);
  }
}

TEST_F(FileSourceTest, CrashAfterTheEnginesOffsetsContinuesAfterThem) {
  WriteInput("a.json", {1}, kBase);
  auto definition = Define();
  std::optional<Offset> first;
  {
    auto source = Open(*definition);
    ASSERT_OK_AND_ASSIGN(first, source->LatestOffset(std::nullopt, true));
  }
  // offsets/0 was written; the batch re-runs over the same range, then goes on.
  WriteInput("b.json", {2}, kBase + 1);
  auto restarted = Open(*definition);
  EXPECT_THAT(BatchRows(*restarted, std::nullopt, *first), ElementsAre(R"({"id":1})"));
  ASSERT_OK_AND_ASSIGN(auto second, restarted->LatestOffset(first, true));
  EXPECT_THAT(BatchRows(*restarted, first, *second), ElementsAre(R"({"id":2})"));
}

TEST_F(FileSourceTest, AvailableNowPinsTheFilesPresentWhenPrepared) {
  WriteInput("a.json", {1}, kBase);
  WriteInput("b.json", {2}, kBase + 1);
  auto source = Open(*Define({{"maxFilesPerTrigger", "1"}}));
  ASSERT_OK(source->PrepareForTriggerAvailableNow());
  WriteInput("c.json", {3}, kBase + 2);
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  ASSERT_OK_AND_ASSIGN(auto third, source->LatestOffset(second, true));
  EXPECT_THAT(BatchFiles(*source, std::nullopt, *second), ElementsAre("a.json", "b.json"));
  EXPECT_EQ(third, second);
  // The next run takes the file that came late.
  auto next_run = Open(*Define({{"maxFilesPerTrigger", "1"}}));
  ASSERT_OK_AND_ASSIGN(auto fourth, next_run->LatestOffset(second, true));
  EXPECT_THAT(BatchFiles(*next_run, second, *fourth), ElementsAre("c.json"));
}

TEST_F(FileSourceTest, MaxFileAgeIgnoresFilesOlderThanTheNewestByMoreThanIt) {
  WriteInput("old.json", {1}, kBase - 10 * kDay);
  WriteInput("new.json", {2}, kBase);
  auto source = Open(*Define());
  // The first batch takes every file, however old.
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  EXPECT_THAT(BatchFiles(*source, std::nullopt, *first), ElementsAre("old.json", "new.json"));
  WriteInput("stale.json", {3}, kBase - 8 * kDay);
  WriteInput("recent.json", {4}, kBase - 6 * kDay);
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  EXPECT_THAT(BatchFiles(*source, first, *second), ElementsAre("recent.json"));

  // maxFileAge=30d keeps the stale file eligible.
  TearDown();
  SetUp();
  WriteInput("new.json", {2}, kBase);
  auto lenient = Open(*Define({{"maxFileAge", "30d"}}));
  ASSERT_OK_AND_ASSIGN(first, lenient->LatestOffset(std::nullopt, true));
  WriteInput("stale.json", {3}, kBase - 8 * kDay);
  ASSERT_OK_AND_ASSIGN(second, lenient->LatestOffset(first, true));
  EXPECT_THAT(BatchFiles(*lenient, first, *second), ElementsAre("stale.json"));
}

TEST_F(FileSourceTest, FileNameOnlyTreatsAMovedFileAsSeen) {
  WriteInput("x/a.json", {1}, kBase);
  auto source = Open(*Define({{"fileNameOnly", "true"}}));
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  WriteInput("y/a.json", {1}, kBase + 1);
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  EXPECT_EQ(second, first);
}

TEST_F(FileSourceTest, JsonAndCsvNeedASchemaUnlessInferenceIsOn) {
  WriteInput("a.json", {1, 2});
  auto refused = FileSourceDefinition::Make(fs_, "json", input_, {}, nullptr, session_config_);
  ASSERT_RAISES(InvalidArgument, refused);
  EXPECT_THAT(refused.status().ToString(),
              HasSubstr("Schema must be specified when creating a streaming source DataFrame"));
  ASSERT_RAISES(InvalidArgument,
                FileSourceDefinition::Make(fs_, "csv", input_, {}, nullptr, session_config_));

  session_config_["spark.sql.streaming.schemaInference"] = "true";
  ASSERT_OK_AND_ASSIGN(
      auto inferred, FileSourceDefinition::Make(fs_, "json", input_, {}, nullptr, session_config_));
  EXPECT_EQ(inferred->Schema()->ToString(), "id: bigint\n");
  auto source = Open(*inferred);
  ASSERT_OK_AND_ASSIGN(auto offset, source->LatestOffset(std::nullopt, true));
  EXPECT_THAT(BatchRows(*source, std::nullopt, *offset), ElementsAre(R"({"id":1})", R"({"id":2})"));

  // Nothing to infer from.
  auto empty =
      FileSourceDefinition::Make(fs_, "json", dir_ + "/nothing", {}, nullptr, session_config_);
  ASSERT_RAISES(InvalidArgument, empty);
}

TEST_F(FileSourceTest, ParquetTakesTheSchemaOfTheFirstFile) {
  auto schema = ::tributary::testing::MakeSchema(
      {columnar::Field("id", columnar::DataType::Int64(), /*nullable=*/false),
       columnar::Field("name", columnar::DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto batch,
                       ::tributary::testing::BatchFromJson(schema, R"([[1,"a"],[2,"b"]])"));
  ASSERT_OK(parquet::WriteParquetFile(fs_, input_ + "/part-0.parquet", {batch}, schema));
  ASSERT_OK_AND_ASSIGN(auto definition, FileSourceDefinition::Make(fs_, "parquet", input_, {},
                                                                   nullptr, session_config_));
  // Columns become nullable, as Spark's file sources make them.
  EXPECT_EQ(definition->Schema()->ToString(), "id: bigint\nname: string\n");
  auto source = Open(*definition);
  ASSERT_OK_AND_ASSIGN(auto offset, source->LatestOffset(std::nullopt, true));
  EXPECT_THAT(BatchRows(*source, std::nullopt, *offset),
              ElementsAre(R"({"id":1,"name":"a"})", R"({"id":2,"name":"b"})"));
  ASSERT_RAISES(InvalidArgument, FileSourceDefinition::Make(fs_, "parquet", dir_ + "/nothing", {},
                                                            nullptr, session_config_));
}

TEST_F(FileSourceTest, CsvReaderOptionsApplyToEveryBatch) {
  WriteFile("in/a.csv", "id,name\n1,x\n", kBase);
  ASSERT_OK_AND_ASSIGN(
      auto definition,
      FileSourceDefinition::Make(fs_, "CSV", input_, {{"header", "true"}},
                                 *plan::ParseSchemaDdl("id INT, name STRING"), session_config_));
  EXPECT_EQ(definition->Description(), "FileStreamSource[csv " + input_ + "]");
  auto source = Open(*definition);
  ASSERT_OK_AND_ASSIGN(auto first, source->LatestOffset(std::nullopt, true));
  EXPECT_THAT(BatchRows(*source, std::nullopt, *first), ElementsAre(R"({"id":1,"name":"x"})"));
  WriteFile("in/b.csv", "id,name\n2,y\n", kBase + 1);
  ASSERT_OK_AND_ASSIGN(auto second, source->LatestOffset(first, true));
  EXPECT_THAT(BatchRows(*source, first, *second), ElementsAre(R"({"id":2,"name":"y"})"));
}

TEST_F(FileSourceTest, RejectsBadOptions) {
  for (const formats::OptionMap& options :
       {formats::OptionMap{{"maxFilesPerTrigger", "0"}},
        formats::OptionMap{{"maxFilesPerTrigger", "two"}},
        formats::OptionMap{{"maxFilesPerTrigger", "1"}, {"maxBytesPerTrigger", "10"}},
        formats::OptionMap{{"latestFirst", "yes"}}, formats::OptionMap{{"maxFileAge", "soon"}}}) {
    auto definition = FileSourceDefinition::Make(fs_, "json", input_, options,
                                                 *plan::ParseSchemaDdl("id INT"), {});
    ASSERT_RAISES(InvalidArgument, definition);
    EXPECT_THAT(definition.status().ToString(), HasSubstr(options.begin()->first));
  }
  ASSERT_RAISES(InvalidArgument, FileSourceDefinition::Make(fs_, "avro", input_, {},
                                                            *plan::ParseSchemaDdl("id INT"), {}));
}

TEST_F(FileSourceTest, RejectsADamagedLogNamingTheFile) {
  ASSERT_OK(fs_.WriteFile(context_.metadata_dir + "/0", "v1\n{\"path\":3}",
                          storage::WriteMode::kPutIfAbsent));
  auto source = Define()->Open(context_);
  ASSERT_RAISES(Corruption, source);
  EXPECT_THAT(source.status().ToString(), HasSubstr(context_.metadata_dir + "/0 line 2"));

  ASSERT_OK(fs_.WriteFile(context_.metadata_dir + "/0", "v9\n", storage::WriteMode::kReplace));
  ASSERT_RAISES(Corruption, Define()->Open(context_));
}

TEST_F(FileSourceTest, RejectsAnOffsetPastTheLog) {
  auto source = Open(*Define());
  ASSERT_RAISES(InvalidArgument, source->LatestOffset(R"({"logOffset":4})", true));
  ASSERT_RAISES(InvalidArgument, source->GetBatch(std::nullopt, R"({"logOffset":0})"));
  ASSERT_RAISES(InvalidArgument, source->LatestOffset(R"({"reservoirVersion":1})", true));
  EXPECT_THAT(BatchFiles(*source, std::nullopt, R"({"logOffset":-1})"), IsEmpty());
}

TEST_F(FileSourceTest, InMemoryTrackerPurgesOnlyWhenNewerFilesArrive) {
  InMemoryFileTracker tracker(/*max_file_age_ms=*/100, /*file_name_only=*/false);
  std::vector<FileEntry> first = {{"/a", 1000, 0}, {"/b", 950, 0}};
  ASSERT_OK(tracker.Add(first));
  ASSERT_OK(tracker.Purge());
  EXPECT_EQ(tracker.NumTracked(), 2);
  EXPECT_FALSE(tracker.IsNew({"/a", 0, 1000, false}));
  EXPECT_TRUE(tracker.IsNew({"/c", 0, 900, false}));
  EXPECT_FALSE(tracker.IsNew({"/c", 0, 899, false}));
  std::vector<FileEntry> second = {{"/d", 1060, 1}};
  ASSERT_OK(tracker.Add(second));
  ASSERT_OK(tracker.Purge());
  EXPECT_EQ(tracker.NumTracked(), 2);  // /b (950 < 960) is forgotten
  EXPECT_EQ(tracker.LastBatchRecorded(), 1);
}

}  // namespace
}  // namespace tributary::streaming
