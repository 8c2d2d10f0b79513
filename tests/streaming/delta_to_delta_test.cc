// A Delta table streamed into another through the public API and the micro-batch engine: rate
// limits split the backlog into batches, restarts continue from the checkpoint without
// duplicates, and an additive schema change stops the stream until a restart picks it up.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "delta/history.h"
#include "streaming/delta_tables.h"
#include "support/temp_dir.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary::streaming {
namespace {

using columnar::DataType;
using columnar::Field;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class DeltaToDeltaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto session = Session::Builder().TimeZone("UTC").Build();
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = *session;
  }

  // Starts the stream source -> sink with `trigger`.
  Result<StreamingQuery> Start(Trigger trigger,
                               const std::map<std::string, std::string>& sink_options = {}) {
    DataFrame stream =
        session_->ReadStream().Format("delta").Option("maxFilesPerTrigger", "1").Load(source_);
    TRIBUTARY_RETURN_NOT_OK(stream.Status());
    return stream.WriteStream()
        .Format("delta")
        .Option("checkpointLocation", dir_.Join("checkpoint"))
        .Options(sink_options)
        .Trigger(trigger)
        .Start(sink_);
  }

  // Runs the stream with Trigger.AvailableNow until it ends; its final status.
  Status RunToEnd(const std::map<std::string, std::string>& sink_options = {}) {
    TRIBUTARY_ASSIGN_OR_RAISE(StreamingQuery query, Start(Trigger::AvailableNow(), sink_options));
    return query.AwaitTermination();
  }

  std::vector<std::string> SinkRows() {
    auto snapshot = delta::Snapshot::Load(fs_, sink_);
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    if (!snapshot.ok()) {
      return {};
    }
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kDelta;
    source.schema = (*snapshot)->Schema();
    source.snapshot = *snapshot;
    auto rows = testing::SortedRows(fs_, source);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  std::shared_ptr<Session> session_;
  std::string source_ = dir_.Join("source");
  std::string sink_ = dir_.Join("sink");
  columnar::SchemaPtr schema_ = tributary::testing::MakeSchema(
      {Field("id", DataType::Int64()), Field("p", DataType::String())});
};

TEST_F(DeltaToDeltaTest, RestartsContinueAndASchemaChangeNeedsARestart) {
  ASSERT_OK(testing::AppendRows(fs_, source_, schema_, R"([[1, "a"], [2, "b"]])", {"p"}));
  {
    ASSERT_OK_AND_ASSIGN(StreamingQuery query, Start(Trigger()));
    ASSERT_OK(query.ProcessAllAvailable());
    EXPECT_THAT(SinkRows(), ElementsAre(R"({"id":1,"p":"a"})", R"({"id":2,"p":"b"})"));
    // maxFilesPerTrigger 1: the two files of the initial snapshot came in two batches.
    ASSERT_OK_AND_ASSIGN(auto history, delta::ReadHistory(fs_, sink_));
    EXPECT_EQ(history.size(), 2u);

    // While the query runs, a row arrives, then a commit that adds a column: the row is
    // delivered, then the query stops for the schema change.
    ASSERT_OK(testing::AppendRows(fs_, source_, schema_, R"([[3, "a"]])"));
    auto wider = tributary::testing::MakeSchema({Field("id", DataType::Int64()),
                                                 Field("p", DataType::String()),
                                                 Field("note", DataType::String())});
    ASSERT_OK(testing::AppendRows(fs_, source_, wider, R"([[4, "a", "new"]])", {},
                                  /*merge_schema=*/true));
    Status stopped = query.ProcessAllAvailable();
    ASSERT_FALSE(stopped.ok());
    ASSERT_TRUE(query.StoppedBySchemaChange()) << stopped.ToString();
    EXPECT_THAT(stopped.Message(), HasSubstr("note"));
    EXPECT_FALSE(query.IsActive());
  }
  EXPECT_THAT(SinkRows(),
              ElementsAre(R"({"id":1,"p":"a"})", R"({"id":2,"p":"b"})", R"({"id":3,"p":"a"})"));

  // Restarted, the source has the new column; the sink needs mergeSchema to take it.
  Status refused = RunToEnd();
  EXPECT_THAT(refused.ToString(), HasSubstr("'note' (string)"));
  ASSERT_OK(RunToEnd({{"mergeSchema", "true"}}));
  EXPECT_THAT(SinkRows(),
              ElementsAre(R"({"id":1,"p":"a","note":null})", R"({"id":2,"p":"b","note":null})",
                          R"({"id":3,"p":"a","note":null})", R"({"id":4,"p":"a","note":"new"})"));
  // Nothing new: a further run writes nothing.
  ASSERT_OK(RunToEnd({{"mergeSchema", "true"}}));
  EXPECT_EQ(SinkRows().size(), 4u);
}

}  // namespace
}  // namespace tributary::streaming
