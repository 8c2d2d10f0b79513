// Spark's rate source: `ReadStream().Format("rate")`, rows (timestamp TIMESTAMP, value BIGINT)
// generated at `rowsPerSecond`, for tests, demos and load.
//
// The source pins its start time in its metadata directory on the first open, so rows are a
// function of the offset alone: the offset is the number of whole seconds since the start
// (Spark's LongOffset, a bare JSON number), the rows of (a, b] are the values produced from
// second a to second b, computed again on a replay, never stored.

#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "formats/reader_options.h"
#include "streaming/source.h"

namespace tributary::streaming {

/// The rate source's options (Spark's names, ignoring case).
struct RateSourceOptions {
  /// `rowsPerSecond`: rows generated per second once ramped up. Default: 1.
  int64_t rows_per_second = 1;
  /// `rampUpTime` (a time string such as "5s"; a bare number is seconds): the rate grows
  /// linearly to rowsPerSecond over this time. Default: 0.
  int64_t ramp_up_time_seconds = 0;
  /// `numPartitions`: accepted for Spark compatibility; one thread generates every batch.
  /// Default: none.
  std::optional<int64_t> num_partitions;
};

/// The options above; InvalidArgument naming the option for a bad value.
Result<RateSourceOptions> RateSourceOptionsFromMap(const formats::OptionMap& options);

/// How many values the source has produced after `seconds` whole seconds: the ramp adds
/// rowsPerSecond / (rampUpTime + 1) rows per second each second up to rampUpTime, then the
/// rate stays at rowsPerSecond (Spark's RateStreamProvider.valueAtSecond).
int64_t RateValueAtSecond(int64_t seconds, const RateSourceOptions& options);

/// Thread-safety: immutable after construction.
class RateSourceDefinition final : public SourceDefinition {
 public:
  /// Milliseconds since the epoch.
  using Clock = std::function<int64_t()>;

  /// `clock` null means the system clock (tests pass a fake one).
  static Result<std::shared_ptr<const RateSourceDefinition>> Make(const formats::OptionMap& options,
                                                                  Clock clock = nullptr);

  columnar::SchemaPtr Schema() const override { return schema_; }
  /// "RateStreamV2[rowsPerSecond=1, rampUpTimeSeconds=0, numPartitions=default]", as Spark's.
  std::string Description() const override;
  std::string Identity() const override { return "rate"; }
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override;

  const RateSourceOptions& Options() const { return options_; }

 private:
  RateSourceDefinition(RateSourceOptions options, Clock clock);

  RateSourceOptions options_;
  Clock clock_;
  columnar::SchemaPtr schema_;
};

}  // namespace tributary::streaming
