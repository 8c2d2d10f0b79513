#include "streaming/memory_source.h"

#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "streaming/source_fixture.h"
#include "support/batch_from_json.h"

namespace tributary::streaming {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::tributary::testing::BatchFromJson;
using ::tributary::testing::MakeSchema;

class MemorySourceTest : public testing::SourceTest {
 protected:
  MemorySourceTest()
      : schema_(MakeSchema({columnar::Field("id", columnar::DataType::Int64()),
                            columnar::Field("name", columnar::DataType::String())})),
        stream_(std::make_shared<MemoryStream>(schema_)) {}

  columnar::RecordBatchPtr Batch(const std::string& rows) {
    auto batch = BatchFromJson(schema_, rows);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    return batch.ok() ? *batch : nullptr;
  }

  columnar::SchemaPtr schema_;
  std::shared_ptr<MemoryStream> stream_;
};

TEST_F(MemorySourceTest, OffsetsCountBlocksAndBatchesReturnTheBlocksInRange) {
  auto definition = MemoryStream::Definition(stream_);
  EXPECT_EQ(definition->Description(), "MemoryStream[id,name]");
  ASSERT_OK_AND_ASSIGN(auto source, definition->Open(context_));
  ASSERT_OK_AND_ASSIGN(auto none, source->LatestOffset(std::nullopt, true));
  EXPECT_FALSE(none.has_value());

  ASSERT_OK_AND_ASSIGN(Offset first,
                       stream_->AddData({Batch(R"([[1,"a"]])"), Batch(R"([[2,"b"]])")}));
  EXPECT_EQ(first, R"({"offset":0})");
  ASSERT_OK_AND_ASSIGN(Offset second, stream_->AddData({Batch(R"([[3,"c"]])")}));
  EXPECT_EQ(second, R"({"offset":1})");

  ASSERT_OK_AND_ASSIGN(auto latest, source->LatestOffset(std::nullopt, true));
  EXPECT_EQ(latest, second);
  ASSERT_OK_AND_ASSIGN(plan::ScanSource all, source->GetBatch(std::nullopt, second));
  EXPECT_THAT(Rows(all), ElementsAre(R"({"id":1,"name":"a"})", R"({"id":2,"name":"b"})",
                                     R"({"id":3,"name":"c"})"));
  ASSERT_OK_AND_ASSIGN(plan::ScanSource last, source->GetBatch(first, second));
  EXPECT_THAT(Rows(last), ElementsAre(R"({"id":3,"name":"c"})"));
  ASSERT_OK_AND_ASSIGN(plan::ScanSource empty, source->GetBatch(second, second));
  EXPECT_TRUE(Rows(empty).empty());
}

TEST_F(MemorySourceTest, RejectsBatchesOfAnotherSchemaNamingTheColumn) {
  auto wrong_type =
      BatchFromJson(MakeSchema({columnar::Field("id", columnar::DataType::Int32()),
                                columnar::Field("name", columnar::DataType::String())}),
                    "[[1,\"a\"]]");
  ASSERT_OK(wrong_type);
  auto added = stream_->AddData({*wrong_type});
  ASSERT_RAISES(InvalidArgument, added);
  EXPECT_THAT(added.status().ToString(), HasSubstr("column 'id' is int"));

  auto missing =
      BatchFromJson(MakeSchema({columnar::Field("id", columnar::DataType::Int64())}), "[[1]]");
  ASSERT_OK(missing);
  added = stream_->AddData({Batch(R"([[1,"a"]])"), *missing});
  ASSERT_RAISES(InvalidArgument, added);
  EXPECT_THAT(added.status().ToString(), HasSubstr("column 'name' is missing"));

  auto renamed = BatchFromJson(MakeSchema({columnar::Field("id", columnar::DataType::Int64()),
                                           columnar::Field("label", columnar::DataType::String())}),
                               "[[1,\"a\"]]");
  ASSERT_OK(renamed);
  added = stream_->AddData({*renamed});
  ASSERT_RAISES(InvalidArgument, added);
  EXPECT_THAT(added.status().ToString(), HasSubstr("'label'"));
  // Nothing of a refused call was added.
  EXPECT_FALSE(stream_->LatestBlock().has_value());

  auto strict = std::make_shared<MemoryStream>(
      MakeSchema({columnar::Field("id", columnar::DataType::Int64(), /*nullable=*/false)}));
  auto nulls =
      BatchFromJson(MakeSchema({columnar::Field("id", columnar::DataType::Int64())}), "[[null]]");
  ASSERT_OK(nulls);
  ASSERT_RAISES(InvalidArgument, strict->AddData({*nulls}));
}

TEST_F(MemorySourceTest, CommitDiscardsBlocksButKeepsOffsets) {
  ASSERT_OK_AND_ASSIGN(auto source, MemoryStream::Definition(stream_)->Open(context_));
  ASSERT_OK_AND_ASSIGN(Offset first, stream_->AddData({Batch(R"([[1,"a"]])")}));
  ASSERT_OK(source->Commit(first));
  ASSERT_RAISES(InvalidArgument, source->GetBatch(std::nullopt, first));
  ASSERT_OK_AND_ASSIGN(Offset second, stream_->AddData({Batch(R"([[2,"b"]])")}));
  EXPECT_EQ(second, R"({"offset":1})");
  ASSERT_OK_AND_ASSIGN(plan::ScanSource batch, source->GetBatch(first, second));
  EXPECT_THAT(Rows(batch), ElementsAre(R"({"id":2,"name":"b"})"));
}

TEST_F(MemorySourceTest, AvailableNowStopsAtTheBlocksPresentWhenPrepared) {
  ASSERT_OK_AND_ASSIGN(auto source, MemoryStream::Definition(stream_)->Open(context_));
  ASSERT_OK_AND_ASSIGN(Offset first, stream_->AddData({Batch(R"([[1,"a"]])")}));
  ASSERT_OK(source->PrepareForTriggerAvailableNow());
  ASSERT_OK(stream_->AddData({Batch(R"([[2,"b"]])")}));
  ASSERT_OK_AND_ASSIGN(auto latest, source->LatestOffset(std::nullopt, true));
  EXPECT_EQ(latest, first);
}

TEST_F(MemorySourceTest, ARestartedProcessCannotReplayAMemoryStream) {
  ASSERT_OK_AND_ASSIGN(auto source, MemoryStream::Definition(stream_)->Open(context_));
  auto latest = source->LatestOffset(R"({"offset":3})", true);
  ASSERT_RAISES(InvalidArgument, latest);
  EXPECT_THAT(latest.status().ToString(), HasSubstr("cannot be replayed"));
}

TEST_F(MemorySourceTest, ConcurrentAddDataGetsDistinctOffsets) {
  constexpr int kThreads = 4;
  constexpr int kBlocksPerThread = 50;
  std::vector<std::vector<Offset>> offsets(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kBlocksPerThread; ++i) {
        auto offset = stream_->AddData({Batch("[[" + std::to_string(t) + ",\"x\"]]")});
        if (offset.ok()) {
          offsets[t].push_back(*offset);
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  std::set<Offset> distinct;
  for (const auto& list : offsets) {
    distinct.insert(list.begin(), list.end());
  }
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads * kBlocksPerThread));
  ASSERT_OK_AND_ASSIGN(auto blocks, stream_->Blocks(0, kThreads * kBlocksPerThread - 1));
  EXPECT_EQ(blocks.size(), static_cast<size_t>(kThreads * kBlocksPerThread));
}

}  // namespace
}  // namespace tributary::streaming
