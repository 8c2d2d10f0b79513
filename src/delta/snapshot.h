// Snapshot: the state of a Delta table at one version, from log replay (PROTOCOL.md "Action
// Reconciliation").

#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/schema.h"
#include "delta/actions.h"
#include "delta/log_segment.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// `delta.columnMapping.mode`.
enum class ColumnMappingMode : uint8_t { kNone, kName, kId };

/// An immutable table state: protocol, metadata, schema, live files, transactions and domain
/// metadata at `Version()`.
///
/// Thread-safety: immutable, safe to share between threads.
class Snapshot {
 public:
  /// Replays the log of the table at `table_root` up to `version` (the latest when absent).
  /// Errors: NotFound (no table, no such version), Corruption naming the log file and line,
  /// NotImplemented naming an unsupported reader version or feature.
  static Result<std::shared_ptr<const Snapshot>> Load(storage::FileSystem& fs,
                                                      const std::string& table_root,
                                                      std::optional<int64_t> version = {});

  /// The table's state at `version` (the latest when absent) from `previous`, an older
  /// snapshot of the same table, reading only the commits after it: what a writer or stream
  /// that keeps its snapshot pays per new version. Returns `previous` when nothing is newer;
  /// falls back to a full Load when the commits after it are gone (log cleanup). Errors as Load.
  static Result<std::shared_ptr<const Snapshot>> Update(
      storage::FileSystem& fs, const std::shared_ptr<const Snapshot>& previous,
      std::optional<int64_t> version = {});

  const std::string& TableRoot() const { return table_root_; }
  int64_t Version() const { return version_; }
  const Protocol& GetProtocol() const { return protocol_; }
  const Metadata& GetMetadata() const { return metadata_; }
  /// The logical schema (schemaString), with field metadata.
  const columnar::SchemaPtr& Schema() const { return schema_; }
  ColumnMappingMode MappingMode() const { return mapping_mode_; }
  /// Live data files, in log order.
  const std::vector<AddFile>& Files() const { return files_; }
  /// Removed files still in the log (tombstones), newest per file: VACUUM keeps their data
  /// until `deletion_timestamp` is older than the retention period.
  const std::vector<RemoveFile>& Tombstones() const { return tombstones_; }
  /// Latest transaction version per appId.
  const std::map<std::string, int64_t>& Transactions() const { return transactions_; }
  /// Live domain metadata: domain -> configuration.
  const std::map<std::string, std::string>& Domains() const { return domains_; }
  const LogSegment& Segment() const { return segment_; }

  /// This snapshot with `files` as its live files and no tombstones: protocol, metadata,
  /// schema, transactions and version stay. A scan of it reads a chosen subset of files (a
  /// streaming micro-batch) exactly as a scan of the table reads them: deletion vectors,
  /// column mapping and partition values included.
  std::shared_ptr<const Snapshot> WithFiles(std::vector<AddFile> files) const;

  /// Reader features tributary implements (PROTOCOL.md "Table Features").
  static const std::vector<std::string>& SupportedReaderFeatures();

  /// Not for direct use: Load builds snapshots.
  Snapshot() = default;

  /// Log replay state (snapshot.cc).
  struct Replay;

 private:
  static Result<std::shared_ptr<const Snapshot>> Finish(Replay replay,
                                                        const std::string& table_root,
                                                        LogSegment segment);

  std::string table_root_;
  int64_t version_ = -1;
  Protocol protocol_;
  Metadata metadata_;
  columnar::SchemaPtr schema_;
  ColumnMappingMode mapping_mode_ = ColumnMappingMode::kNone;
  std::vector<AddFile> files_;
  std::vector<RemoveFile> tombstones_;
  std::map<std::string, int64_t> transactions_;
  std::map<std::string, std::string> domains_;
  LogSegment segment_;
};

}  // namespace tributary::delta
