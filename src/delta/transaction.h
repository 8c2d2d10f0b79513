// Transaction: an atomic, isolated change to a Delta table by optimistic concurrency
// (PROTOCOL.md "Optimistic Concurrency Control"; conflict rules of Delta Spark's
// ConflictChecker, summarised in ../shared/notes/delta-protocol.md).

#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "delta/actions.h"
#include "delta/snapshot.h"
#include "storage/file_system.h"

namespace tributary::delta {

/// Delta's isolation levels. WriteSerializable (Delta's default) lets a blind append commit
/// concurrently with a transaction that read the table; Serializable does not.
enum class IsolationLevel : uint8_t { kWriteSerializable, kSerializable };

struct TransactionOptions {
  /// Default: the table's delta.isolationLevel ("Serializable" or "WriteSerializable"), or
  /// kWriteSerializable when the table does not set it.
  std::optional<IsolationLevel> isolation;
  /// Commit attempts before giving up on a contended table. Default: 50.
  int max_attempts = 50;
  /// commitInfo.engineInfo. Default: "tributary/0.1.0".
  std::string engine_info = "tributary/0.1.0";
};

/// Collects actions against the snapshot it began on, then commits them as the next version
/// with a put-if-absent of `_delta_log/<v>.json`. When another writer won that version, the
/// winning commits are checked for conflicts with what this transaction read and wrote; without
/// a conflict the commit is retried on top of them, otherwise Commit fails with a Conflict error
/// naming the winning version and the reason.
///
/// Thread-safety: one thread per transaction.
class Transaction {
 public:
  /// Begins on the latest snapshot of `table_root`, or on an empty table when none exists yet.
  static Result<std::unique_ptr<Transaction>> Begin(storage::FileSystem& fs, std::string table_root,
                                                    TransactionOptions options = {});
  /// Begins on `snapshot` (of `table_root`; null: a table that does not exist yet), for a
  /// writer that keeps its snapshot up to date itself (Snapshot::Update). A stale snapshot is
  /// safe: the commit then races the newer versions like any concurrent writer.
  static Result<std::unique_ptr<Transaction>> Begin(storage::FileSystem& fs, std::string table_root,
                                                    std::shared_ptr<const Snapshot> snapshot,
                                                    TransactionOptions options = {});

  /// The snapshot read, or nullptr for a table that does not exist yet.
  const Snapshot* ReadSnapshot() const { return snapshot_.get(); }
  /// The version read; -1 for a new table.
  int64_t ReadVersion() const { return snapshot_ ? snapshot_->Version() : -1; }

  void SetProtocol(Protocol protocol) { protocol_ = std::move(protocol); }
  void SetMetadata(Metadata metadata) { metadata_ = std::move(metadata); }
  void AddFile(delta::AddFile add) { adds_.push_back(std::move(add)); }
  void RemoveFile(delta::RemoveFile remove) { removes_.push_back(std::move(remove)); }
  /// A change data file (PROTOCOL.md "Add CDC File") written for this commit.
  void AddCdcFile(delta::AddCdcFile cdc) { cdcs_.push_back(std::move(cdc)); }
  /// Records that this transaction's output is version `version` of application `app_id`
  /// (streaming sinks make writes idempotent with it).
  void SetTransaction(std::string app_id, int64_t version);
  /// Sets the configuration of domain `domain` (a domainMetadata action, PROTOCOL.md "Domain
  /// Metadata"); the table must support the domainMetadata writer feature. Names starting with
  /// "delta." are system domains: only set those with the meaning the protocol gives them.
  /// A concurrent commit that also changes `domain` makes Commit fail with Conflict.
  void SetDomainMetadata(std::string domain, std::string configuration);
  /// Removes domain `domain` (a domainMetadata tombstone, removed = true).
  void RemoveDomainMetadata(std::string domain);
  /// The result depends on every file of the table (overwrite, delete): concurrent changes to
  /// any file conflict.
  void ReadWholeTable();
  /// The result depends on the files of partitions matching `predicate` (replaceWhere).
  void ReadPartitions(std::function<bool(const PartitionValues&)> predicate);
  /// The result depends on the files `paths` (by path, as the snapshot holds them) and on any
  /// file a concurrent commit adds for which `could_match` is true (null: every added file), as
  /// a DELETE, UPDATE or MERGE reads: a concurrent remove of a read file is
  /// ConcurrentDeleteReadException, a matching concurrent add ConcurrentAppendException (under
  /// WriteSerializable only when the adding commit is not a blind append).
  void ReadFiles(std::vector<std::string> paths,
                 std::function<bool(const delta::AddFile&)> could_match);
  /// commitInfo.operationMetrics (Delta writes every value as a string).
  void SetOperationMetrics(std::map<std::string, std::string> metrics) {
    operation_metrics_ = std::move(metrics);
  }
  /// commitInfo.operation and operationParameters (values are JSON texts or strings).
  void SetOperation(std::string operation, std::map<std::string, std::string> parameters);

  /// Commits; returns the version written.
  Result<int64_t> Commit();

 private:
  Transaction(storage::FileSystem& fs, std::string table_root,
              std::shared_ptr<const Snapshot> snapshot, TransactionOptions options);

  bool IsBlindAppend() const;
  std::string Serialize() const;
  Status CheckConflict(int64_t version, const std::vector<Action>& winner) const;
  /// Writes a checkpoint when `version` is a multiple of delta.checkpointInterval, then cleans up
  /// expired log files.
  void MaybeCheckpoint(int64_t version) const;

  storage::FileSystem& fs_;
  std::string table_root_;
  std::shared_ptr<const Snapshot> snapshot_;
  TransactionOptions options_;
  IsolationLevel isolation_;  // options_.isolation, or the table's
  std::optional<Protocol> protocol_;
  std::optional<Metadata> metadata_;
  std::vector<delta::AddFile> adds_;
  std::vector<delta::RemoveFile> removes_;
  std::vector<delta::AddCdcFile> cdcs_;
  std::map<std::string, int64_t> txns_;
  std::map<std::string, DomainMetadata> domains_;
  bool read_whole_table_ = false;
  std::function<bool(const PartitionValues&)> read_predicate_;
  bool read_files_set_ = false;          // ReadFiles was called
  std::vector<std::string> read_files_;  // sorted
  std::function<bool(const delta::AddFile&)> could_match_;
  std::map<std::string, std::string> operation_metrics_;
  std::string operation_ = "WRITE";
  std::map<std::string, std::string> operation_parameters_;
  std::string txn_id_;
};

}  // namespace tributary::delta
