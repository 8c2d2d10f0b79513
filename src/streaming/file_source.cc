// The plain file stream source and its log.
//
// Source log (Spark's FileStreamSourceLog, without its compaction), one file per log batch in
// the source's metadata directory `<checkpoint>/sources/<n>/`, UTF-8:
//
//   <batchId>  := "v1" { "\n" file-entry }
//   file-entry := {"path":<json string>,"timestamp":<int64>,"batchId":<int64>[,"size":<int64>]}
//
// <batchId> is the decimal log batch id without padding, from 0, one more per entry; an entry
// lists at least one file. "timestamp" is the file's modification time in milliseconds since
// the epoch and "batchId" repeats the file name's id; "size" (bytes) is
// written by Auto Loader only, which compares it to notice overwritten files. Paths are as the file
// system lists them (Spark writes URIs such as file:/data/in/a.json). Entries are written whole
// with put-if-absent and never changed; the log is never purged, since it is what remembers the
// files already taken across restarts.
//
// Offsets (Spark's FileStreamSourceOffset): {"logOffset":<batchId>}; a batch over offsets
// (a, b] reads the files of log batches a+1..b in log order.
//
// Crash safety. LatestOffset writes the next log entry before returning its offset, and the
// engine writes offsets/N only afterwards. A crash between the two leaves an entry beyond the
// last offset the engine recorded; on restart the entry's files are already "seen" (the log
// rebuilds the tracker), and the next LatestOffset returns that entry's id instead of listing
// anew, so its files are neither skipped nor taken twice.

#include "streaming/file_source.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/canonical_json.h"
#include "common/ascii.h"
#include "common/crash_point.h"
#include "formats/text/schema_inference.h"
#include "plan/data_sources.h"
#include "storage/path.h"
#include "streaming/metadata_log.h"
#include "streaming/offset_json.h"
#include "streaming/time_string.h"

namespace tributary::streaming {

namespace {

constexpr std::string_view kSchemaInferenceSetting = "spark.sql.streaming.schemaInference";
constexpr std::string_view kFileSourceOffsetKey = "logOffset";

/// N of {"logOffset":N}; -1 (before log batch 0) for the very beginning.
Result<int64_t> LogBatchOfOffset(const std::optional<Offset>& offset) {
  return ParseIntegerOffset(offset, kFileSourceOffsetKey, -1, "file stream source");
}

/// The plain file source: discovery is the listing of its directory.
class PlainFileSource final : public LoggedFileSource {
 public:
  PlainFileSource(storage::FileSystem& fs, const FileSourceDefinition& definition,
                  std::string metadata_dir, std::unique_ptr<FileTracker> tracker)
      : LoggedFileSource(fs, definition.Description(), definition.ScanTemplate(),
                         std::move(metadata_dir), std::move(tracker),
                         {.max_files_per_trigger = definition.Options().max_files_per_trigger,
                          .max_bytes_per_trigger = definition.Options().max_bytes_per_trigger,
                          .latest_first = definition.Options().latest_first}),
        path_(definition.Path()) {}

 protected:
  Result<std::vector<storage::FileInfo>> ListAll() override {
    return ListSourceFiles(SourceFileSystem(), path_);
  }

 private:
  std::string path_;
};

}  // namespace

Result<std::optional<int64_t>> PositiveIntegerOption(const formats::OptionMap& options,
                                                     std::string_view key) {
  const std::string* text = formats::FindOption(options, key);
  if (text == nullptr) {
    return std::optional<int64_t>();
  }
  int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [stop, error] = std::from_chars(text->data(), end, value);
  if (error != std::errc() || stop != end || value <= 0) {
    // Spark: "Invalid value '0' for option 'maxFilesPerTrigger', must be a positive integer".
    return Status::InvalidArgument(
        fmt::format("Invalid value '{}' for option '{}', must be a positive integer", *text, key));
  }
  return std::optional<int64_t>(value);
}

Result<bool> BooleanOptionOr(const formats::OptionMap& options, std::string_view key,
                             bool fallback) {
  const std::string* text = formats::FindOption(options, key);
  if (text == nullptr) {
    return fallback;
  }
  return formats::BooleanOption(key, *text);
}

void SortForIngestion(std::vector<storage::FileInfo>& files, bool latest_first) {
  std::sort(files.begin(), files.end(), [](const storage::FileInfo& a, const storage::FileInfo& b) {
    if (a.modification_time_ms != b.modification_time_ms) {
      return a.modification_time_ms < b.modification_time_ms;
    }
    return a.path < b.path;
  });
  if (latest_first) {
    std::reverse(files.begin(), files.end());
  }
}

size_t DropNonRegularFiles(std::vector<storage::FileInfo>& files) {
  return std::erase_if(files, [](const storage::FileInfo& file) { return file.is_special; });
}

Result<std::vector<storage::FileInfo>> ListSourceFiles(storage::FileSystem& fs,
                                                       const std::string& path) {
  auto listed = plan::ListDataFileInfos(fs, path);
  if (!listed.ok()) {
    if (listed.status().IsNotFound()) {
      return std::vector<storage::FileInfo>{};
    }
    return listed.status().WithContext(fmt::format("listing the file stream source {}", path));
  }
  return listed;
}

LoggedFileSource::LoggedFileSource(storage::FileSystem& fs, std::string description,
                                   plan::ScanSource scan_template, std::string metadata_dir,
                                   std::unique_ptr<FileTracker> tracker,
                                   LoggedFileSourceOptions options)
    : fs_(fs),
      description_(std::move(description)),
      scan_template_(std::move(scan_template)),
      log_(fs, std::move(metadata_dir)),
      tracker_(std::move(tracker)),
      options_(options) {}

Status LoggedFileSource::Recover() {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> ids, log_.BatchIds());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] != static_cast<int64_t>(i)) {
      return Status::Corruption(fmt::format("source log {}: batch {} is missing",
                                            log_.BatchPath(static_cast<int64_t>(i)), i));
    }
  }
  latest_batch_id_ = ids.empty() ? -1 : ids.back();
  for (int64_t id = tracker_->LastBatchRecorded() + 1; id <= latest_batch_id_; ++id) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<FileEntry> entries, log_.Read(id));
    TRIBUTARY_RETURN_NOT_OK(tracker_->Add(entries));
  }
  return tracker_->Purge();
}

Result<std::optional<Offset>> LoggedFileSource::LatestOffset(const std::optional<Offset>& start,
                                                             bool respect_limits) {
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t start_id, LogBatchOfOffset(start));
  if (start_id > latest_batch_id_) {
    return Status::InvalidArgument(fmt::format(
        "{}: the query's offset {} is past the source log, whose last batch is {} (was the "
        "source log {} deleted or replaced?)",
        description_, *start, latest_batch_id_, log_.BatchPath(start_id)));
  }
  // Entries logged after `start` were taken by a LatestOffset whose batch the engine never
  // recorded (a crash in between): they are the next batch, before anything new.
  if (start_id < latest_batch_id_ && respect_limits) {
    return std::optional<Offset>(IntegerOffset(kFileSourceOffsetKey, start_id + 1));
  }
  TRIBUTARY_RETURN_NOT_OK(LogNewFiles(respect_limits));
  if (latest_batch_id_ < 0) {
    return std::optional<Offset>();
  }
  return std::optional<Offset>(IntegerOffset(kFileSourceOffsetKey, latest_batch_id_));
}

Status LoggedFileSource::PrepareForTriggerAvailableNow() {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> files, ListAll());
  DropNonRegularFiles(files);
  std::pair<int64_t, std::string> newest{std::numeric_limits<int64_t>::min(), std::string()};
  for (storage::FileInfo& file : files) {
    if (std::tie(file.modification_time_ms, file.path) > std::tie(newest.first, newest.second)) {
      newest = {file.modification_time_ms, std::move(file.path)};
    }
  }
  available_now_newest_ = std::move(newest);
  return Status::OK();
}

Result<plan::ScanSource> LoggedFileSource::GetBatch(const std::optional<Offset>& start,
                                                    const Offset& end) {
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t start_id, LogBatchOfOffset(start));
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t end_id, LogBatchOfOffset(end));
  if (end_id < start_id || end_id > latest_batch_id_) {
    return Status::InvalidArgument(
        fmt::format("{}: no batch ({}, {}]: the source log ends at batch {}", description_,
                    start.value_or("start"), end, latest_batch_id_));
  }
  plan::ScanSource source = scan_template_;
  for (int64_t id = start_id + 1; id <= end_id; ++id) {
    auto cached = recent_entries_.find(id);
    std::vector<FileEntry> read;
    if (cached == recent_entries_.end()) {
      TRIBUTARY_ASSIGN_OR_RAISE(read, log_.Read(id));
    }
    for (const FileEntry& entry : cached == recent_entries_.end() ? read : cached->second) {
      if (options_.ignore_missing_files) {
        TRIBUTARY_ASSIGN_OR_RAISE(const bool exists, fs_.Exists(entry.path));
        if (!exists) {
          continue;
        }
      }
      source.files.paths.push_back(entry.path);
    }
  }
  if (options_.ignore_corrupt_files) {
    source.files.on_corrupt_file = [skipped = num_corrupt_files_skipped_](const std::string&,
                                                                          const Status&) {
      skipped->fetch_add(1, std::memory_order_relaxed);
    };
  }
  source.description = fmt::format("{} log batches {}..{} ({} files)", description_, start_id + 1,
                                   end_id, source.files.paths.size());
  return source;
}

Status LoggedFileSource::Commit(const Offset& end) {
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t end_id, LogBatchOfOffset(end));
  recent_entries_.erase(recent_entries_.begin(), recent_entries_.upper_bound(end_id));
  return OnCommitted(end_id);
}

std::map<std::string, std::string> LoggedFileSource::Metrics() const {
  std::map<std::string, std::string> metrics = {
      {"numFilesOutstanding", std::to_string(num_files_outstanding_)},
      {"numBytesOutstanding", std::to_string(num_bytes_outstanding_)},
      {"numNonRegularFilesSkipped", std::to_string(non_regular_files_skipped_.size())}};
  if (options_.ignore_corrupt_files) {
    metrics["numCorruptFilesSkipped"] = std::to_string(num_corrupt_files_skipped_->load());
  }
  return metrics;
}

Status LoggedFileSource::LogNewFiles(bool respect_limits) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> files, Discover());
  for (const storage::FileInfo& file : files) {
    if (file.is_special) {
      non_regular_files_skipped_.insert(file.path);
    }
  }
  DropNonRegularFiles(files);
  std::erase_if(files, [&](const storage::FileInfo& file) {
    return !tracker_->IsNew(file) ||
           (available_now_newest_.has_value() &&
            std::tie(file.modification_time_ms, file.path) >
                std::tie(available_now_newest_->first, available_now_newest_->second));
  });
  SortForIngestion(files, options_.latest_first);
  size_t take = files.size();
  if (respect_limits && options_.max_files_per_trigger.has_value()) {
    take = std::min(take, static_cast<size_t>(*options_.max_files_per_trigger));
  }
  if (respect_limits && options_.max_bytes_per_trigger.has_value() && take > 0) {
    int64_t bytes = files[0].size;
    size_t within = 1;
    while (within < take && bytes + files[within].size <= *options_.max_bytes_per_trigger) {
      bytes += files[within++].size;
    }
    take = within;
  }
  num_files_outstanding_ = static_cast<int64_t>(files.size() - take);
  num_bytes_outstanding_ = 0;
  for (size_t i = take; i < files.size(); ++i) {
    num_bytes_outstanding_ += files[i].size;
  }
  if (take > 0) {
    std::vector<FileEntry> entries;
    entries.reserve(take);
    const int64_t batch_id = latest_batch_id_ + 1;
    for (size_t i = 0; i < take; ++i) {
      entries.push_back({files[i].path, files[i].modification_time_ms, batch_id,
                         options_.log_file_sizes ? files[i].size : -1});
    }
    Status written = log_.Write(batch_id, entries);
    if (written.IsAlreadyExists()) {
      // An earlier attempt of this run published the entry but reported an error (an
      // unknown outcome): the logged files are the batch.
      TRIBUTARY_ASSIGN_OR_RAISE(entries, log_.Read(batch_id));
    } else if (!written.ok()) {
      return written.WithContext(description_);
    }
    CrashPoint("file_source.after_log");
    TRIBUTARY_RETURN_NOT_OK(tracker_->Add(entries));
    latest_batch_id_ = batch_id;
    recent_entries_.emplace(batch_id, std::move(entries));
  }
  return tracker_->Purge();
}

InMemoryFileTracker::InMemoryFileTracker(std::optional<int64_t> max_file_age_ms,
                                         bool file_name_only)
    : max_file_age_ms_(max_file_age_ms), file_name_only_(file_name_only) {}

std::string_view InMemoryFileTracker::Key(std::string_view path) const {
  return file_name_only_ ? storage::BaseName(path) : path;
}

bool InMemoryFileTracker::IsNew(const storage::FileInfo& file) const {
  if (purged_below_ms_.has_value() && file.modification_time_ms < *purged_below_ms_) {
    return false;
  }
  return !seen_.contains(Key(file.path));
}

Status InMemoryFileTracker::Add(std::span<const FileEntry> files) {
  for (const FileEntry& file : files) {
    seen_[std::string(Key(file.path))] = file.modification_time_ms;
    newest_ms_ =
        std::max(newest_ms_.value_or(file.modification_time_ms), file.modification_time_ms);
    last_batch_ = std::max(last_batch_, file.batch_id);
  }
  return Status::OK();
}

Status InMemoryFileTracker::Purge() {
  if (!max_file_age_ms_.has_value() || !newest_ms_.has_value()) {
    return Status::OK();
  }
  const int64_t threshold = *newest_ms_ > std::numeric_limits<int64_t>::min() + *max_file_age_ms_
                                ? *newest_ms_ - *max_file_age_ms_
                                : std::numeric_limits<int64_t>::min();
  if (purged_below_ms_.has_value() && threshold <= *purged_below_ms_) {
    // Nothing newer arrived since the last purge: the same entries would stay.
    return Status::OK();
  }
  purged_below_ms_ = threshold;
  std::erase_if(seen_, [&](const auto& entry) { return entry.second < threshold; });
  return Status::OK();
}

FileSourceLog::FileSourceLog(storage::FileSystem& fs, std::string dir)
    : fs_(fs), dir_(std::move(dir)) {}

std::string FileSourceLog::BatchPath(int64_t batch_id) const {
  return storage::JoinPath(dir_, std::to_string(batch_id));
}

Status FileSourceLog::Write(int64_t batch_id, std::span<const FileEntry> files) {
  std::string text = "v1";
  for (const FileEntry& file : files) {
    text += "\n{\"path\":";
    columnar::AppendJsonString(file.path, &text);
    text +=
        fmt::format(",\"timestamp\":{},\"batchId\":{}", file.modification_time_ms, file.batch_id);
    text += file.size >= 0 ? fmt::format(",\"size\":{}}}", file.size) : "}";
  }
  return fs_.WriteFile(BatchPath(batch_id), text, storage::WriteMode::kPutIfAbsent);
}

Result<std::vector<FileEntry>> FileSourceLog::Read(int64_t batch_id) {
  const std::string path = BatchPath(batch_id);
  TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs_.ReadFile(path));
  const std::vector<std::string_view> lines = SplitLogLines(text);
  TRIBUTARY_RETURN_NOT_OK(CheckLogVersion(lines, path));
  std::vector<FileEntry> entries;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) {
      continue;
    }
    const int line = static_cast<int>(i) + 1;
    TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json value, ParseLogJson(lines[i], path, line));
    if (!value.is_object() || !value.contains("path") || !value["path"].is_string() ||
        !value.contains("timestamp") || !value["timestamp"].is_number_integer() ||
        !value.contains("batchId") || !value["batchId"].is_number_integer()) {
      return Status::Corruption(fmt::format(
          "{} line {}: expected {{\"path\":...,\"timestamp\":...,\"batchId\":...}}, found {}", path,
          line, lines[i]));
    }
    const auto size = value.find("size");
    entries.push_back(
        {value["path"].get<std::string>(), value["timestamp"].get<int64_t>(),
         value["batchId"].get<int64_t>(),
         size != value.end() && size->is_number_integer() ? size->get<int64_t>() : -1});
  }
  return entries;
}

Result<std::vector<int64_t>> FileSourceLog::BatchIds() {
  return ListLogBatchIds(fs_, dir_);
}

Result<FileStreamOptions> FileStreamOptionsFromMap(const formats::OptionMap& options) {
  FileStreamOptions out;
  TRIBUTARY_ASSIGN_OR_RAISE(out.max_files_per_trigger,
                            PositiveIntegerOption(options, "maxFilesPerTrigger"));
  TRIBUTARY_ASSIGN_OR_RAISE(out.max_bytes_per_trigger,
                            PositiveIntegerOption(options, "maxBytesPerTrigger"));
  if (out.max_files_per_trigger.has_value() && out.max_bytes_per_trigger.has_value()) {
    return Status::InvalidArgument(
        "Options 'maxFilesPerTrigger' and 'maxBytesPerTrigger' can't be both set at the same "
        "time");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(out.latest_first, BooleanOptionOr(options, "latestFirst", false));
  TRIBUTARY_ASSIGN_OR_RAISE(out.file_name_only, BooleanOptionOr(options, "fileNameOnly", false));
  if (const std::string* age = formats::FindOption(options, "maxFileAge")) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        const int64_t micros,
        TimeStringAsMicros("maxFileAge", *age, TimeStringUnit::kMilliseconds));
    out.max_file_age_ms = micros / 1000;
  }
  if (out.latest_first &&
      (out.max_files_per_trigger.has_value() || out.max_bytes_per_trigger.has_value())) {
    // Spark: with both, the newest files are taken and older ones stay listed as new; an age
    // limit would silently drop them.
    out.max_file_age_ms.reset();
  }
  return out;
}

FileSourceDefinition::FileSourceDefinition(std::string format, std::string path,
                                           FileStreamOptions stream_options,
                                           plan::ScanSource scan_template)
    : format_(std::move(format)),
      path_(std::move(path)),
      stream_options_(stream_options),
      scan_template_(std::move(scan_template)) {}

Result<std::shared_ptr<const FileSourceDefinition>> FileSourceDefinition::Make(
    storage::FileSystem& fs, std::string_view format, std::string path,
    const formats::OptionMap& options, columnar::SchemaPtr schema,
    const std::map<std::string, std::string>& session_config) {
  const std::string format_name = AsciiLower(format);
  TRIBUTARY_ASSIGN_OR_RAISE(const formats::FileFormat file_format,
                            formats::FileFormatFromName(format_name));
  TRIBUTARY_ASSIGN_OR_RAISE(FileStreamOptions stream_options, FileStreamOptionsFromMap(options));
  columnar::SchemaPtr partitions;
  if (schema == nullptr) {
    auto setting = session_config.find(std::string(kSchemaInferenceSetting));
    const bool inference = setting != session_config.end() && AsciiLower(setting->second) == "true";
    if (file_format != formats::FileFormat::kParquet && !inference) {
      return Status::InvalidArgument(fmt::format(
          "Schema must be specified when creating a streaming source DataFrame ({} files at "
          "{}). Give one with Schema(...), or set {} to true to infer it from the files present "
          "when the stream is defined",
          format_name, path, kSchemaInferenceSetting));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> files, ListSourceFiles(fs, path));
    DropNonRegularFiles(files);
    if (files.empty()) {
      return Status::InvalidArgument(fmt::format(
          "Unable to infer schema for {} files at {}: there are none yet; give a schema",
          format_name, path));
    }
    SortForIngestion(files, false);
    std::vector<std::string> paths;
    paths.reserve(files.size());
    for (storage::FileInfo& file : files) {
      paths.push_back(std::move(file.path));
    }
    // Spark's file stream source discovers partition columns along with an inferred schema.
    TRIBUTARY_ASSIGN_OR_RAISE(
        partitions, plan::DiscoverPartitionColumns(path, paths, /*infer_types=*/true, {}));
    if (file_format == formats::FileFormat::kParquet) {
      paths.resize(1);
    }
    auto inferred = plan::FileScanSource(fs, format_name, std::move(paths), options, nullptr,
                                         formats::OptionDefaults::kSparkReader);
    if (!inferred.ok()) {
      return inferred.status().WithContext(
          fmt::format("inferring the schema of the file stream source {}", path));
    }
    schema = inferred->files.schema != nullptr ? inferred->files.schema : inferred->schema;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      plan::ScanSource scan_template,
      plan::FileScanSource(fs, format_name, {}, options, text::AsNullable(*schema),
                           formats::OptionDefaults::kSparkReader));
  if (partitions != nullptr && partitions->NumFields() > 0) {
    TRIBUTARY_RETURN_NOT_OK(
        plan::SetPartitionColumns(scan_template, fs, std::move(partitions), path));
  }
  auto definition = std::shared_ptr<FileSourceDefinition>(new FileSourceDefinition(
      format_name, std::move(path), stream_options, std::move(scan_template)));
  definition->scan_template_.description = definition->Description();
  return std::shared_ptr<const FileSourceDefinition>(std::move(definition));
}

std::string FileSourceDefinition::Description() const {
  return fmt::format("FileStreamSource[{} {}]", format_, path_);
}

Result<std::unique_ptr<Source>> FileSourceDefinition::Open(const SourceContext& context) const {
  if (context.fs == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: no file system to open it on", Description()));
  }
  auto source = std::make_unique<PlainFileSource>(
      *context.fs, *this, context.metadata_dir,
      std::make_unique<InMemoryFileTracker>(stream_options_.max_file_age_ms,
                                            stream_options_.file_name_only));
  Status recovered = source->Recover();
  if (!recovered.ok()) {
    return recovered.WithContext(fmt::format("opening {}", Description()));
  }
  return std::unique_ptr<Source>(std::move(source));
}

}  // namespace tributary::streaming
