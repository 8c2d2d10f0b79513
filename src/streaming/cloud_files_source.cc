// The Auto Loader source. On-disk state, all in the source's metadata directory
// `<checkpoint>/sources/<n>/`:
//
//   <batchId>   the source log (file_source.cc's grammar; entries carry "size")
//   rocksdb/    the seen-files store (rocksdb_file_tracker.cc's grammar)
//
// Discovery. Listing mode lists the base directory (the path up to its first glob component)
// recursively each trigger. Notification mode sets an inotify watch on every directory of the
// tree first and then lists once, so a file is either listed or announced; afterwards a trigger
// reads the events (files closed after writing or moved in, and new directories, which get a
// watch and are listed since files may land in them before the watch exists) and lists the
// whole tree again when backfillInterval has passed or the event queue overflowed. On S3 the
// notifications are S3's event notifications of created objects, sent to an SQS queue
// (storage/s3_event_queue.h) that is set up before the listing at start; a message is deleted
// once its file is pending, since a restart lists everything anyway. Files a
// trigger could not take (rate limits) stay pending in memory until a batch takes them. Either
// way the tracker decides what is new, so a file announced and listed is taken once.
//
// cleanSource. Commit(end) queues the files of the newly committed log batches in the store
// ("q" keys ordered by modification time) and then deletes or moves the queued files older
// than the retention; a failure is counted in the metrics, not raised.

#include "streaming/cloud_files_source.h"

#include <fnmatch.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "common/ascii.h"
#include "expr/temporal_parsing.h"
#include "plan/data_sources.h"
#include "storage/aws_config.h"
#include "storage/local_path.h"
#include "storage/path.h"
#include "storage/s3_event_queue.h"
#include "storage/sigv4.h"
#include "streaming/cloud_files_schema.h"
#include "streaming/rocksdb_file_tracker.h"
#include "streaming/time_string.h"

namespace tributary::streaming {

namespace {

/// Files read by schema inference at most (Databricks' default sample of 1000 files).
/// Queued files cleanSource handles per commit, so one commit stays short.
constexpr size_t kCleanPerCommit = 10000;

int64_t SystemClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Milliseconds of a duration option: Databricks' "1 minute", "2 hours", "30 days", or
/// Spark's time strings ("30s", "7d"; a bare number is milliseconds).
Result<int64_t> DurationOptionMs(std::string_view option, std::string_view text) {
  std::string_view rest = text;
  while (!rest.empty() && rest.front() == ' ') {
    rest.remove_prefix(1);
  }
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
    ++digits;
  }
  size_t unit_start = digits;
  while (unit_start < rest.size() && rest[unit_start] == ' ') {
    ++unit_start;
  }
  std::string unit = AsciiLower(rest.substr(unit_start));
  while (!unit.empty() && unit.back() == ' ') {
    unit.pop_back();
  }
  if (!unit.empty() && unit.back() == 's' && unit.size() > 2) {
    unit.pop_back();
  }
  static const std::map<std::string, int64_t, std::less<>> kWordUnits = {{"second", 1000},
                                                                         {"minute", 60'000},
                                                                         {"hour", 3'600'000},
                                                                         {"day", 86'400'000},
                                                                         {"week", 604'800'000}};
  auto word = kWordUnits.find(unit);
  if (digits > 0 && word != kWordUnits.end()) {
    int64_t count = 0;
    for (size_t i = 0; i < digits; ++i) {
      count = count * 10 + (rest[i] - '0');
    }
    return count * word->second;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t micros,
                            TimeStringAsMicros(option, text, TimeStringUnit::kMilliseconds));
  return micros / 1000;
}

Result<std::optional<int64_t>> TimestampOptionMs(const formats::OptionMap& options,
                                                 std::string_view key,
                                                 const expr::EvalContext& eval) {
  const std::string* text = formats::FindOption(options, key);
  if (text == nullptr) {
    return std::optional<int64_t>();
  }
  int64_t micros = 0;
  if (!expr::ParseTimestamp(*text, eval.session_time_zone, false, &micros)) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value '{}' for option '{}': expected a timestamp such as 2024-06-01T00:00:00",
        *text, key));
  }
  return std::optional<int64_t>(micros / 1000);
}

/// `path` relative to `base` ("" when it is not below it).
std::string_view RelativeTo(std::string_view base, std::string_view path) {
  if (path.size() <= base.size() || path.substr(0, base.size()) != base) {
    return {};
  }
  std::string_view rest = path.substr(base.size());
  while (!rest.empty() && rest.front() == '/') {
    rest.remove_prefix(1);
  }
  return rest;
}

/// Whether a path relative to the source directory names a hidden or temporary file or lies in
/// such a directory (Spark's and Auto Loader's "_" and "." prefixes).
bool IsHiddenRelativePath(std::string_view relative) {
  size_t start = 0;
  while (start < relative.size()) {
    if (relative[start] == '_' || relative[start] == '.') {
      return true;
    }
    const size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) {
      break;
    }
    start = slash + 1;
  }
  return false;
}

/// Notification mode's source of announced files.
class FileNotifier {
 public:
  /// What the notifications since the last call announced.
  struct Events {
    std::vector<std::string> files;
    /// Directories that appeared: their files may predate their watch, so they are listed.
    std::vector<std::string> new_directories;
    /// Notifications were lost: only a full listing is safe.
    bool overflowed = false;
  };

  virtual ~FileNotifier() = default;
  /// The events since the last call, without blocking.
  virtual Result<Events> Drain() = 0;
};

/// inotify on a directory tree: a watch per directory, events read without blocking.
class TreeWatcher final : public FileNotifier {
 public:
  ~TreeWatcher() override {
    if (fd_ >= 0) {
      close(fd_);
    }
  }
  TreeWatcher(const TreeWatcher&) = delete;
  TreeWatcher& operator=(const TreeWatcher&) = delete;

  /// Watches `root` and every directory below it. NotFound when `root` does not exist.
  static Result<std::unique_ptr<TreeWatcher>> Watch(const std::string& root) {
    std::error_code error;
    if (!std::filesystem::is_directory(root, error)) {
      return Status::NotFound(fmt::format("notification mode: {} is not a directory yet", root));
    }
    const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
      return Status::IOError(
          fmt::format("notification mode: inotify_init1 for {}: {}", root, std::strerror(errno)));
    }
    auto watcher = std::unique_ptr<TreeWatcher>(new TreeWatcher(fd));
    TRIBUTARY_RETURN_NOT_OK(watcher->AddTree(root));
    return watcher;
  }

  Result<Events> Drain() override {
    Events events;
    alignas(inotify_event) char buffer[64 * 1024];
    while (true) {
      const ssize_t n = read(fd_, buffer, sizeof(buffer));
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          break;
        }
        if (errno == EINTR) {
          continue;
        }
        return Status::IOError(
            fmt::format("notification mode: reading inotify events: {}", std::strerror(errno)));
      }
      if (n == 0) {
        break;
      }
      for (ssize_t at = 0; at < n;) {
        inotify_event event{};
        std::memcpy(&event, buffer + at, sizeof(event));
        const std::string_view name =
            event.len > 0 ? std::string_view(buffer + at + sizeof(inotify_event)) : "";
        at += static_cast<ssize_t>(sizeof(inotify_event) + event.len);
        if ((event.mask & IN_Q_OVERFLOW) != 0) {
          events.overflowed = true;
          continue;
        }
        auto dir = directories_.find(event.wd);
        if (dir == directories_.end() || name.empty()) {
          continue;
        }
        const std::string path = storage::JoinPath(dir->second, name);
        if ((event.mask & IN_ISDIR) != 0) {
          TRIBUTARY_RETURN_NOT_OK(AddTree(path));
          events.new_directories.push_back(path);
        } else if ((event.mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) != 0) {
          // A created file is announced when it is complete (closed or moved in), never at
          // IN_CREATE, so a batch does not read half a file.
          events.files.push_back(path);
        }
      }
    }
    return events;
  }

 private:
  explicit TreeWatcher(int fd) : fd_(fd) {}

  Status AddTree(const std::string& root) {
    TRIBUTARY_RETURN_NOT_OK(AddOne(root));
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(root, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_directory(error)) {
        TRIBUTARY_RETURN_NOT_OK(AddOne(it->path().string()));
      }
    }
    // A directory removed while it was walked is no error: its files are gone too.
    return Status::OK();
  }

  Status AddOne(const std::string& dir) {
    const int wd =
        inotify_add_watch(fd_, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ONLYDIR);
    if (wd < 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        return Status::OK();
      }
      return Status::IOError(fmt::format("notification mode: watching {}: {}{}", dir,
                                         std::strerror(errno),
                                         errno == ENOSPC ? " (fs.inotify.max_user_watches)" : ""));
    }
    directories_[wd] = dir;
    return Status::OK();
  }

  int fd_;
  std::unordered_map<int, std::string> directories_;
};

/// S3 event notifications through SQS (storage::S3ObjectCreatedQueue): created objects are
/// announced, directories are implicit, and nothing is lost while the source is down that the
/// full listing at start does not find.
class ObjectStoreNotifier final : public FileNotifier {
 public:
  explicit ObjectStoreNotifier(std::unique_ptr<storage::S3ObjectCreatedQueue> queue)
      : queue_(std::move(queue)) {}

  Result<Events> Drain() override {
    Events events;
    TRIBUTARY_ASSIGN_OR_RAISE(events.files, queue_->Receive(kMaxQueueReceivesPerTrigger));
    return events;
  }

 private:
  /// Receives of up to 10 messages per trigger: the rest waits for the next one.
  static constexpr int kMaxQueueReceivesPerTrigger = 100;

  std::unique_ptr<storage::S3ObjectCreatedQueue> queue_;
};

class CloudFilesSource final : public LoggedFileSource {
 public:
  CloudFilesSource(storage::FileSystem& fs, const CloudFilesSourceDefinition& definition,
                   std::string metadata_dir, std::unique_ptr<RocksDbFileTracker> tracker,
                   CloudFilesClock clock, std::map<std::string, std::string> session_config,
                   std::string queue_name)
      : LoggedFileSource(fs, definition.Description(), definition.ScanTemplate(),
                         std::move(metadata_dir), std::move(tracker),
                         {.max_files_per_trigger = definition.Options().max_files_per_trigger,
                          .max_bytes_per_trigger = definition.Options().max_bytes_per_trigger,
                          .ignore_missing_files = definition.Options().ignore_missing_files,
                          .ignore_corrupt_files = definition.Options().ignore_corrupt_files,
                          .log_file_sizes = true}),
        options_(definition.Options()),
        selection_(definition.Path(), definition.Options()),
        clock_(std::move(clock)),
        tracker_(static_cast<RocksDbFileTracker*>(&LoggedFileSource::Tracker())),
        session_config_(std::move(session_config)),
        queue_name_(std::move(queue_name)) {}

  /// includeExistingFiles on the first start of the checkpoint.
  Status StartOnce() {
    if (tracker_->Started()) {
      return Status::OK();
    }
    std::vector<storage::FileInfo> existing;
    if (!options_.include_existing_files) {
      TRIBUTARY_ASSIGN_OR_RAISE(existing, ListAll());
    }
    return tracker_->MarkStarted(existing);
  }

  std::map<std::string, std::string> Metrics() const override {
    std::map<std::string, std::string> metrics = LoggedFileSource::Metrics();
    if (options_.use_notifications) {
      // Full listings so far: the one at start, backfillInterval's, after lost events.
      metrics["numFullListings"] = std::to_string(num_full_listings_);
    }
    if (options_.clean_source != CleanSourceMode::kOff) {
      metrics["numFilesCleaned"] = std::to_string(num_cleaned_);
      metrics["numCleanSourceFailures"] = std::to_string(num_clean_failures_);
      if (!last_clean_failure_.empty()) {
        metrics["lastCleanSourceFailure"] = last_clean_failure_;
      }
    }
    return metrics;
  }

 protected:
  Result<std::vector<storage::FileInfo>> ListAll() override {
    tracker_->SetClockMs(clock_());
    return selection_.List(SourceFileSystem());
  }

  Result<std::vector<storage::FileInfo>> Discover() override {
    const int64_t now = clock_();
    tracker_->SetClockMs(now);
    if (!options_.use_notifications) {
      return ListAll();
    }
    bool full_listing = false;
    if (watcher_ == nullptr && storage::IsObjectStorePath(selection_.Globbed().base)) {
      // The queue is set up before the first listing, so an object is listed or announced.
      Result<std::unique_ptr<FileNotifier>> notifier = OpenObjectStoreNotifier();
      if (!notifier.ok()) {
        return notifier.status().WithContext(DescriptionForErrors());
      }
      watcher_ = std::move(*notifier);
      full_listing = true;
    } else if (watcher_ == nullptr) {
      if (!options_.queue_url.empty()) {
        return Status::InvalidArgument(fmt::format(
            "{}: cloudFiles.queueUrl applies to S3 paths (a local directory is watched with "
            "inotify)",
            DescriptionForErrors()));
      }
      auto watcher = TreeWatcher::Watch(selection_.Globbed().base);
      if (!watcher.ok()) {
        if (watcher.status().IsNotFound()) {
          return std::vector<storage::FileInfo>{};
        }
        return watcher.status().WithContext(DescriptionForErrors());
      }
      watcher_ = std::move(*watcher);
      full_listing = true;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(FileNotifier::Events events, watcher_->Drain());
    if (events.overflowed || (options_.backfill_interval_ms.has_value() && last_full_listing_ms_ &&
                              now - *last_full_listing_ms_ >= *options_.backfill_interval_ms)) {
      full_listing = true;
    }
    if (full_listing) {
      last_full_listing_ms_ = now;
      pending_.clear();
      ++num_full_listings_;
      return ListAll();
    }
    for (std::string& path : events.files) {
      pending_.insert(std::move(path));
    }
    for (const std::string& dir : events.new_directories) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> listed,
                                ListSourceFiles(SourceFileSystem(), dir));
      for (storage::FileInfo& file : listed) {
        pending_.insert(std::move(file.path));
      }
    }
    std::vector<storage::FileInfo> files;
    for (auto it = pending_.begin(); it != pending_.end();) {
      auto info = SourceFileSystem().GetFileInfo(*it);
      if (!info.ok() && !info.status().IsNotFound()) {
        return info.status().WithContext(DescriptionForErrors());
      }
      if (!info.ok() || info->is_directory || !selection_.Accepts(*info) ||
          !tracker_->IsNew(*info)) {
        it = pending_.erase(it);
        continue;
      }
      files.push_back(std::move(*info));
      ++it;
    }
    return files;
  }

  Result<std::unique_ptr<FileNotifier>> OpenObjectStoreNotifier() const {
    TRIBUTARY_ASSIGN_OR_RAISE(storage::S3Config config, storage::ResolveS3Config(session_config_));
    if (!options_.region.empty()) {
      config.region = options_.region;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::unique_ptr<storage::S3ObjectCreatedQueue> queue,
                              storage::S3ObjectCreatedQueue::Open(config, selection_.Globbed().base,
                                                                  options_.queue_url, queue_name_));
    return std::unique_ptr<FileNotifier>(std::make_unique<ObjectStoreNotifier>(std::move(queue)));
  }

  Status OnCommitted(int64_t end_batch) override {
    if (options_.clean_source == CleanSourceMode::kOff) {
      return Status::OK();
    }
    for (int64_t id = tracker_->LastBatchQueuedForClean() + 1; id <= end_batch; ++id) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<FileEntry> entries, Log().Read(id));
      TRIBUTARY_RETURN_NOT_OK(tracker_->QueueForClean(entries, id));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        std::vector<CleanCandidate> due,
        tracker_->CleanCandidates(clock_() - options_.clean_retention_ms, kCleanPerCommit));
    for (const CleanCandidate& file : due) {
      Status cleaned;
      if (options_.clean_source == CleanSourceMode::kDelete) {
        cleaned = SourceFileSystem().DeleteFile(file.path);
      } else {
        const std::string_view relative = RelativeTo(selection_.Globbed().base, file.path);
        cleaned = SourceFileSystem().Rename(
            file.path,
            storage::JoinPath(options_.move_destination,
                              relative.empty() ? storage::BaseName(file.path) : relative));
      }
      if (cleaned.ok() || cleaned.IsNotFound()) {
        num_cleaned_ += cleaned.ok() ? 1 : 0;
        continue;
      }
      // Reported, not fatal: the data is committed, only the tidying failed.
      ++num_clean_failures_;
      last_clean_failure_ = cleaned.ToString();
    }
    return tracker_->Dequeue(due);
  }

 private:
  CloudFilesOptions options_;
  CloudFilesFileSelection selection_;
  CloudFilesClock clock_;
  /// The base class owns the tracker; this is its RocksDB face.
  RocksDbFileTracker* tracker_ = nullptr;
  /// Notification mode on S3: where its configuration comes from, and the queue to make.
  std::map<std::string, std::string> session_config_;
  std::string queue_name_;
  std::unique_ptr<FileNotifier> watcher_;
  std::optional<int64_t> last_full_listing_ms_;
  int64_t num_full_listings_ = 0;
  /// Notification mode: announced files no batch has taken yet.
  std::unordered_set<std::string> pending_;
  int64_t num_cleaned_ = 0;
  int64_t num_clean_failures_ = 0;
  std::string last_clean_failure_;
};

}  // namespace

GlobbedPath SplitGlobbedPath(std::string_view path) {
  GlobbedPath out;
  while (path.size() > 1 && path.back() == '/') {
    path.remove_suffix(1);
  }
  size_t start = 0;
  bool globbing = false;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      slash = path.size();
    }
    const std::string_view component = path.substr(start, slash - start);
    globbing = globbing || component.find_first_of("*?[{") != std::string_view::npos;
    if (globbing) {
      out.patterns.emplace_back(component);
    } else {
      out.base = std::string(path.substr(0, slash));
    }
    start = slash + 1;
  }
  if (out.base.empty()) {
    out.base = std::string(path.starts_with('/') ? std::string_view("/") : std::string_view("."));
  }
  return out;
}

bool MatchesGlobbedPath(const GlobbedPath& globbed, std::string_view file) {
  if (globbed.patterns.empty()) {
    return true;
  }
  std::string_view relative = RelativeTo(globbed.base, file);
  for (size_t i = 0; i < globbed.patterns.size(); ++i) {
    const size_t slash = relative.find('/');
    const std::string component(relative.substr(0, slash));
    if (component.empty() || fnmatch(globbed.patterns[i].c_str(), component.c_str(), 0) != 0) {
      return false;
    }
    if (slash == std::string_view::npos) {
      return i + 1 == globbed.patterns.size();
    }
    relative.remove_prefix(slash + 1);
  }
  return true;
}

CloudFilesFileSelection::CloudFilesFileSelection(std::string_view path,
                                                 const CloudFilesOptions& options)
    : globbed_(SplitGlobbedPath(path)),
      path_glob_filter_(options.path_glob_filter),
      modified_after_ms_(options.modified_after_ms),
      modified_before_ms_(options.modified_before_ms) {}

bool CloudFilesFileSelection::Accepts(const storage::FileInfo& file) const {
  const std::string_view relative = RelativeTo(globbed_.base, file.path);
  if (IsHiddenRelativePath(relative) || !MatchesGlobbedPath(globbed_, file.path)) {
    return false;
  }
  if (path_glob_filter_.has_value()) {
    const std::string name(storage::BaseName(file.path));
    if (fnmatch(path_glob_filter_->c_str(), name.c_str(), 0) != 0) {
      return false;
    }
  }
  if (modified_after_ms_.has_value() && file.modification_time_ms <= *modified_after_ms_) {
    return false;
  }
  return !modified_before_ms_.has_value() || file.modification_time_ms < *modified_before_ms_;
}

Result<std::vector<storage::FileInfo>> CloudFilesFileSelection::List(
    storage::FileSystem& fs) const {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> files,
                            ListSourceFiles(fs, globbed_.base));
  std::erase_if(files, [&](const storage::FileInfo& file) { return !Accepts(file); });
  return files;
}

Result<CloudFilesOptions> CloudFilesOptionsFromMap(const formats::OptionMap& options,
                                                   const expr::EvalContext& eval) {
  CloudFilesOptions out;
  const std::string* format = formats::FindOption(options, "format");
  if (format == nullptr) {
    return Status::InvalidArgument(
        "The cloudFiles source needs option 'cloudFiles.format' (json, csv, parquet, text or "
        "binaryFile)");
  }
  out.format = AsciiLower(*format);
  if (out.format != "json" && out.format != "csv" && out.format != "parquet" &&
      out.format != "text" && out.format != "binaryfile") {
    return Status::InvalidArgument(fmt::format(
        "Invalid value '{}' for option 'cloudFiles.format' (json, csv, parquet, text or "
        "binaryFile)",
        *format));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::optional<int64_t> max_files,
                            PositiveIntegerOption(options, "maxFilesPerTrigger"));
  out.max_files_per_trigger = max_files.value_or(out.max_files_per_trigger);
  if (const std::string* bytes = formats::FindOption(options, "maxBytesPerTrigger")) {
    // Databricks takes byte strings such as "10g"; a bare number is bytes.
    std::string text = AsciiLower(*bytes);
    int64_t scale = 1;
    static const std::map<std::string, int64_t, std::less<>> kSuffixes = {
        {"k", int64_t{1} << 10},  {"kb", int64_t{1} << 10}, {"m", int64_t{1} << 20},
        {"mb", int64_t{1} << 20}, {"g", int64_t{1} << 30},  {"gb", int64_t{1} << 30},
        {"t", int64_t{1} << 40},  {"tb", int64_t{1} << 40}, {"b", 1}};
    for (const auto& [suffix, factor] : kSuffixes) {
      if (text.size() > suffix.size() && text.ends_with(suffix) &&
          std::isdigit(static_cast<unsigned char>(text[text.size() - suffix.size() - 1]))) {
        text.resize(text.size() - suffix.size());
        scale = factor;
        break;
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        const std::optional<int64_t> value,
        PositiveIntegerOption({{"maxBytesPerTrigger", text}}, "maxBytesPerTrigger"));
    out.max_bytes_per_trigger = *value * scale;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(out.include_existing_files,
                            BooleanOptionOr(options, "includeExistingFiles", true));
  TRIBUTARY_ASSIGN_OR_RAISE(out.allow_overwrites,
                            BooleanOptionOr(options, "allowOverwrites", false));
  TRIBUTARY_ASSIGN_OR_RAISE(out.use_notifications,
                            BooleanOptionOr(options, "useNotifications", false));
  TRIBUTARY_ASSIGN_OR_RAISE(out.ignore_missing_files,
                            BooleanOptionOr(options, "ignoreMissingFiles", false));
  TRIBUTARY_ASSIGN_OR_RAISE(out.ignore_corrupt_files,
                            BooleanOptionOr(options, "ignoreCorruptFiles", false));
  if (const std::string* age = formats::FindOption(options, "maxFileAge")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.max_file_age_ms, DurationOptionMs("maxFileAge", *age));
  }
  if (const std::string* queue_url = formats::FindOption(options, "queueUrl")) {
    if (!queue_url->starts_with("https://") && !queue_url->starts_with("http://")) {
      return Status::InvalidArgument(
          fmt::format("Invalid value '{}' for option 'cloudFiles.queueUrl' (an SQS queue URL, "
                      "https://sqs.<region>.amazonaws.com/<account>/<queue>)",
                      *queue_url));
    }
    out.queue_url = *queue_url;
  }
  if (const std::string* region = formats::FindOption(options, "region")) {
    if (region->empty()) {
      return Status::InvalidArgument("option 'cloudFiles.region' is empty");
    }
    out.region = *region;
  }
  if (const std::string* interval = formats::FindOption(options, "backfillInterval")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.backfill_interval_ms,
                              DurationOptionMs("backfillInterval", *interval));
  }
  if (const std::string* filter = formats::FindOption(options, "pathGlobFilter")) {
    out.path_glob_filter = *filter;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(out.modified_after_ms,
                            TimestampOptionMs(options, "modifiedAfter", eval));
  TRIBUTARY_ASSIGN_OR_RAISE(out.modified_before_ms,
                            TimestampOptionMs(options, "modifiedBefore", eval));
  if (const std::string* clean = formats::FindOption(options, "cleanSource")) {
    const std::string mode = AsciiLower(*clean);
    if (mode == "off") {
      out.clean_source = CleanSourceMode::kOff;
    } else if (mode == "delete") {
      out.clean_source = CleanSourceMode::kDelete;
    } else if (mode == "move") {
      out.clean_source = CleanSourceMode::kMove;
    } else {
      return Status::InvalidArgument(fmt::format(
          "Invalid value '{}' for option 'cloudFiles.cleanSource' (OFF, DELETE or MOVE)", *clean));
    }
  }
  if (const std::string* destination =
          formats::FindOption(options, "cleanSource.moveDestination")) {
    out.move_destination = *destination;
  }
  if (out.clean_source == CleanSourceMode::kMove && out.move_destination.empty()) {
    return Status::InvalidArgument(
        "cloudFiles.cleanSource MOVE needs option 'cloudFiles.cleanSource.moveDestination'");
  }
  if (const std::string* retention =
          formats::FindOption(options, "cleanSource.retentionDuration")) {
    TRIBUTARY_ASSIGN_OR_RAISE(out.clean_retention_ms,
                              DurationOptionMs("cleanSource.retentionDuration", *retention));
  }
  return out;
}

CloudFilesSourceDefinition::CloudFilesSourceDefinition(std::string path, CloudFilesOptions options,
                                                       plan::ScanSource scan_template,
                                                       CloudFilesClock clock)
    : path_(std::move(path)),
      options_(std::move(options)),
      scan_template_(std::move(scan_template)),
      clock_(std::move(clock)) {}

Result<std::shared_ptr<const CloudFilesSourceDefinition>> CloudFilesSourceDefinition::Make(
    storage::FileSystem& fs, std::string path, const formats::OptionMap& options,
    columnar::SchemaPtr schema, const std::map<std::string, std::string>& session_config,
    const expr::EvalContext& eval, CloudFilesClock clock) {
  TRIBUTARY_ASSIGN_OR_RAISE(CloudFilesOptions cloud_options,
                            CloudFilesOptionsFromMap(options, eval));
  const GlobbedPath globbed = SplitGlobbedPath(path);
  if (cloud_options.clean_source == CleanSourceMode::kMove) {
    // Compared as canonical paths: "/x//land/archive", "/x/other/../land/archive", a relative
    // "land/archive" or a symbolic link into the source are all inside it.
    auto inside = storage::IsSameOrInside(cloud_options.move_destination, globbed.base);
    if (!inside.ok()) {
      return inside.status().WithContext("cloudFiles.cleanSource.moveDestination");
    }
    if (*inside) {
      return Status::InvalidArgument(fmt::format(
          "cloudFiles.cleanSource.moveDestination {} lies inside the source directory {}: moved "
          "files would be ingested again",
          cloud_options.move_destination, globbed.base));
    }
  }
  if (cloud_options.format == "text" || cloud_options.format == "binaryfile") {
    // Fixed schemas (Spark's text and binaryFile sources): nothing to infer, store or evolve.
    if (schema != nullptr) {
      return Status::InvalidArgument(
          fmt::format("the cloudFiles source {}: the {} format has a fixed schema; do not give one",
                      path, cloud_options.format));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(plan::ScanSource fixed,
                              plan::FileScanSource(fs, cloud_options.format, {}, options, nullptr,
                                                   formats::OptionDefaults::kAutoLoader));
    return Finish(std::move(path), std::move(cloud_options), std::move(fixed), std::move(clock));
  }
  // The schema: given, stored in cloudFiles.schemaLocation, or inferred there; the template
  // carries the rescued-data column and the schema evolution hook (cloud_files_schema.h).
  CloudFilesSchemaRequest schema_request;
  schema_request.fs = &fs;
  schema_request.format = cloud_options.format;
  schema_request.path = globbed.base;
  schema_request.options = options;
  schema_request.user_schema = std::move(schema);
  schema_request.session_config = session_config;
  // Inference samples what the stream would ingest first: the source's selection, without the
  // files maxFileAge makes the tracker refuse, in ingestion order.
  schema_request.list_files = [&fs, &cloud_options, &clock,
                               &path]() -> Result<std::vector<storage::FileInfo>> {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> files,
                              CloudFilesFileSelection(path, cloud_options).List(fs));
    DropNonRegularFiles(files);
    if (cloud_options.max_file_age_ms.has_value()) {
      const int64_t now = clock != nullptr ? clock() : SystemClockMs();
      std::erase_if(files, [&](const storage::FileInfo& file) {
        return file.modification_time_ms < now - *cloud_options.max_file_age_ms;
      });
    }
    SortForIngestion(files, false);
    return files;
  };
  auto chosen = DefineCloudFilesSchema(schema_request);
  if (!chosen.ok()) {
    return chosen.status().WithContext(fmt::format("the cloudFiles source {}", path));
  }
  return Finish(std::move(path), std::move(cloud_options), std::move(chosen->scan_template),
                std::move(clock));
}

std::shared_ptr<const CloudFilesSourceDefinition> CloudFilesSourceDefinition::Finish(
    std::string path, CloudFilesOptions options, plan::ScanSource scan_template,
    CloudFilesClock clock) {
  auto definition = std::shared_ptr<CloudFilesSourceDefinition>(new CloudFilesSourceDefinition(
      std::move(path), std::move(options), std::move(scan_template),
      clock != nullptr ? std::move(clock) : CloudFilesClock(SystemClockMs)));
  definition->scan_template_.description = definition->Description();
  return definition;
}

std::string CloudFilesSourceDefinition::Description() const {
  return fmt::format("CloudFilesSource[{} {}]", options_.format, path_);
}

Result<std::unique_ptr<Source>> CloudFilesSourceDefinition::Open(
    const SourceContext& context) const {
  if (context.fs == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: no file system to open it on", Description()));
  }
  const std::string store_dir = storage::JoinPath(
      context.local_dir.empty() ? context.metadata_dir : context.local_dir, "rocksdb");
  auto tracker = RocksDbFileTracker::Open(store_dir, {.allow_overwrites = options_.allow_overwrites,
                                                      .max_file_age_ms = options_.max_file_age_ms});
  if (!tracker.ok()) {
    return tracker.status().WithContext(fmt::format("opening {}", Description()));
  }
  // Databricks names the queues it makes databricks-auto-ingest-<id>; ours are named after the
  // source's place in the checkpoint, so a restarted query finds its own.
  std::string queue_name =
      "tributary-auto-ingest-" + storage::Sha256Hex(context.metadata_dir).substr(0, 16);
  auto source = std::make_unique<CloudFilesSource>(*context.fs, *this, context.metadata_dir,
                                                   std::move(*tracker), clock_,
                                                   context.session_config, std::move(queue_name));
  Status opened = source->Recover();
  if (opened.ok()) {
    opened = source->StartOnce();
  }
  if (!opened.ok()) {
    return opened.WithContext(fmt::format("opening {}", Description()));
  }
  return std::unique_ptr<Source>(std::move(source));
}

}  // namespace tributary::streaming
