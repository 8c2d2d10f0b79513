// Hive-style partition directories (`<root>/year=2024/country=DE/part-0.json`): the values a
// file's path gives its partition columns, the types Spark's partition discovery infers for
// them, and the typed one-row columns a file scan repeats into every batch of the file.

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/column.h"
#include "columnar/data_type.h"
#include "expr/evaluator.h"

namespace tributary::exec {

/// The directory name Hive and Spark write for a null partition value.
inline constexpr std::string_view kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

/// One `key=value` directory: the key as written, the value URL-unescaped (Spark escapes
/// `%XX` in partition paths), nullopt for __HIVE_DEFAULT_PARTITION__.
struct PartitionDirectory {
  std::string key;
  std::optional<std::string> value;
};

/// The `key=value` directories between the directory `root` and the file `path`, outermost
/// first; directories without '=' (or starting with it) are skipped. A path outside `root`
/// has none.
std::vector<PartitionDirectory> PartitionDirectories(std::string_view root, std::string_view path);

/// The type Spark's partition discovery infers from a column's `values`
/// (spark.sql.sources.partitionColumnTypeInference.enabled, the default): each value is int,
/// bigint, decimal(p,0) (integers beyond bigint), double, date (yyyy-MM-dd), timestamp
/// (yyyy-MM-dd HH:mm:ss[.fraction], in `zone`) or string, tried in that order; the column takes
/// the widest (numbers widen to each other, date to timestamp, anything else to string). Nulls
/// do not count; no non-null value gives string.
columnar::DataTypePtr InferPartitionType(const std::vector<std::optional<std::string>>& values,
                                         const expr::TimeZone& zone);

/// A one-row column of `type` holding `text` converted as CAST(text AS type) in `context`,
/// null when `text` is nullopt or does not convert (Spark's non-ANSI cast of a partition
/// value).
Result<columnar::ColumnPtr> PartitionValueColumn(const std::optional<std::string>& text,
                                                 const columnar::DataTypePtr& type,
                                                 const expr::EvalContext& context);

}  // namespace tributary::exec
