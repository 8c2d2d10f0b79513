// Typed per-file statistics and partition values, as checkpoints carry them in
// `add.stats_parsed` and `add.partitionValues_parsed` (PROTOCOL.md "Checkpoint Schema",
// "Per-file Statistics"; Spark writes them when delta.checkpoint.writeStatsAsStruct is true,
// its default).

#pragma once

#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "delta/snapshot.h"
#include "expr/evaluator.h"

namespace tributary::delta {

/// A column of `type` from texts (null where absent) through try_cast, as a reader of the log's
/// text values would: a text that does not convert becomes null (unknown).
Result<columnar::ColumnPtr> ColumnFromTexts(const std::vector<std::optional<std::string>>& texts,
                                            const columnar::DataTypePtr& type,
                                            const expr::EvalContext& context = {});

/// The type of `add.stats_parsed` for `snapshot`'s table (Spark's stats schema):
///   struct{numRecords long, minValues S, maxValues S, nullCount N[, tightBounds boolean]}
/// where S mirrors the data columns (partition columns excluded, physical names under column
/// mapping) keeping the types with min/max statistics (numbers, date, timestamp,
/// timestamp_ntz, string) and structs that have such fields, and N has a long per column
/// (structs nest). minValues/maxValues are left out when no column has min/max; tightBounds is
/// there when the table has the deletionVectors feature.
columnar::DataTypePtr StatsParsedType(const Snapshot& snapshot);

/// The `stats_parsed` values of rows whose stats JSON is `stats` (nullopt: a null row), of
/// `type` from StatsParsedType. Values that are absent or do not convert are null.
Result<columnar::ColumnPtr> StatsParsedColumn(const columnar::DataTypePtr& type,
                                              const std::vector<std::optional<std::string>>& stats);

/// The type of `add.partitionValues_parsed`: a struct of the partition columns with their
/// types (physical names under column mapping); nullptr for an unpartitioned table.
columnar::DataTypePtr PartitionValuesParsedType(const Snapshot& snapshot);

/// The `partitionValues_parsed` values of rows with partition values `values` (nullptr: a null
/// row), of `type` from PartitionValuesParsedType. Values are read as the log spells them
/// (PROTOCOL.md "Partition Value Serialization"), timestamps without zone in UTC.
Result<columnar::ColumnPtr> PartitionValuesParsedColumn(
    const columnar::DataTypePtr& type, const std::vector<const PartitionValues*>& values);

/// The stats JSON text of row `row` of a `stats_parsed` column (its fields as JSON, timestamps
/// as ISO-8601 UTC), or nullopt when the row is null: what replay keeps as `AddFile::stats`.
std::optional<std::string> StatsJsonFromParsed(const columnar::Column& stats_parsed, int64_t row);

}  // namespace tributary::delta
