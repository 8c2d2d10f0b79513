// Writing a DataFrame-shaped result into a Delta table: create, append, overwrite, with
// Spark's save modes, partitioning, idempotent streaming writes (txn) and mergeSchema.

#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "delta/file_writer.h"
#include "delta/transaction.h"
#include "expr/expression.h"

namespace tributary::delta {

/// Spark's DataFrameWriter modes.
enum class SaveMode : uint8_t { kAppend, kOverwrite, kErrorIfExists, kIgnore };

struct TableWriteOptions {
  /// Default: kErrorIfExists, as Spark.
  SaveMode mode = SaveMode::kErrorIfExists;
  /// Partition columns of a new table (ignored, but checked, for an existing one). Default: none.
  std::vector<std::string> partition_by;
  /// Table properties of a new table ("delta.checkpointInterval", ...). Table features are
  /// asked for as Spark does: "delta.feature.<name>" = "supported" (appendOnly, invariants,
  /// domainMetadata, vacuumProtocolCheck, timestampNtz, v2Checkpoint, deletionVectors,
  /// changeDataFeed; any other is refused with NotImplemented) and "delta.checkpointPolicy" =
  /// "v2". delta.enableDeletionVectors = true adds the deletionVectors feature (protocol 3/7);
  /// delta.enableChangeDataFeed = true needs writer version 4, or the changeDataFeed feature
  /// on a table-features protocol. Properties that turn on a feature this writer does not
  /// write yet (delta.columnMapping.mode, delta.enableInCommitTimestamps,
  /// delta.enableRowTracking, set to anything but false/none) are refused with NotImplemented
  /// before anything is written. Default: none.
  std::map<std::string, std::string> properties;
  /// Overwrite only the rows of partitions matching this predicate over partition columns
  /// (Spark's replaceWhere); every written row must match it. Default: none (whole table).
  expr::ExprPtr replace_where;
  /// mergeSchema: add the data's new columns to the table schema (also fields nested in structs,
  /// arrays and maps of structs) and give void (NullType) columns the data's type. Without it
  /// the data must fit the table schema (columns it lacks are written as nulls). Default: false.
  bool merge_schema = false;
  /// overwriteSchema, with mode kOverwrite only: replace the table's schema with the data's and
  /// its partitioning with `partition_by` (empty: unpartitioned). Without it an overwrite must
  /// fit the table schema like an append. Default: false.
  bool overwrite_schema = false;
  /// Idempotent writes: skip when the table already holds `version` of application `app_id`
  /// (Structured Streaming's txn(appId = query id, version = batch id)). Default: none.
  std::optional<std::pair<std::string, int64_t>> txn;
  /// commitInfo.operation and operationParameters (string values, as Spark writes them), e.g.
  /// "STREAMING UPDATE" with outputMode, queryId and epochId. Default: empty, meaning "WRITE"
  /// (or "CREATE TABLE AS SELECT" for a new table) with the mode, partitionBy and predicate.
  std::string operation;
  std::map<std::string, std::string> operation_parameters;
  /// The snapshot to begin on instead of loading the latest: a writer that keeps its own
  /// (Snapshot::Update) saves a full log replay per write. May be stale (the commit then
  /// races the newer versions as any concurrent writer); null loads the latest. Default: null.
  std::shared_ptr<const Snapshot> read_snapshot;
  DataWriteOptions data;
  TransactionOptions transaction;
};

/// What a write did.
struct TableWriteResult {
  /// The version committed, or the current version when nothing was written.
  int64_t version = -1;
  bool committed = false;
  int64_t files_added = 0;
  int64_t files_removed = 0;
};

/// Writes `batches` (all in `schema`) to the table at `table_root` per `options`. With
/// `options.txn`, a table that already holds that application version is left as it is
/// whatever the mode (Delta's idempotent writes check before the save mode), and the result is
/// not `committed`. The data files are written first and become visible only with the commit; on a
/// conflict or failure nothing is visible (left-over files are unreferenced and VACUUM removes
/// them).
Result<TableWriteResult> WriteTable(storage::FileSystem& fs, const std::string& table_root,
                                    const columnar::SchemaPtr& schema,
                                    const std::vector<columnar::RecordBatchPtr>& batches,
                                    const TableWriteOptions& options);

/// Yields the rows of a write one batch at a time: the next batch, or null after the last.
using BatchSource = std::function<Result<columnar::RecordBatchPtr>()>;

/// WriteTable over batches pulled from `next` (each of `schema`) as they are written, so the
/// rows need not all be in memory at once. `next` is not called when the write is skipped
/// (txn already in the table, kIgnore on an existing table) or refused before any data.
Result<TableWriteResult> WriteTableFrom(storage::FileSystem& fs, const std::string& table_root,
                                        const columnar::SchemaPtr& schema, const BatchSource& next,
                                        const TableWriteOptions& options);

/// `batch` with `schema`'s columns in its order, matched by name, as WriteTable writes rows:
/// columns and struct fields the batch lacks become nulls, untyped nulls take the column's
/// type. `schema` is the table schema MergeSchema-style writes made from the batch's.
Result<columnar::RecordBatchPtr> ConformToSchema(const columnar::RecordBatch& batch,
                                                 const columnar::SchemaPtr& schema);

/// The protocol `protocol` must become for a table of `schema` (timestamp_ntz columns need
/// the timestampNtz feature), or nullopt when it already allows the schema.
std::optional<Protocol> ProtocolForSchema(const columnar::Schema& schema, const Protocol& protocol);

/// The protocol a new table with `schema` needs: (1, 2), or table features (3, 7) when a column
/// is timestamp_ntz.
Protocol MinimalProtocol(const columnar::Schema& schema);

}  // namespace tributary::delta
