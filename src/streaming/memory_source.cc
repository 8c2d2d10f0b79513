#include "streaming/memory_source.h"

#include <fmt/format.h>

#include "streaming/offset_json.h"

namespace tributary::streaming {

namespace {

constexpr std::string_view kMemoryStreamOffsetKey = "offset";

/// N of {"offset":N}; -1 (before block 0) for the very beginning.
Result<int64_t> BlockOfOffset(const std::optional<Offset>& offset) {
  return ParseIntegerOffset(offset, kMemoryStreamOffsetKey, -1, "memory stream");
}

/// The batch with exactly `schema` (its own names and types checked against it).
Result<columnar::RecordBatchPtr> ConformBatch(const columnar::SchemaPtr& schema,
                                              const columnar::RecordBatchPtr& batch) {
  if (batch == nullptr) {
    return Status::InvalidArgument("MemoryStream.AddData: a null batch");
  }
  const columnar::Schema& given = *batch->Schema();
  for (int i = 0; i < std::max(schema->NumFields(), given.NumFields()); ++i) {
    if (i >= given.NumFields()) {
      return Status::InvalidArgument(
          fmt::format("MemoryStream.AddData: column '{}' is missing (the stream's schema: {})",
                      schema->FieldAt(i).Name(), schema->AsStruct()->ToString()));
    }
    const columnar::Field& field = given.FieldAt(i);
    if (i >= schema->NumFields()) {
      return Status::InvalidArgument(
          fmt::format("MemoryStream.AddData: column '{}' is not in the stream's schema {}",
                      field.Name(), schema->AsStruct()->ToString()));
    }
    const columnar::Field& expected = schema->FieldAt(i);
    if (field.Name() != expected.Name()) {
      return Status::InvalidArgument(
          fmt::format("MemoryStream.AddData: column {} is '{}' where the stream has '{}'", i + 1,
                      field.Name(), expected.Name()));
    }
    if (!field.Type()->Equals(*expected.Type())) {
      return Status::InvalidArgument(
          fmt::format("MemoryStream.AddData: column '{}' is {} where the stream has {}",
                      field.Name(), field.Type()->ToString(), expected.Type()->ToString()));
    }
    if (!expected.Nullable() && batch->ColumnAt(i)->NullCount() > 0) {
      return Status::InvalidArgument(
          fmt::format("MemoryStream.AddData: column '{}' is NOT NULL but has {} nulls",
                      field.Name(), batch->ColumnAt(i)->NullCount()));
    }
  }
  if (given.Equals(*schema)) {
    return batch;
  }
  return columnar::RecordBatch::Make(schema, batch->NumRows(), batch->Columns());
}

class MemoryStreamSource final : public Source {
 public:
  MemoryStreamSource(std::shared_ptr<MemoryStream> stream, std::string description)
      : stream_(std::move(stream)), description_(std::move(description)) {}

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                             bool respect_limits) override {
    (void)respect_limits;  // no rate limits
    std::optional<int64_t> latest = stream_->LatestBlock();
    if (available_now_end_.has_value()) {
      latest = *available_now_end_ < 0 ? std::nullopt : available_now_end_;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t start_block, BlockOfOffset(start));
    if (start.has_value()) {
      if (!latest.has_value() || start_block > *latest) {
        // Spark's MemoryStream cannot be recovered after a restart either.
        return Status::InvalidArgument(fmt::format(
            "{}: the query is at offset {} but the stream has {} blocks: a memory stream lives "
            "in one process and cannot be replayed after a restart",
            description_, *start, latest.has_value() ? *latest + 1 : 0));
      }
    }
    if (!latest.has_value()) {
      return std::optional<Offset>();
    }
    return std::optional<Offset>(IntegerOffset(kMemoryStreamOffsetKey, *latest));
  }

  Status PrepareForTriggerAvailableNow() override {
    available_now_end_ = stream_->LatestBlock().value_or(-1);
    return Status::OK();
  }

  Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start,
                                    const Offset& end) override {
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t before, BlockOfOffset(start));
    const int64_t first = before + 1;
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t last, BlockOfOffset(end));
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kValues;
    source.schema = stream_->Schema();
    source.description = fmt::format("{} blocks {}..{}", description_, first, last);
    auto blocks = stream_->Blocks(first, last);
    if (!blocks.ok()) {
      return blocks.status().WithContext(description_);
    }
    source.batches = std::move(*blocks);
    return source;
  }

  Status Commit(const Offset& end) override {
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t last, BlockOfOffset(end));
    stream_->DiscardThrough(last);
    return Status::OK();
  }

 private:
  std::shared_ptr<MemoryStream> stream_;
  std::string description_;
  /// Trigger.AvailableNow: the newest block when it was prepared (-1: none).
  std::optional<int64_t> available_now_end_;
};

class MemoryStreamDefinition final : public SourceDefinition {
 public:
  explicit MemoryStreamDefinition(std::shared_ptr<MemoryStream> stream)
      : stream_(std::move(stream)) {}

  columnar::SchemaPtr Schema() const override { return stream_->Schema(); }

  /// "MemoryStream[a,b]", as Spark names it after its columns.
  std::string Description() const override {
    std::string names;
    for (const columnar::Field& field : stream_->Schema()->Fields()) {
      names += (names.empty() ? "" : ",") + field.Name();
    }
    return fmt::format("MemoryStream[{}]", names);
  }

  std::string Identity() const override { return "memory"; }

  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override {
    (void)context;  // nothing on disk: the blocks are the stream's
    return std::unique_ptr<Source>(std::make_unique<MemoryStreamSource>(stream_, Description()));
  }

 private:
  std::shared_ptr<MemoryStream> stream_;
};

}  // namespace

MemoryStream::MemoryStream(columnar::SchemaPtr schema) : schema_(std::move(schema)) {}

Result<Offset> MemoryStream::AddData(const std::vector<columnar::RecordBatchPtr>& batches) {
  std::vector<columnar::RecordBatchPtr> block;
  block.reserve(batches.size());
  for (const columnar::RecordBatchPtr& batch : batches) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr conformed, ConformBatch(schema_, batch));
    block.push_back(std::move(conformed));
  }
  std::lock_guard lock(mutex_);
  blocks_.push_back(std::move(block));
  return IntegerOffset(kMemoryStreamOffsetKey,
                       first_block_ + static_cast<int64_t>(blocks_.size()) - 1);
}

std::optional<int64_t> MemoryStream::LatestBlock() const {
  std::lock_guard lock(mutex_);
  const int64_t count = first_block_ + static_cast<int64_t>(blocks_.size());
  return count == 0 ? std::nullopt : std::optional<int64_t>(count - 1);
}

Result<std::vector<columnar::RecordBatchPtr>> MemoryStream::Blocks(int64_t first,
                                                                   int64_t last) const {
  std::lock_guard lock(mutex_);
  const int64_t end = first_block_ + static_cast<int64_t>(blocks_.size());
  if (first < first_block_ || last >= end || first > last + 1) {
    return Status::InvalidArgument(
        fmt::format("MemoryStream has no blocks {}..{}: it holds blocks {}..{} (earlier ones "
                    "were committed and discarded)",
                    first, last, first_block_, end - 1));
  }
  std::vector<columnar::RecordBatchPtr> out;
  for (int64_t i = first; i <= last; ++i) {
    const auto& block = blocks_[static_cast<size_t>(i - first_block_)];
    out.insert(out.end(), block.begin(), block.end());
  }
  return out;
}

void MemoryStream::DiscardThrough(int64_t last) {
  std::lock_guard lock(mutex_);
  const int64_t drop =
      std::min<int64_t>(last + 1 - first_block_, static_cast<int64_t>(blocks_.size()));
  if (drop <= 0) {
    return;
  }
  blocks_.erase(blocks_.begin(), blocks_.begin() + drop);
  first_block_ += drop;
}

std::shared_ptr<const SourceDefinition> MemoryStream::Definition(
    std::shared_ptr<MemoryStream> stream) {
  return std::make_shared<MemoryStreamDefinition>(std::move(stream));
}

}  // namespace tributary::streaming
