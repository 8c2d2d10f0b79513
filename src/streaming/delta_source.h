// A Delta table as a streaming source, as Delta's DeltaSource: first the table as of the version
// current when the stream first starts (the initial snapshot), then the data files every later
// commit adds, in log order (../shared/notes/streaming-semantics.md §2.5).
//
// Offsets are Delta's DeltaSourceOffset JSON, so a position reads the same as in Spark:
//   {"sourceVersion":1,"reservoirId":<table id>,"reservoirVersion":V,"index":I,
//    "isStartingVersion":B}
// means "everything up to and including file I of version V has been read". With B true, V is
// the initial snapshot's version and I indexes its files, ordered by (modificationTime, path)
// as Delta orders them; with B false, I indexes the commit's add actions with dataChange=true
// in log order. I = -1 is the position before the first file of V. Once the last file of a
// version is read the offset moves to (V + 1, -1, false), so a finished commit is never read
// again. Rate limits may end a batch inside a commit; the next one continues at I + 1.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "delta/snapshot.h"
#include "streaming/source.h"

namespace tributary::streaming {

/// The options of a Delta stream source, under Delta's names (keys compare ignoring case).
struct DeltaSourceOptions {
  /// maxFilesPerTrigger: files per micro-batch. Default: 1000, or unlimited when only
  /// maxBytesPerTrigger is given.
  std::optional<int64_t> max_files_per_trigger;
  /// maxBytesPerTrigger: a soft cap on the bytes of a micro-batch (at least one file is read).
  /// Accepts byte strings such as "10m" or "1g". Default: none.
  std::optional<int64_t> max_bytes_per_trigger;
  /// startingVersion: read the changes from this commit on instead of the initial snapshot
  /// (first start only). Default: none.
  std::optional<int64_t> starting_version;
  /// startingVersion = "latest": only commits made after the first start. Default: false.
  bool starting_version_latest = false;
  /// startingTimestamp: start at the first commit at or after this time (a timestamp or date
  /// in the session time zone; first start only). Default: none.
  std::optional<std::string> starting_timestamp;
  /// ignoreDeletes: commits that only remove files (deletes) are let through. Default: false.
  bool ignore_deletes = false;
  /// ignoreChanges: commits that rewrite files re-emit the rewritten files (duplicates);
  /// deprecated in Delta in favour of skipChangeCommits. Default: false.
  bool ignore_changes = false;
  /// skipChangeCommits: commits that remove data are skipped whole. Default: false.
  bool skip_change_commits = false;
  /// failOnDataLoss: a commit the stream still needs that log cleanup removed is an error;
  /// false skips to the oldest commit left (losing data). Default: true.
  bool fail_on_data_loss = true;
  /// readChangeFeed (or readChangeData): the stream's rows are the table's change data feed
  /// (delta::ChangeFeedSchema): the initial snapshot as inserts unless a starting version or
  /// timestamp is given, then each commit's changes as delta::ReadChanges reads them. A batch
  /// holds whole commits; maxFilesPerTrigger / maxBytesPerTrigger do not split them.
  /// Default: false.
  bool read_change_feed = false;

  /// Options from a reader's option map; unknown keys are ignored (other layers share the
  /// map); a bad value is InvalidArgument naming the option and value.
  static Result<DeltaSourceOptions> FromMap(const std::map<std::string, std::string>& options);
};

/// `ReadStream().Format("delta").Load(path)`: the table at `table_root`, with the schema of its
/// latest snapshot when the definition is made. A new definition (a restart) takes the schema
/// the table has then, and continues from the checkpointed offsets.
///
/// Thread-safety: immutable after construction.
class DeltaSourceDefinition final : public SourceDefinition {
 public:
  /// Loads the table's latest snapshot. NotFound when there is no table at `table_root`;
  /// InvalidArgument for a bad option.
  static Result<std::shared_ptr<const DeltaSourceDefinition>> Make(
      storage::FileSystem& fs, std::string table_root,
      const std::map<std::string, std::string>& options);

  /// "DeltaSource[<table root>]", as Spark names it in progress reports.
  std::string Description() const override;
  columnar::SchemaPtr Schema() const override;
  /// "delta <table root>".
  std::string Identity() const override;
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override;

  const std::string& TableRoot() const { return table_root_; }
  const DeltaSourceOptions& Options() const { return options_; }
  /// The snapshot the schema comes from; every batch reads its files with this snapshot's
  /// protocol and metadata.
  const std::shared_ptr<const delta::Snapshot>& SnapshotAtDefinition() const { return snapshot_; }

 private:
  DeltaSourceDefinition(std::string table_root, DeltaSourceOptions options,
                        std::shared_ptr<const delta::Snapshot> snapshot);

  std::string table_root_;
  DeltaSourceOptions options_;
  std::shared_ptr<const delta::Snapshot> snapshot_;
};

}  // namespace tributary::streaming
