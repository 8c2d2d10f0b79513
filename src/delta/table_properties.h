// Table properties (`metaData.configuration`) that change how tributary maintains a table, read
// with Spark's defaults and syntax (delta-io/delta DeltaConfig.scala).

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "delta/actions.h"
#include "tributary/result.h"

namespace tributary::delta {

/// `delta.checkpointInterval` when the table does not set it (or sets something that is not a
/// positive integer). Spark's default.
inline constexpr int64_t kDefaultCheckpointInterval = 10;

/// A Spark CalendarInterval text as milliseconds: an optional "interval" keyword, then one or
/// more "<count> <unit>" pairs ("interval 30 days", "interval 1 week 12 hours"); units are
/// week, day, hour, minute, second, millisecond, microsecond, singular or plural. Months and
/// years are refused, as Spark refuses them for durations (their length varies).
/// InvalidArgument naming the text and the offending word.
Result<int64_t> ParseIntervalMillis(std::string_view text);

/// The duration property `key` of `metadata` in milliseconds, `default_ms` when unset.
/// InvalidArgument naming the key when the value does not parse.
Result<int64_t> DurationProperty(const Metadata& metadata, const std::string& key,
                                 int64_t default_ms);

/// The boolean property `key` ("true"/"false", any case), `default_value` when unset or
/// anything else.
bool BooleanProperty(const Metadata& metadata, const std::string& key, bool default_value);

/// `delta.checkpointInterval` (Default: kDefaultCheckpointInterval).
int64_t CheckpointInterval(const Metadata& metadata);

/// `delta.logRetentionDuration`: how long commits stay in the log. Default: 30 days.
inline constexpr int64_t kDefaultLogRetentionMillis = 30LL * 24 * 3600 * 1000;
/// `delta.deletedFileRetentionDuration`: how long tombstones protect removed files. Default:
/// 1 week.
inline constexpr int64_t kDefaultDeletedFileRetentionMillis = 7LL * 24 * 3600 * 1000;

}  // namespace tributary::delta
