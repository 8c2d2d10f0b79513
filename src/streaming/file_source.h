// Spark's plain file stream source: `ReadStream().Format("json"|"csv"|"parquet").Load(dir)`.
//
// Each trigger lists the directory (recursively, skipping names that start with "_" or "."),
// keeps the files no earlier batch took (the FileTracker), orders them by modification time
// then path (newest first with latestFirst), cuts them to the rate limit and records them as
// the next entry of the source log in `<checkpoint>/sources/<n>/` before the engine writes its
// offsets: the log is the write-ahead of the file lists, so a batch re-run after a crash reads
// exactly the files logged for its range. Offsets are Spark's FileStreamSourceOffset,
// {"logOffset":N}, N the source log's batch id. The Auto Loader source (cloudFiles) grows from
// this one: other trackers, more options, the same log and offsets.

#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/reader_options.h"
#include "plan/logical_plan.h"
#include "streaming/source.h"

namespace tributary::streaming {

/// One file of a source log entry: Spark's FileStreamSource.FileEntry.
struct FileEntry {
  std::string path;
  /// Modification time, milliseconds since the epoch (Spark's "timestamp").
  int64_t modification_time_ms = 0;
  /// The source log batch that took the file.
  int64_t batch_id = 0;
  /// Bytes in the file when it was taken; -1 when unknown (Spark's log does not keep it, so
  /// the plain file source leaves it out; Auto Loader logs it to notice overwrites).
  int64_t size = -1;

  bool operator==(const FileEntry& other) const = default;
};

/// Which files a file stream source has already assigned to a batch ("seen files"), so each
/// file is read once. The source records every file of a log entry after the entry is durable;
/// on open it records the entries of the log after LastBatchRecorded() (an in-memory tracker
/// remembers nothing, a persistent one only what the log has that it lacks).
///
/// Implementations must keep IsNew cheap (it runs once per listed file and trigger), so that a
/// trigger costs what its listing costs, not what was ingested before.
///
/// Thread-safety: used from the query's thread only.
class FileTracker {
 public:
  virtual ~FileTracker() = default;
  /// Whether `file`, just listed, is still to be ingested.
  virtual bool IsNew(const storage::FileInfo& file) const = 0;
  /// Remembers that `files` (all of one log batch) were taken.
  virtual Status Add(std::span<const FileEntry> files) = 0;
  /// The newest log batch whose files were added (-1: none); the source replays the log after
  /// it on open.
  virtual int64_t LastBatchRecorded() const = 0;
  /// Once per trigger, after the trigger's files were added: forgets what can no longer be
  /// listed as new (entries older than maxFileAge). An error is the trigger's.
  virtual Status Purge() = 0;
  /// How many files it remembers.
  virtual int64_t NumTracked() const = 0;
};

/// Spark's seen-files map: path -> modification time in memory, rebuilt from the whole log on
/// open. With a maximum age, files older than (newest file seen - age) are forgotten and, from
/// then on, never new again (Spark's maxFileAge, relative to the newest file, not the clock).
class InMemoryFileTracker final : public FileTracker {
 public:
  /// `max_file_age_ms`: nullopt never forgets. `file_name_only`: a file is known by its name,
  /// not its path (Spark's fileNameOnly).
  InMemoryFileTracker(std::optional<int64_t> max_file_age_ms, bool file_name_only);

  bool IsNew(const storage::FileInfo& file) const override;
  Status Add(std::span<const FileEntry> files) override;
  int64_t LastBatchRecorded() const override { return last_batch_; }
  Status Purge() override;
  int64_t NumTracked() const override { return static_cast<int64_t>(seen_.size()); }

 private:
  std::string_view Key(std::string_view path) const;

  std::optional<int64_t> max_file_age_ms_;
  bool file_name_only_;
  /// Hashes std::string and string_view alike, so a lookup does not copy the listed path.
  struct KeyHash {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): the std protocol name
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>()(key); }
  };
  std::unordered_map<std::string, int64_t, KeyHash, std::equal_to<>> seen_;
  int64_t last_batch_ = -1;
  std::optional<int64_t> newest_ms_;
  /// Files older than this are not new (after the first purge).
  std::optional<int64_t> purged_below_ms_;
};

/// The source log: one file per log batch at `<dir>/<batchId>` (Spark's FileStreamSourceLog
/// shape, grammar in file_source.cc), written put-if-absent.
class FileSourceLog {
 public:
  FileSourceLog(storage::FileSystem& fs, std::string dir);
  /// Writes batch `batch_id`'s entry. AlreadyExists (nothing written) when it exists.
  Status Write(int64_t batch_id, std::span<const FileEntry> files);
  /// The files of batch `batch_id`; NotFound when it was never written, Corruption naming the
  /// file and line for a damaged one.
  Result<std::vector<FileEntry>> Read(int64_t batch_id);
  /// The batch ids present, ascending (no directory: none).
  Result<std::vector<int64_t>> BatchIds();
  std::string BatchPath(int64_t batch_id) const;

 private:
  storage::FileSystem& fs_;
  std::string dir_;
};

/// How a logged file source cuts the new files of a trigger into a log batch, and reads them.
struct LoggedFileSourceOptions {
  /// At most this many files per batch. Default: none.
  std::optional<int64_t> max_files_per_trigger;
  /// Files per batch up to about this many bytes, at least one file (soft; with
  /// max_files_per_trigger, whichever is reached first). Default: none.
  std::optional<int64_t> max_bytes_per_trigger;
  /// Take the newest files first. Default: false.
  bool latest_first = false;
  /// Leave out of a batch the logged files that no longer exist when the batch is read
  /// (deleted between listing and reading) instead of failing it. Default: false.
  bool ignore_missing_files = false;
  /// Skip files the reader cannot read (corrupt, not in the format) and count them in the
  /// metrics as numCorruptFilesSkipped instead of failing the batch (Spark's
  /// ignoreCorruptFiles). Default: false.
  bool ignore_corrupt_files = false;
  /// Log each file's size (Auto Loader's trackers compare it). Default: false (Spark's log).
  bool log_file_sizes = false;
};

/// A file stream source over a source log and a FileTracker: the offsets, the write-ahead of
/// each batch's files and the crash repair (grammar and reasoning in file_source.cc), shared by
/// the plain file source and Auto Loader. Subclasses say how files are discovered and what
/// happens to committed files.
///
/// Thread-safety: called from the query's thread only.
class LoggedFileSource : public Source {
 public:
  /// `metadata_dir` holds the source log; `description` names the source in errors.
  LoggedFileSource(storage::FileSystem& fs, std::string description, plan::ScanSource scan_template,
                   std::string metadata_dir, std::unique_ptr<FileTracker> tracker,
                   LoggedFileSourceOptions options);

  /// Checks the log and adds to the tracker the log batches it lacks (after
  /// LastBatchRecorded). Call once after construction.
  Status Recover();

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                             bool respect_limits) override;
  Status PrepareForTriggerAvailableNow() override;
  Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start, const Offset& end) override;
  Status Commit(const Offset& end) override;
  /// numFilesOutstanding and numBytesOutstanding: the new files the last trigger left for
  /// later batches. Counts over this run of the query (since the source was opened, not reset
  /// per batch): numNonRegularFilesSkipped, the FIFOs, sockets and devices listings skipped
  /// (never read: reading one may never end), each path once however many triggers list it;
  /// with ignore_corrupt_files, numCorruptFilesSkipped, the files batches' scans skipped.
  std::map<std::string, std::string> Metrics() const override;

 protected:
  /// Every data file present (the available-now trigger pins these).
  virtual Result<std::vector<storage::FileInfo>> ListAll() = 0;
  /// The files a trigger considers (the tracker then drops the known ones). Default: ListAll.
  virtual Result<std::vector<storage::FileInfo>> Discover() { return ListAll(); }
  /// After Commit(end): log batches up to `end_batch` are in the sink.
  virtual Status OnCommitted(int64_t end_batch) {
    (void)end_batch;
    return Status::OK();
  }

  storage::FileSystem& SourceFileSystem() { return fs_; }
  FileSourceLog& Log() { return log_; }
  FileTracker& Tracker() { return *tracker_; }
  /// The `description` given at construction, which names the source in errors.
  const std::string& DescriptionForErrors() const { return description_; }

 private:
  Status LogNewFiles(bool respect_limits);

  storage::FileSystem& fs_;
  std::string description_;
  plan::ScanSource scan_template_;
  FileSourceLog log_;
  std::unique_ptr<FileTracker> tracker_;
  LoggedFileSourceOptions options_;
  /// The newest log batch (-1: the log is empty).
  int64_t latest_batch_id_ = -1;
  /// Entries logged by this run and not yet committed, so GetBatch need not read them back.
  std::map<int64_t, std::vector<FileEntry>> recent_entries_;
  /// Trigger.AvailableNow: the newest (modification time, path) present when it was
  /// prepared. A run takes only files up to it in that order, so it ends, and memory holds no
  /// set of the paths present (millions, at scale). A file landing during the run with an older
  /// time (copied with its time kept) may join this run instead of the next; none is lost or
  /// taken twice.
  std::optional<std::pair<int64_t, std::string>> available_now_newest_;
  int64_t num_files_outstanding_ = 0;
  int64_t num_bytes_outstanding_ = 0;
  /// The non-regular paths listings skipped, so a FIFO listed by every trigger counts once
  /// (a landing directory has few: each is a mistake upstream).
  std::set<std::string> non_regular_files_skipped_;
  /// Files skipped by batches' scans (ignore_corrupt_files); shared with the scans' callbacks.
  std::shared_ptr<std::atomic<int64_t>> num_corrupt_files_skipped_ =
      std::make_shared<std::atomic<int64_t>>(0);
};

/// The data files below `path` (ListDataFileInfos); none while the directory does not exist
/// yet (files may land in a folder created after the stream started). Non-regular files
/// (FileInfo::is_special) are included, for the caller to count and drop.
Result<std::vector<storage::FileInfo>> ListSourceFiles(storage::FileSystem& fs,
                                                       const std::string& path);

/// Removes the entries that are not regular files (FIFOs, sockets, devices: FileInfo::is_special)
/// from `files`; returns how many.
size_t DropNonRegularFiles(std::vector<storage::FileInfo>& files);

/// Files in the order a source takes them: oldest first, ties by path (Spark orders by
/// modification time only; the path makes equal times deterministic); newest first with
/// `latest_first`.
void SortForIngestion(std::vector<storage::FileInfo>& files, bool latest_first);

/// The value of integer option `key` when present and positive; InvalidArgument in Spark's
/// words otherwise.
Result<std::optional<int64_t>> PositiveIntegerOption(const formats::OptionMap& options,
                                                     std::string_view key);
/// Boolean option `key`, `fallback` when absent.
Result<bool> BooleanOptionOr(const formats::OptionMap& options, std::string_view key,
                             bool fallback);

/// The source's own options (reader options are the format's); keys as Spark spells them,
/// ignoring case.
struct FileStreamOptions {
  /// `maxFilesPerTrigger`: at most this many new files per batch. Default: none (all).
  std::optional<int64_t> max_files_per_trigger;
  /// `maxBytesPerTrigger`: new files per batch up to about this many bytes, at least one file;
  /// not with maxFilesPerTrigger. Default: none.
  std::optional<int64_t> max_bytes_per_trigger;
  /// `latestFirst`: take the newest files first. Default: false.
  bool latest_first = false;
  /// `maxFileAge` (a time string such as "7d"; a bare number is milliseconds): files older
  /// than the newest seen file by more than this are ignored, except in the first batch.
  /// Ignored (nullopt) with latestFirst and a per-trigger limit, as in Spark. Default: 7 days.
  std::optional<int64_t> max_file_age_ms = int64_t{7} * 24 * 3600 * 1000;
  /// `fileNameOnly`: a file is the same file by name alone, whatever its directory.
  /// Default: false.
  bool file_name_only = false;
};

/// The options above from a reader option map; InvalidArgument naming the option for a bad
/// value.
Result<FileStreamOptions> FileStreamOptionsFromMap(const formats::OptionMap& options);

/// The plain file stream source as a query names it.
///
/// Thread-safety: immutable after construction.
class FileSourceDefinition final : public SourceDefinition {
 public:
  /// The stream of `format` ("json", "csv", "parquet") files below `path` with Spark reader
  /// `options`. `schema` may be null: JSON and CSV then need session setting
  /// `spark.sql.streaming.schemaInference` = "true" and infer it from the files present now
  /// (as Spark does); Parquet takes the schema of the first file present. Columns are made
  /// nullable (Spark's fileSource.schema.forceNullable). `fs` is used for that inference only.
  static Result<std::shared_ptr<const FileSourceDefinition>> Make(
      storage::FileSystem& fs, std::string_view format, std::string path,
      const formats::OptionMap& options, columnar::SchemaPtr schema,
      const std::map<std::string, std::string>& session_config);

  columnar::SchemaPtr Schema() const override { return scan_template_.schema; }
  std::vector<columnar::Field> HiddenColumns() const override {
    return scan_template_.hidden_columns;
  }
  /// "FileStreamSource[json /data/in]".
  std::string Description() const override;
  std::string Identity() const override { return Description(); }
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override;

  const std::string& Format() const { return format_; }
  const std::string& Path() const { return path_; }
  const FileStreamOptions& Options() const { return stream_options_; }
  /// A kFiles scan of no files with the source's reader spec and schema; each batch fills in
  /// its paths.
  const plan::ScanSource& ScanTemplate() const { return scan_template_; }

 private:
  FileSourceDefinition(std::string format, std::string path, FileStreamOptions stream_options,
                       plan::ScanSource scan_template);

  std::string format_;
  std::string path_;
  FileStreamOptions stream_options_;
  plan::ScanSource scan_template_;
};

}  // namespace tributary::streaming
