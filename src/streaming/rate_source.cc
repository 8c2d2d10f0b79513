// The rate source. Its metadata directory `<checkpoint>/sources/<n>/` holds one file, written
// put-if-absent on the first open (Spark's HDFSMetadataLog entry 0 of RateStreamProvider):
//
//   0 := "v1" "\n" <start time: decimal milliseconds since the epoch>
//
// Offsets are a bare JSON number, the whole seconds elapsed since that start (Spark's
// LongOffset). A batch over (a, b] holds the values RateValueAtSecond(a) up to, not including,
// RateValueAtSecond(b); value v's timestamp spreads the batch's values evenly over its seconds:
// start + a s + round((v - first value) * (b - a) s / number of values), in milliseconds, as
// Spark's RateStreamMicroBatchStream computes it.

#include "streaming/rate_source.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "storage/path.h"
#include "streaming/metadata_log.h"
#include "streaming/offset_json.h"
#include "streaming/time_string.h"

namespace tributary::streaming {

namespace {

/// Rows per generated record batch.
constexpr int64_t kRowsPerBatch = int64_t{64} * 1024;

Result<int64_t> IntegerOption(const formats::OptionMap& options, std::string_view key,
                              int64_t fallback) {
  const std::string* text = formats::FindOption(options, key);
  if (text == nullptr) {
    return fallback;
  }
  int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [stop, error] = std::from_chars(text->data(), end, value);
  if (error != std::errc() || stop != end) {
    return Status::InvalidArgument(
        fmt::format("Invalid value '{}'. The option '{}' must be an integer", *text, key));
  }
  return value;
}

/// The whole seconds of a rate offset (Spark's LongOffset, a bare number); 0 for the very
/// beginning.
Result<int64_t> SecondsOfOffset(const std::optional<Offset>& offset) {
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t seconds,
                            ParseIntegerOffset(offset, "", 0, "rate source"));
  if (seconds < 0) {
    return Status::InvalidArgument(
        fmt::format("rate source offset {}: seconds since the start cannot be negative", *offset));
  }
  return seconds;
}

/// The start time pinned in `dir`, written now (`now_ms`) by the first open.
Result<int64_t> PinStartTime(storage::FileSystem& fs, const std::string& dir, int64_t now_ms) {
  const std::string path = storage::JoinPath(dir, "0");
  TRIBUTARY_ASSIGN_OR_RAISE(const std::optional<std::string> line,
                            PinLogLine(fs, path, "the start time in milliseconds",
                                       [now_ms]() -> Result<std::optional<std::string>> {
                                         return std::optional<std::string>(std::to_string(now_ms));
                                       }));
  int64_t start_ms = 0;
  const std::string text = line.value_or("");
  const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), start_ms);
  if (error == std::errc() && stop == text.data() + text.size()) {
    return start_ms;
  }
  return Status::Corruption(
      fmt::format("{} line 2: expected the start time in milliseconds", path));
}

class RateSource final : public Source {
 public:
  RateSource(RateSourceOptions options, RateSourceDefinition::Clock clock,
             columnar::SchemaPtr schema, std::string description, int64_t start_ms,
             columnar::MemoryPool* pool)
      : options_(options),
        clock_(std::move(clock)),
        schema_(std::move(schema)),
        description_(std::move(description)),
        start_ms_(start_ms),
        pool_(pool) {}

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                             bool respect_limits) override {
    (void)respect_limits;  // the clock is the only limit
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t start_seconds, SecondsOfOffset(start));
    int64_t seconds = available_now_end_.value_or(ElapsedSeconds());
    // A replayed offset may lie ahead of a clock that went back; never go backwards.
    seconds = std::max(seconds, start_seconds);
    if (seconds == 0) {
      return std::optional<Offset>();
    }
    return std::optional<Offset>(IntegerOffset("", seconds));
  }

  Status PrepareForTriggerAvailableNow() override {
    available_now_end_ = ElapsedSeconds();
    return Status::OK();
  }

  Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start,
                                    const Offset& end) override {
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t start_seconds, SecondsOfOffset(start));
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t end_seconds, SecondsOfOffset(end));
    if (end_seconds < start_seconds) {
      return Status::InvalidArgument(fmt::format("{}: batch ({}, {}] ends before it starts",
                                                 description_, start.value_or("0"), end));
    }
    const int64_t first = RateValueAtSecond(start_seconds, options_);
    const int64_t last = RateValueAtSecond(end_seconds, options_);
    const double ms_per_value = last > first
                                    ? static_cast<double>((end_seconds - start_seconds) * 1000) /
                                          static_cast<double>(last - first)
                                    : 0.0;
    const int64_t batch_start_ms = start_ms_ + start_seconds * 1000;
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kValues;
    source.schema = schema_;
    source.description = fmt::format("{} seconds {}..{}", description_, start_seconds, end_seconds);
    for (int64_t from = first; from < last; from += kRowsPerBatch) {
      const int64_t to = std::min(last, from + kRowsPerBatch);
      columnar::ColumnBuilder timestamps(columnar::DataType::Timestamp(), pool_);
      columnar::ColumnBuilder values(columnar::DataType::Int64(), pool_);
      timestamps.Reserve(to - from);
      values.Reserve(to - from);
      for (int64_t value = from; value < to; ++value) {
        const double offset_ms = static_cast<double>(value - first) * ms_per_value;
        // Java's Math.round: half up.
        const int64_t ms = batch_start_ms + static_cast<int64_t>(std::floor(offset_ms + 0.5));
        timestamps.AppendInt(ms * 1000);
        values.AppendInt(value);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr timestamp_column, timestamps.Finish());
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr value_column, values.Finish());
      TRIBUTARY_ASSIGN_OR_RAISE(
          columnar::RecordBatchPtr batch,
          columnar::RecordBatch::Make(schema_, to - from, {timestamp_column, value_column}));
      source.batches.push_back(std::move(batch));
    }
    return source;
  }

 private:
  int64_t ElapsedSeconds() {
    // Spark keeps the clock monotonic for the source.
    last_time_ms_ = std::max(last_time_ms_, clock_());
    return std::max<int64_t>(0, (last_time_ms_ - start_ms_) / 1000);
  }

  RateSourceOptions options_;
  RateSourceDefinition::Clock clock_;
  columnar::SchemaPtr schema_;
  std::string description_;
  int64_t start_ms_;
  columnar::MemoryPool* pool_;
  int64_t last_time_ms_ = std::numeric_limits<int64_t>::min();
  std::optional<int64_t> available_now_end_;
};

}  // namespace

Result<RateSourceOptions> RateSourceOptionsFromMap(const formats::OptionMap& options) {
  RateSourceOptions out;
  TRIBUTARY_ASSIGN_OR_RAISE(out.rows_per_second, IntegerOption(options, "rowsPerSecond", 1));
  if (out.rows_per_second <= 0) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value '{}'. The option 'rowsPerSecond' must be positive", out.rows_per_second));
  }
  if (const std::string* ramp = formats::FindOption(options, "rampUpTime")) {
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t micros,
                              TimeStringAsMicros("rampUpTime", *ramp, TimeStringUnit::kSeconds));
    out.ramp_up_time_seconds = micros / 1'000'000;
    if (out.ramp_up_time_seconds < 0) {
      return Status::InvalidArgument(
          fmt::format("Invalid value '{}'. The option 'rampUpTime' must not be negative", *ramp));
    }
  }
  if (formats::FindOption(options, "numPartitions") != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t partitions, IntegerOption(options, "numPartitions", 1));
    if (partitions <= 0) {
      return Status::InvalidArgument(fmt::format(
          "Invalid value '{}'. The option 'numPartitions' must be positive", partitions));
    }
    out.num_partitions = partitions;
  }
  // Spark's bound: the ramp's arithmetic must not overflow.
  if (out.ramp_up_time_seconds > std::numeric_limits<int64_t>::max() / out.rows_per_second) {
    return Status::InvalidArgument(fmt::format(
        "Max offset with {} rowsPerSecond is {}, but 'rampUpTime' is {}", out.rows_per_second,
        std::numeric_limits<int64_t>::max() / out.rows_per_second, out.ramp_up_time_seconds));
  }
  return out;
}

int64_t RateValueAtSecond(int64_t seconds, const RateSourceOptions& options) {
  const int64_t ramp = options.ramp_up_time_seconds;
  const int64_t step = options.rows_per_second / (ramp + 1);
  auto ramp_values = [step](int64_t s) {
    // step * s * (s + 1) / 2, halving the even factor first so the product stays in range.
    return s % 2 == 0 ? s / 2 * step * (s + 1) : (s + 1) / 2 * step * s;
  };
  if (seconds <= ramp) {
    return ramp_values(seconds);
  }
  return ramp_values(ramp) + (seconds - ramp) * options.rows_per_second;
}

RateSourceDefinition::RateSourceDefinition(RateSourceOptions options, Clock clock)
    : options_(options),
      clock_(std::move(clock)),
      schema_(std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{
          columnar::Field("timestamp", columnar::DataType::Timestamp()),
          columnar::Field("value", columnar::DataType::Int64())})) {}

Result<std::shared_ptr<const RateSourceDefinition>> RateSourceDefinition::Make(
    const formats::OptionMap& options, Clock clock) {
  TRIBUTARY_ASSIGN_OR_RAISE(RateSourceOptions parsed, RateSourceOptionsFromMap(options));
  if (clock == nullptr) {
    clock = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  return std::shared_ptr<const RateSourceDefinition>(
      new RateSourceDefinition(parsed, std::move(clock)));
}

std::string RateSourceDefinition::Description() const {
  return fmt::format(
      "RateStreamV2[rowsPerSecond={}, rampUpTimeSeconds={}, numPartitions={}]",
      options_.rows_per_second, options_.ramp_up_time_seconds,
      options_.num_partitions.has_value() ? std::to_string(*options_.num_partitions) : "default");
}

Result<std::unique_ptr<Source>> RateSourceDefinition::Open(const SourceContext& context) const {
  if (context.fs == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: no file system to open it on", Description()));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t start_ms,
                            PinStartTime(*context.fs, context.metadata_dir, clock_()));
  return std::unique_ptr<Source>(std::make_unique<RateSource>(
      options_, clock_, schema_, Description(), start_ms, context.eval.pool));
}

}  // namespace tributary::streaming
