// Delta table commands whose result is a small table: DESCRIBE HISTORY, DESCRIBE DETAIL,
// OPTIMIZE and VACUUM. They run when called (as Spark runs commands eagerly) and return a scan
// of their result rows, so the DataFrame API (DeltaTable) and SQL show the same columns.

#pragma once

#include <optional>
#include <string>

#include "plan/data_sources.h"

namespace tributary::plan {

/// A scan of in-memory rows: one batch in `schema`.
LogicalPlanPtr ValuesPlan(columnar::RecordBatchPtr batch, std::string description);

/// One row of bigint `counts` (name, value) — a statement's metrics such as INSERT's
/// num_inserted_rows; no columns and no rows when `counts` is empty (CREATE, DROP).
Result<LogicalPlanPtr> CountsPlan(const std::vector<std::pair<std::string, int64_t>>& counts,
                                  std::string description);

/// DESCRIBE HISTORY: version, timestamp, operation, operationParameters (JSON text),
/// readVersion, isBlindAppend, operationMetrics (map<string,string> of commitInfo's
/// operationMetrics, as Delta shows them; null when the commit has none), engineInfo,
/// userMetadata; newest first, at most `limit` rows when set.
Result<LogicalPlanPtr> DescribeHistory(const Catalog& catalog, const std::string& path,
                                       std::optional<int64_t> limit);

/// DESCRIBE DETAIL: format, id, name, description, location, createdAt, lastModified,
/// partitionColumns, numFiles, sizeInBytes, properties (JSON text), minReaderVersion,
/// minWriterVersion, tableFeatures.
Result<LogicalPlanPtr> DescribeDetail(const Catalog& catalog, const std::string& path,
                                      const std::string& name);

/// OPTIMIZE, optionally only partitions where `partition_filter` (over partition columns)
/// holds: path, metrics (numFilesAdded, numFilesRemoved, numRows as one row).
Result<LogicalPlanPtr> OptimizeTable(const Catalog& catalog, const std::string& path,
                                     const expr::ExprPtr& partition_filter);

/// VACUUM with a retention in hours (default 168); below 168 needs `force`. One row per
/// deleted (or, with `dry_run`, deletable) file: path.
Result<LogicalPlanPtr> VacuumTable(const Catalog& catalog, const std::string& path,
                                   std::optional<double> retention_hours, bool dry_run, bool force);

}  // namespace tributary::plan
