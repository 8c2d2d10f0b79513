// The change data feed (PROTOCOL.md "Add CDC File", "Change Data Files"; Delta's
// CDCReader): writing the change rows of a DML commit to _change_data/ files, and reading a
// table's changes between two versions with _change_type, _commit_version and
// _commit_timestamp.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/record_batch.h"
#include "delta/actions.h"
#include "delta/file_writer.h"
#include "delta/snapshot.h"
#include "expr/time_zone.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// The change feed's columns, after the table's own.
inline constexpr std::string_view kChangeTypeColumn = "_change_type";
inline constexpr std::string_view kCommitVersionColumn = "_commit_version";
inline constexpr std::string_view kCommitTimestampColumn = "_commit_timestamp";

/// Whether `metadata` enables the change data feed (delta.enableChangeDataFeed = true).
bool ChangeDataFeedEnabled(const Metadata& metadata);

/// Writes change rows as Parquet files under `<table_root>/_change_data/`, in Hive-style
/// partition directories of `partition_columns` as data files are (Delta's layout). Each
/// batch has `schema`'s columns (the table's logical schema) and then a string column
/// "_change_type" (which the files keep). Returns one cdc action per file (not committed).
Result<std::vector<AddCdcFile>> WriteChangeDataFiles(
    storage::FileSystem& fs, const std::string& table_root, const columnar::SchemaPtr& schema,
    const std::vector<std::string>& partition_columns,
    const std::vector<columnar::RecordBatchPtr>& change_rows, const DataWriteOptions& options = {});

struct ChangeReadOptions {
  /// Zone of zone-less timestamp partition values. Default: UTC.
  expr::TimeZone session_time_zone;
  /// Where column memory comes from. Default: the process-wide pool.
  columnar::MemoryPool* pool = columnar::DefaultMemoryPool();
};

/// The schema of a change feed read of a table with `table_schema`: its columns, then
/// _change_type (string), _commit_version (bigint), _commit_timestamp (timestamp).
columnar::SchemaPtr ChangeFeedSchema(const columnar::Schema& table_schema);

/// The changes of versions `start_version` to `end_version` (inclusive; the latest when
/// absent) of the table at `table_root`, in ChangeFeedSchema of the end version's schema, in
/// version order. Per version, as Delta's CDCReader: the commit's cdc files when it has any;
/// otherwise its dataChange adds as "insert" and dataChange removes as "delete" rows (a
/// removed file's rows as they were before the commit, deletion vectors applied); commits
/// without data changes (OPTIMIZE) give no rows. _commit_timestamp is the commit's in-commit
/// timestamp when it has one, else its log file's modification time. Errors: NotFound for a
/// version that does not exist (or whose log was cleaned up), InvalidArgument when
/// start > end, and "change data feed is not enabled" (InvalidArgument, as Delta's
/// DeltaAnalysisException) for versions written while delta.enableChangeDataFeed was off.
Result<std::vector<columnar::RecordBatchPtr>> ReadChanges(storage::FileSystem& fs,
                                                          const std::string& table_root,
                                                          int64_t start_version,
                                                          std::optional<int64_t> end_version,
                                                          const ChangeReadOptions& options = {});

/// Every live row of the table at `version` as "insert" changes of that version (a change data
/// feed stream's initial snapshot, as Delta's), in ChangeFeedSchema of that version's schema;
/// _commit_timestamp is the version's commit timestamp as in ReadChanges.
Result<std::vector<columnar::RecordBatchPtr>> ReadSnapshotAsInserts(
    storage::FileSystem& fs, const std::string& table_root, int64_t version,
    const ChangeReadOptions& options = {});

}  // namespace tributary::delta
