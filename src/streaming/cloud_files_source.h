// The Auto Loader source (Databricks' cloudFiles):
// `ReadStream().Format("cloudFiles").Option("cloudFiles.format", "json").Load(path)`.
//
// It is the plain file source's LoggedFileSource (the same source log, {"logOffset":N} offsets
// and crash repair) with Auto Loader's discovery and bookkeeping: glob patterns in the path,
// pathGlobFilter, modifiedAfter/modifiedBefore, includeExistingFiles, allowOverwrites, both rate
// limits at once, seen files in a RocksDB store inside the checkpoint (rocksdb_file_tracker.h),
// directory listing or inotify notifications with a backfill listing, and cleanSource on
// committed files.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/reader_options.h"
#include "streaming/file_source.h"

namespace tributary::streaming {

/// `cloudFiles.cleanSource`.
enum class CleanSourceMode : uint8_t { kOff, kDelete, kMove };

/// Auto Loader's own options (the reader's are the format's), keys as Databricks spells them
/// with or without the "cloudFiles." prefix, ignoring case.
struct CloudFilesOptions {
  /// `cloudFiles.format`: "json", "csv", "parquet", "text" (a row per line in `value`;
  /// `wholeText`: per file) or "binaryfile" (path, modificationTime, length, content). Required.
  std::string format;
  /// `cloudFiles.maxFilesPerTrigger`. Default: 1000.
  int64_t max_files_per_trigger = 1000;
  /// `cloudFiles.maxBytesPerTrigger` (soft; with maxFilesPerTrigger whichever is reached
  /// first). Default: none.
  std::optional<int64_t> max_bytes_per_trigger;
  /// `cloudFiles.includeExistingFiles`: on the first start of a checkpoint, take the files
  /// already present; when false they are recorded as seen and never read. Default: true.
  bool include_existing_files = true;
  /// `cloudFiles.allowOverwrites`: a file whose modification time or size changed is read
  /// again, whole. Default: false.
  bool allow_overwrites = false;
  /// `cloudFiles.maxFileAge` (a duration): files older than this by the clock are ignored.
  /// Default: none.
  std::optional<int64_t> max_file_age_ms;
  /// `pathGlobFilter`: only files whose name matches this glob. Default: none.
  std::optional<std::string> path_glob_filter;
  /// `modifiedAfter` / `modifiedBefore` (timestamps, in the session time zone without a zone):
  /// only files modified strictly after / before, in milliseconds. Default: none.
  std::optional<int64_t> modified_after_ms;
  std::optional<int64_t> modified_before_ms;
  /// `cloudFiles.useNotifications`: discover files by notifications instead of listing each
  /// trigger: inotify events on a local directory tree; on S3, event notifications of created
  /// objects sent to an SQS queue (Auto Loader makes a queue `tributary-auto-ingest-<16 hex of
  /// the checkpoint's source directory>` and configures the bucket, unless `queueUrl` is
  /// given). Default: false.
  bool use_notifications = false;
  /// `cloudFiles.queueUrl`: with notifications on S3, read this SQS queue as is (the bucket's
  /// notifications to it are set up by someone else). Default: none (Auto Loader sets it up).
  std::string queue_url;
  /// `cloudFiles.region`: the region of the SQS queue and the bucket. Default: the session's
  /// S3 region.
  std::string region;
  /// `cloudFiles.backfillInterval` ("1 minute", "1 day", "30s"): with notifications, a full
  /// listing this often besides the one at start. Default: none (only at start).
  std::optional<int64_t> backfill_interval_ms;
  /// `cloudFiles.cleanSource`: OFF, DELETE or MOVE. Default: OFF.
  CleanSourceMode clean_source = CleanSourceMode::kOff;
  /// `cloudFiles.cleanSource.moveDestination`: where MOVE puts files, keeping their path
  /// relative to the source directory. Required with MOVE.
  std::string move_destination;
  /// `cloudFiles.cleanSource.retentionDuration`: committed files are cleaned once older than
  /// this. Default: 30 days.
  int64_t clean_retention_ms = int64_t{30} * 24 * 3600 * 1000;
  /// `ignoreMissingFiles`: files deleted between listing and reading are left out. Default:
  /// false.
  bool ignore_missing_files = false;
  /// `ignoreCorruptFiles`: a file the reader cannot read is skipped and counted in the
  /// metrics (numCorruptFilesSkipped) instead of failing the batch. Default: false.
  bool ignore_corrupt_files = false;
};

/// The options above from the reader option map; InvalidArgument naming the option for a bad
/// value.
Result<CloudFilesOptions> CloudFilesOptionsFromMap(const formats::OptionMap& options,
                                                   const expr::EvalContext& eval);

/// Milliseconds since the epoch now; tests give a fixed clock.
using CloudFilesClock = std::function<int64_t()>;

/// An Auto Loader source as a query names it.
///
/// Thread-safety: immutable after construction.
class CloudFilesSourceDefinition final : public SourceDefinition {
 public:
  /// The cloudFiles stream of the files at `path` (a directory, or a directory followed by
  /// glob components such as "/landing/*/2024-*") with `options`. `schema` null means
  /// inferred (see ChooseSchema in the .cc). `clock` null is the system clock.
  static Result<std::shared_ptr<const CloudFilesSourceDefinition>> Make(
      storage::FileSystem& fs, std::string path, const formats::OptionMap& options,
      columnar::SchemaPtr schema, const std::map<std::string, std::string>& session_config,
      const expr::EvalContext& eval, CloudFilesClock clock = nullptr);

  columnar::SchemaPtr Schema() const override { return scan_template_.schema; }
  std::vector<columnar::Field> HiddenColumns() const override {
    return scan_template_.hidden_columns;
  }
  /// "CloudFilesSource[json /data/in]".
  std::string Description() const override;
  std::string Identity() const override { return Description(); }
  /// Opens the source's RocksDB store at `<metadata_dir>/rocksdb` (the checkpoint must be on
  /// the local disk) and repairs it from the source log.
  Result<std::unique_ptr<Source>> Open(const SourceContext& context) const override;

  const std::string& Path() const { return path_; }
  const CloudFilesOptions& Options() const { return options_; }
  const plan::ScanSource& ScanTemplate() const { return scan_template_; }

 private:
  CloudFilesSourceDefinition(std::string path, CloudFilesOptions options,
                             plan::ScanSource scan_template, CloudFilesClock clock);
  /// The definition over a chosen scan template (named after the definition).
  static std::shared_ptr<const CloudFilesSourceDefinition> Finish(std::string path,
                                                                  CloudFilesOptions options,
                                                                  plan::ScanSource scan_template,
                                                                  CloudFilesClock clock);

  std::string path_;
  CloudFilesOptions options_;
  plan::ScanSource scan_template_;
  CloudFilesClock clock_;
};

/// The directory part of a path with glob components ("/landing/*/2024-*" ->
/// "/landing") and the glob components after it ({"*", "2024-*"}).
struct GlobbedPath {
  std::string base;
  std::vector<std::string> patterns;
};
GlobbedPath SplitGlobbedPath(std::string_view path);

/// Whether `file` (below `globbed.base`) lies under directories matching every pattern (or is
/// itself matched by the last one).
bool MatchesGlobbedPath(const GlobbedPath& globbed, std::string_view file);

/// The files an Auto Loader source ingests, as discovery and schema inference both choose them
/// (so the inference sample is files the stream reads): below the path's base directory,
/// under its glob components, neither hidden nor temporary ("_" and "." prefixes, of the file
/// or a directory), matching pathGlobFilter, and modified within modifiedAfter/modifiedBefore.
///
/// Thread-safety: immutable after construction.
class CloudFilesFileSelection {
 public:
  CloudFilesFileSelection(std::string_view path, const CloudFilesOptions& options);

  /// Whether the source takes `file` (a path below the base directory) when it is new.
  bool Accepts(const storage::FileInfo& file) const;
  /// The accepted files below the base directory, in listing order; none while the directory
  /// does not exist yet.
  Result<std::vector<storage::FileInfo>> List(storage::FileSystem& fs) const;
  const GlobbedPath& Globbed() const { return globbed_; }

 private:
  GlobbedPath globbed_;
  std::optional<std::string> path_glob_filter_;
  std::optional<int64_t> modified_after_ms_;
  std::optional<int64_t> modified_before_ms_;
};

}  // namespace tributary::streaming
