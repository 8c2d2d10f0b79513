// Committing row-level changes (DELETE, UPDATE, MERGE): rows of existing data files deleted,
// new rows added, and the change data of both, as one Delta commit. With deletion vectors
// enabled on the table (delta.enableDeletionVectors = true) the deleted rows of a file are a new
// deletion vector on the same file (PROTOCOL.md "Deletion Vectors"); otherwise the file is
// rewritten without them (copy-on-write). With the change data feed enabled
// (delta.enableChangeDataFeed = true) the change rows go to _change_data/ files in the same
// commit (PROTOCOL.md "Add CDC File").

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "delta/actions.h"
#include "delta/snapshot.h"
#include "delta/table_writes.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// Rows newly deleted from one live data file of the read snapshot.
struct FileRowDeletes {
  /// The file as the read snapshot holds it (its current deletion vector included).
  AddFile file;
  /// File-wide row indexes (physical row positions in the Parquet file, as
  /// TableReadOptions::row_index_column reports them) deleted by this change; ascending, no
  /// duplicates, none already deleted by the file's current deletion vector.
  std::vector<uint64_t> rows;
};

/// One row-level change of a table.
struct RowChanges {
  /// Files with deleted rows (an updated row is deleted here and added in `new_rows`).
  std::vector<FileRowDeletes> deletes;
  /// Rows to add: updated rows' new values and inserted rows, in `schema`.
  std::vector<columnar::RecordBatchPtr> new_rows;
  /// The table's logical schema after this change (the read snapshot's, or wider with MERGE
  /// schema evolution: then Metadata is updated in the same commit).
  columnar::SchemaPtr schema;
  /// Change data feed rows: `schema`'s columns, then a string column "_change_type" holding
  /// "delete", "insert", "update_preimage" or "update_postimage". Written only when the table
  /// has the change data feed enabled; ignored otherwise.
  std::vector<columnar::RecordBatchPtr> change_rows;
};

/// What the change read: conflict detection (Transaction) checks concurrent commits against it.
struct RowChangeReads {
  /// The files the operation scanned (candidates after data skipping and partition pruning),
  /// by path. A concurrent remove of one of them is ConcurrentDeleteReadException.
  std::vector<std::string> files_read;
  /// Whether a file a concurrent commit adds could hold rows the operation would have matched
  /// (the operation's predicate judged on the file's partition values and stats, as data
  /// skipping judges it). Null: every added file could (a MERGE without a target-only
  /// predicate reads the whole table).
  std::function<bool(const AddFile&)> could_match;
};

struct RowChangeOptions {
  /// commitInfo.operation ("DELETE", "UPDATE", "MERGE") and operationParameters (JSON texts
  /// as Delta writes them: predicate, matchedPredicates, ...).
  std::string operation;
  std::map<std::string, std::string> operation_parameters;
  /// commitInfo.operationMetrics, as Delta names them (numTargetRowsDeleted,
  /// numTargetFilesAdded, ...). CommitRowChanges fills in (overwriting) the file metrics:
  /// numAddedFiles, numRemovedFiles (files removed whole; a file that only gets a new deletion
  /// vector is neither), numAddedBytes, numRemovedBytes, numAddedChangeFiles,
  /// numDeletionVectorsAdded / Removed / Updated as Delta's DMLWithDeletionVectorsHelper counts
  /// them; for operation "MERGE" the same as numTargetFilesAdded, numTargetFilesRemoved,
  /// numTargetBytesAdded, numTargetBytesRemoved, numTargetChangeFilesAdded and
  /// numTargetDeletionVectors*. Row counts come from the caller.
  std::map<std::string, int64_t> operation_metrics;
  /// Idempotent writes (txnAppId, txnVersion): skipped when the table already holds it.
  std::optional<std::pair<std::string, int64_t>> txn;
  DataWriteOptions data;
  /// Isolation defaults to the table's delta.isolationLevel (WriteSerializable when unset).
  TransactionOptions transaction;
};

/// Commits `changes` against `snapshot` (the version the operation read). Deletion vectors are
/// written when DeletionVectorsEnabled(metadata) and the protocol has the deletionVectors
/// writer feature; a file whose vector would cover all its numRecords rows is removed instead.
/// Nothing is visible until the commit: data files, deletion vector files and change data files are
/// written first; a conflict or failure leaves only unreferenced files. Crash points
/// (common/crash_point.h): "dml.before_data_files", "dml.after_data_files" and
/// "dml.before_commit". A change with no deletes and no new rows commits nothing (result not
/// `committed`) unless `options.txn` or a schema change asks for a commit.
Result<TableWriteResult> CommitRowChanges(storage::FileSystem& fs,
                                          const std::shared_ptr<const Snapshot>& snapshot,
                                          const RowChanges& changes, const RowChangeReads& reads,
                                          const RowChangeOptions& options);

/// Whether `metadata` enables writing deletion vectors (delta.enableDeletionVectors = true).
bool DeletionVectorsEnabled(const Metadata& metadata);

}  // namespace tributary::delta
