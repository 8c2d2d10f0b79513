// The Delta stream source. Files it writes under the source's checkpoint folder:
//
//   <checkpoint>/sources/<n>/startingOffset := offset-json "\n"
//
// written once (put-if-absent) when the stream first asks for data: the position before the
// first batch (the initial snapshot's version, or the startingVersion/startingTimestamp commit),
// so that re-running batch 0 after a crash reads exactly what it read the first time even when
// the table has moved on. offset-json is the DeltaSourceOffset object of delta_source.h.
//
// Reading: each trigger lists `_delta_log/` from the position's version on and parses only the
// commit files it has not parsed yet (kept until the engine commits past them); the initial
// snapshot is loaded once per run.

#include "streaming/delta_source.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/ascii.h"
#include "delta/actions.h"
#include "delta/change_data.h"
#include "delta/history.h"
#include "delta/log_segment.h"
#include "delta/schema_json.h"
#include "expr/temporal_parsing.h"
#include "formats/reader_options.h"
#include "storage/path.h"
#include "streaming/schema_change.h"

namespace tributary::streaming {

using nlohmann::json;

namespace {

constexpr int64_t kBaseIndex = -1;
constexpr int64_t kDefaultMaxFilesPerTrigger = 1000;
constexpr const char* kStartingOffsetFile = "startingOffset";

// A DeltaSourceOffset (delta_source.h): everything up to file `index` of `version` is read.
struct Position {
  int64_t version = 0;
  int64_t index = kBaseIndex;
  bool initial_snapshot = false;

  bool operator==(const Position& other) const = default;
  // Whether file `file_index` of `file_version` lies at or before this position.
  bool Covers(int64_t file_version, int64_t file_index) const {
    return file_version < version || (file_version == version && file_index <= index);
  }
};

std::string OffsetJson(const std::string& table_id, const Position& position) {
  return json({{"sourceVersion", 1},
               {"reservoirId", table_id},
               {"reservoirVersion", position.version},
               {"index", position.index},
               {"isStartingVersion", position.initial_snapshot}})
      .dump();
}

Result<Position> ParseOffset(std::string_view text, const std::string& table_id,
                             const std::string& table_root) {
  auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format(
        "DeltaSource[{}]: offset {} is not a Delta source offset: {}", table_root, text, why));
  };
  json parsed = json::parse(text, nullptr, false);
  if (!parsed.is_object()) {
    return invalid("not a JSON object");
  }
  auto integer = [&](const char* key) -> std::optional<int64_t> {
    auto it = parsed.find(key);
    if (it == parsed.end() || !it->is_number_integer()) {
      return std::nullopt;
    }
    return it->get<int64_t>();
  };
  const auto source_version = integer("sourceVersion");
  const auto version = integer("reservoirVersion");
  const auto index = integer("index");
  auto id = parsed.find("reservoirId");
  auto starting = parsed.find("isStartingVersion");
  if (!source_version || !version || !index || id == parsed.end() || !id->is_string() ||
      starting == parsed.end() || !starting->is_boolean()) {
    return invalid(
        "needs integers sourceVersion, reservoirVersion and index, string reservoirId and "
        "boolean isStartingVersion");
  }
  if (*source_version != 1 && *source_version != 3) {
    return invalid(fmt::format("sourceVersion {} is not supported (1 or 3)", *source_version));
  }
  if (*index < kBaseIndex) {
    return Status::NotImplemented(
        fmt::format("DeltaSource[{}]: offset {} marks a schema change of Delta's schema tracking "
                    "(index {}), which this source does not implement",
                    table_root, text, *index));
  }
  if (id->get<std::string>() != table_id) {
    return Status::InvalidArgument(fmt::format(
        "DeltaSource[{}]: the checkpoint read the table with id {}, but the table there now has "
        "id {} (it was replaced); start the query with a new checkpoint",
        table_root, id->get<std::string>(), table_id));
  }
  return Position{*version, *index, starting->get<bool>()};
}

// Java's byte strings, as Delta's maxBytesPerTrigger takes them: a count with an optional
// binary unit b, k/kb, m/mb, g/gb, t/tb, p/pb.
Result<int64_t> ParseByteString(std::string_view key, const std::string& value) {
  const std::string lowered = AsciiLower(value);
  size_t digits = 0;
  while (digits < lowered.size() && std::isdigit(static_cast<unsigned char>(lowered[digits]))) {
    ++digits;
  }
  int64_t count = 0;
  const auto [end, error] = std::from_chars(lowered.data(), lowered.data() + digits, count);
  const std::string unit = lowered.substr(digits);
  static const std::map<std::string, int> kShifts = {{"", 0},   {"b", 0},   {"k", 10}, {"kb", 10},
                                                     {"m", 20}, {"mb", 20}, {"g", 30}, {"gb", 30},
                                                     {"t", 40}, {"tb", 40}, {"p", 50}, {"pb", 50}};
  auto shift = kShifts.find(unit);
  if (digits == 0 || error != std::errc{} || shift == kShifts.end() ||
      count > (INT64_MAX >> shift->second) || count <= 0) {
    return Status::InvalidArgument(fmt::format(
        "{} '{}' is not a positive byte count (a number with an optional unit b, k, m, g, t)", key,
        value));
  }
  return count << shift->second;
}

Result<int64_t> ParsePositiveInteger(std::string_view key, const std::string& value,
                                     int64_t minimum) {
  int64_t parsed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (error != std::errc{} || end != value.data() + value.size() || parsed < minimum) {
    return Status::InvalidArgument(
        fmt::format("{} '{}' is not an integer of at least {}", key, value, minimum));
  }
  return parsed;
}

// The parts of one commit a stream cares about.
struct CommitChanges {
  int64_t version = 0;
  // add actions with dataChange=true, in log order.
  std::vector<delta::AddFile> adds;
  bool removes_data = false;
  std::string first_removed_path;
  std::optional<delta::Metadata> metadata;
  // commitInfo.operation, or "unknown operation".
  std::string operation;
};

Result<CommitChanges> ReadCommitChanges(storage::FileSystem& fs, const delta::LogFile& file) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs.ReadFile(file.path));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<delta::Action> actions,
                            delta::ParseCommit(text, file.path));
  CommitChanges changes;
  changes.version = file.version;
  changes.operation = "unknown operation";
  for (delta::Action& action : actions) {
    if (action.add && action.add->data_change) {
      changes.adds.push_back(std::move(*action.add));
    } else if (action.remove && action.remove->data_change) {
      if (!changes.removes_data) {
        changes.first_removed_path = action.remove->path;
      }
      changes.removes_data = true;
    } else if (action.metadata) {
      changes.metadata = std::move(action.metadata);
    } else if (action.commit_info) {
      json info = json::parse(*action.commit_info, nullptr, false);
      auto op = info.is_object() ? info.find("operation") : info.end();
      if (op != info.end() && op->is_string()) {
        changes.operation = op->get<std::string>();
      }
    }
  }
  return changes;
}

// How a table schema `data` (from a metaData action) compares with the schema `read` the
// stream reads with: columns only `data` has (added), columns only `read` has (dropped), and
// type or nullability conflicts of common columns, by dotted path.
struct SchemaDifference {
  std::vector<std::string> added;
  std::vector<std::string> dropped;
  std::vector<std::string> conflicts;
};

void CompareFields(const std::vector<columnar::Field>& data,
                   const std::vector<columnar::Field>& read, const std::string& prefix,
                   SchemaDifference* diff) {
  auto find = [](const std::vector<columnar::Field>& fields, const std::string& name) {
    return std::find_if(fields.begin(), fields.end(),
                        [&](const columnar::Field& f) { return f.Name() == name; });
  };
  for (const columnar::Field& field : data) {
    const std::string path = prefix + field.Name();
    auto match = find(read, field.Name());
    if (match == read.end()) {
      diff->added.push_back(fmt::format("{} {}", path, field.Type()->ToString()));
      continue;
    }
    if (field.Nullable() && !match->Nullable()) {
      diff->conflicts.push_back(fmt::format("{} became nullable", path));
    }
    const columnar::DataType& a = *field.Type();
    const columnar::DataType& b = *match->Type();
    if (a.Id() == columnar::TypeId::kStruct && b.Id() == columnar::TypeId::kStruct) {
      CompareFields(a.Fields(), b.Fields(), path + ".", diff);
    } else if (!a.SameShape(b)) {
      diff->conflicts.push_back(fmt::format("{} is {} in the table but {} in the stream", path,
                                            a.ToString(), b.ToString()));
    }
  }
  for (const columnar::Field& field : read) {
    if (find(data, field.Name()) == data.end()) {
      diff->dropped.push_back(prefix + field.Name());
    }
  }
}

// Limits of one micro-batch, admitted as Delta does: a file is taken while both budgets are
// above zero, so the first file always fits and maxBytesPerTrigger is soft.
struct Admission {
  int64_t files_left = INT64_MAX;
  int64_t bytes_left = INT64_MAX;

  bool HasCapacity() const { return files_left > 0 && bytes_left > 0; }
  void Take(const delta::AddFile& file) {
    --files_left;
    bytes_left -= file.size;
  }
};

// What one walk over the table's changes found: the files admitted and the position after them.
struct Walk {
  std::vector<delta::AddFile> files;
  Position end;
};

class DeltaSource final : public Source {
 public:
  DeltaSource(const DeltaSourceDefinition& definition, SourceContext context)
      : context_(std::move(context)),
        fs_(*context_.fs),
        root_(definition.TableRoot()),
        log_dir_(storage::JoinPath(root_, "_delta_log")),
        description_(definition.Description()),
        options_(definition.Options()),
        snapshot_(definition.SnapshotAtDefinition()),
        table_id_(snapshot_->GetMetadata().id) {}

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                             bool respect_limits) override {
    listing_.reset();
    Position from;
    if (start) {
      TRIBUTARY_ASSIGN_OR_RAISE(from, ParseOffset(*start, table_id_, root_));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(from, StartingPosition());
    }
    if (options_.read_change_feed) {
      return LatestChangeOffset(start, from);
    }
    if (available_now_requested_ && !available_now_end_) {
      TRIBUTARY_ASSIGN_OR_RAISE(Walk everything, WalkFrom(from, std::nullopt, std::nullopt));
      available_now_end_ = everything.end;
    }
    std::optional<Admission> limits;
    if (respect_limits) {
      limits = DefaultAdmission();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(Walk walk, WalkFrom(from, available_now_end_, limits));
    CountOutstanding(walk.files.empty() ? from : walk.end);
    if (walk.files.empty()) {
      if (!start) {
        return std::optional<Offset>();  // no data at all yet
      }
      return std::optional<Offset>(*start);
    }
    return std::optional<Offset>(OffsetJson(table_id_, walk.end));
  }

  // Delta's source metrics: what is left after the newest offset, as its progress reports.
  std::map<std::string, std::string> Metrics() const override {
    return {{"numBytesOutstanding", std::to_string(bytes_outstanding_)},
            {"numFilesOutstanding", std::to_string(files_outstanding_)}};
  }

  Status PrepareForTriggerAvailableNow() override {
    available_now_requested_ = true;
    available_now_end_.reset();
    return Status::OK();
  }

  Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start,
                                    const Offset& end) override {
    listing_.reset();
    TRIBUTARY_ASSIGN_OR_RAISE(Position to, ParseOffset(end, table_id_, root_));
    Position from;
    if (start) {
      TRIBUTARY_ASSIGN_OR_RAISE(from, ParseOffset(*start, table_id_, root_));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(from, StartingPositionForBatchZero(to));
    }
    if (options_.read_change_feed) {
      return ChangeBatch(from, to);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(Walk walk, WalkFrom(from, to, std::nullopt));
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kDelta;
    source.schema = snapshot_->Schema();
    source.description =
        fmt::format("{} {} files up to v{}", description_, walk.files.size(),
                    to.initial_snapshot ? to.version : std::max<int64_t>(to.version - 1, 0));
    source.snapshot = snapshot_->WithFiles(std::move(walk.files));
    source.pinned_version = true;
    return source;
  }

  Status Commit(const Offset& end) override {
    TRIBUTARY_ASSIGN_OR_RAISE(Position done, ParseOffset(end, table_id_, root_));
    commits_.erase(commits_.begin(), commits_.lower_bound(done.version));
    if (!done.initial_snapshot) {
      initial_files_.reset();
    }
    return Status::OK();
  }

 private:
  // The change feed's offsets are whole commits: Position{next version to read, base, false},
  // or the initial snapshot's Position{version, base, true} before the first batch.
  Result<std::optional<Offset>> LatestChangeOffset(const std::optional<Offset>& start,
                                                   const Position& from) {
    const int64_t first = from.initial_snapshot ? from.version + 1 : from.version;
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<const CommitChanges*> commits, CommitsFrom(first));
    int64_t next = first;
    for (const CommitChanges* changes : commits) {
      if (available_now_end_ && changes->version >= available_now_end_->version) {
        break;
      }
      next = changes->version + 1;
    }
    if (available_now_requested_ && !available_now_end_) {
      available_now_end_ = Position{next, kBaseIndex, false};
    }
    if (!from.initial_snapshot && next == first) {
      return start ? std::optional<Offset>(*start) : std::optional<Offset>();
    }
    return std::optional<Offset>(OffsetJson(table_id_, Position{next, kBaseIndex, false}));
  }

  // The changes after `from` up to `to`: the initial snapshot's rows as inserts when `from` is
  // one, then every commit before `to.version`.
  Result<plan::ScanSource> ChangeBatch(const Position& from, const Position& to) {
    delta::ChangeReadOptions read_options;
    read_options.session_time_zone = context_.eval.session_time_zone;
    std::vector<columnar::RecordBatchPtr> rows;
    int64_t first = from.version;
    if (from.initial_snapshot) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          rows, delta::ReadSnapshotAsInserts(fs_, root_, from.version, read_options));
      first = from.version + 1;
    }
    if (first < to.version) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto changes, delta::ReadChanges(fs_, root_, first, to.version - 1, read_options));
      for (auto& batch : changes) {
        rows.push_back(std::move(batch));
      }
    }
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kValues;
    source.schema = delta::ChangeFeedSchema(*snapshot_->Schema());
    for (const auto& batch : rows) {
      if (!batch->Schema()->AsStruct()->SameShape(*source.schema->AsStruct())) {
        return Status::NotImplemented(fmt::format(
            "{}: the table's schema changed after the stream started reading its change data "
            "feed (now {}); restart the stream",
            description_, batch->Schema()->AsStruct()->ToString()));
      }
    }
    source.batches = std::move(rows);
    source.description = fmt::format("{} changes v{}..v{}", description_, from.version,
                                     std::max<int64_t>(to.version - 1, from.version));
    return source;
  }

  // The files and bytes after `position` (up to the available-now end); a commit the stream
  // cannot pass ends the count.
  void CountOutstanding(const Position& position) {
    auto rest = WalkFrom(position, available_now_end_, std::nullopt);
    files_outstanding_ = 0;
    bytes_outstanding_ = 0;
    if (rest.ok()) {
      for (const delta::AddFile& file : rest->files) {
        ++files_outstanding_;
        bytes_outstanding_ += file.size;
      }
    }
  }

  Admission DefaultAdmission() const {
    Admission admission;
    if (options_.max_files_per_trigger) {
      admission.files_left = *options_.max_files_per_trigger;
    } else if (!options_.max_bytes_per_trigger) {
      admission.files_left = kDefaultMaxFilesPerTrigger;
    }
    if (options_.max_bytes_per_trigger) {
      admission.bytes_left = *options_.max_bytes_per_trigger;
    }
    return admission;
  }

  // `sources/<n>/startingOffset`, or "" when the source has no checkpoint folder.
  std::string PinPath() const {
    return context_.metadata_dir.empty()
               ? std::string()
               : storage::JoinPath(context_.metadata_dir, kStartingOffsetFile);
  }

  // The position before the first batch: pinned in the checkpoint the first time, read back
  // from it afterwards.
  Result<Position> StartingPosition() {
    if (starting_position_) {
      return *starting_position_;
    }
    const std::string pin_path = PinPath();
    if (!pin_path.empty()) {
      auto pinned = ReadPinnedStart(pin_path);
      if (!pinned.ok() && !pinned.status().IsNotFound()) {
        return pinned.status();
      }
      if (pinned.ok()) {
        starting_position_ = *pinned;
        return *pinned;
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(Position position, ComputeStartingPosition());
    if (!pin_path.empty()) {
      Status written = fs_.WriteFile(pin_path, OffsetJson(table_id_, position) + "\n",
                                     storage::WriteMode::kPutIfAbsent);
      if (written.IsAlreadyExists()) {
        TRIBUTARY_ASSIGN_OR_RAISE(position, ReadPinnedStart(pin_path));
      } else if (!written.ok()) {
        return written;
      }
    }
    starting_position_ = position;
    return position;
  }

  Result<Position> ReadPinnedStart(const std::string& path) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs_.ReadFile(path));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
      text.pop_back();
    }
    auto position = ParseOffset(text, table_id_, root_);
    if (!position.ok()) {
      return position.status().WithContext(path);
    }
    return position;
  }

  // Batch 0 re-run without a pinned start (a checkpoint written elsewhere): Delta's rule.
  Result<Position> StartingPositionForBatchZero(const Position& end) {
    const std::string pin_path = PinPath();
    if (starting_position_ || pin_path.empty()) {
      return StartingPosition();
    }
    TRIBUTARY_ASSIGN_OR_RAISE(bool pinned, fs_.Exists(pin_path));
    if (pinned) {
      return StartingPosition();
    }
    const DeltaSourceOptions& options = options_;
    if (end.initial_snapshot) {
      return Position{end.version, kBaseIndex, true};
    }
    // A change feed's offsets name whole commits, not the initial snapshot's version.
    if (options.starting_version || options.starting_version_latest || options.starting_timestamp ||
        options.read_change_feed) {
      return StartingPosition();
    }
    return Position{end.version - 1, kBaseIndex, true};
  }

  Result<Position> ComputeStartingPosition() {
    const DeltaSourceOptions& options = options_;
    if (!options.starting_version && !options.starting_version_latest &&
        !options.starting_timestamp) {
      return Position{snapshot_->Version(), kBaseIndex, true};
    }
    TRIBUTARY_ASSIGN_OR_RAISE(delta::LogListing listing, delta::ListLog(fs_, log_dir_));
    if (listing.commits.empty()) {
      return Status::NotFound(fmt::format("DeltaSource[{}]: the log has no commits", root_));
    }
    const int64_t earliest = listing.commits.front().version;
    const int64_t latest = listing.commits.back().version;
    if (options.starting_version_latest) {
      return Position{latest + 1, kBaseIndex, false};
    }
    if (options.starting_version) {
      const int64_t v = *options.starting_version;
      if (v > latest || v < earliest) {
        return Status::InvalidArgument(fmt::format(
            "DeltaSource[{}]: startingVersion {} is not a version of the table; available "
            "versions: [{}, {}]",
            root_, v, earliest, latest));
      }
      return Position{v, kBaseIndex, false};
    }
    int64_t micros = 0;
    if (!expr::ParseTimestamp(*options.starting_timestamp, context_.eval.session_time_zone, false,
                              &micros)) {
      return Status::InvalidArgument(
          fmt::format("DeltaSource[{}]: startingTimestamp '{}' is not a timestamp or date", root_,
                      *options.starting_timestamp));
    }
    // Delta: the commit at the timestamp, else the first one after it (commit timestamps are
    // made monotonic by the history reader).
    const int64_t wanted_ms = micros / 1000 + (micros % 1000 > 0 ? 1 : 0);
    TRIBUTARY_ASSIGN_OR_RAISE(auto history, delta::ReadHistory(fs_, root_));
    for (const delta::CommitEntry& entry : history) {
      if (entry.timestamp_ms >= wanted_ms) {
        return Position{entry.version, kBaseIndex, false};
      }
    }
    return Status::InvalidArgument(fmt::format(
        "DeltaSource[{}]: startingTimestamp '{}' is after the latest commit (version {} at {} "
        "ms)",
        root_, *options.starting_timestamp, latest,
        history.empty() ? 0 : history.back().timestamp_ms));
  }

  // The initial snapshot's files at `version`, in Delta's order: modification time, then path.
  Result<const std::vector<delta::AddFile>*> InitialFiles(int64_t version) {
    if (!initial_files_ || initial_files_version_ != version) {
      std::shared_ptr<const delta::Snapshot> snapshot = snapshot_;
      if (snapshot->Version() != version) {
        auto loaded = delta::Snapshot::Load(fs_, root_, version);
        if (!loaded.ok()) {
          return loaded.status().WithContext(fmt::format(
              "DeltaSource[{}]: loading the initial snapshot at version {}", root_, version));
        }
        snapshot = std::move(*loaded);
      }
      std::vector<delta::AddFile> files = snapshot->Files();
      std::stable_sort(files.begin(), files.end(),
                       [](const delta::AddFile& a, const delta::AddFile& b) {
                         if (a.modification_time != b.modification_time) {
                           return a.modification_time < b.modification_time;
                         }
                         return a.path < b.path;
                       });
      initial_files_ = std::move(files);
      initial_files_version_ = version;
    }
    return &*initial_files_;
  }

  // The commits from `first` on, parsed (from the cache when already read), in order, stopping
  // before `stop_before` when given. Missing commits are data loss (failOnDataLoss).
  Result<std::vector<const CommitChanges*>> CommitsFrom(int64_t first) {
    // One listing serves every walk of one call (the batch, then what is outstanding).
    if (!listing_ || listing_->first > first) {
      TRIBUTARY_ASSIGN_OR_RAISE(delta::LogListing listing, delta::ListLog(fs_, log_dir_, first));
      listing_.emplace(first, std::move(listing.commits));
    }
    std::vector<const CommitChanges*> out;
    int64_t expected = first;
    for (const delta::LogFile& file : listing_->second) {
      if (file.version < first) {
        continue;
      }
      if (file.version != expected) {
        if (options_.fail_on_data_loss) {
          return Status::NotFound(fmt::format(
              "DeltaSource[{}]: commits {} to {} that the stream has not read yet are missing "
              "from the log (removed by log cleanup after delta.logRetentionDuration?); the "
              "next available is version {}. Set failOnDataLoss to false to skip to it, losing "
              "their data",
              root_, expected, file.version - 1, file.version));
        }
        expected = file.version;
      }
      auto cached = commits_.find(file.version);
      if (cached == commits_.end()) {
        TRIBUTARY_ASSIGN_OR_RAISE(CommitChanges changes, ReadCommitChanges(fs_, file));
        cached = commits_.emplace(file.version, std::move(changes)).first;
      }
      out.push_back(&cached->second);
      ++expected;
    }
    return out;
  }

  // Whether the stream may read past `changes`' metaData action: OK when its schema can be read
  // with the stream's, a schema change (schema_change.h) when it only adds columns, InvalidArgument
  // otherwise.
  Status CheckSchema(const CommitChanges& changes) const {
    auto schema = delta::ParseSchemaString(changes.metadata->schema_string);
    if (!schema.ok()) {
      return schema.status().WithContext(
          fmt::format("DeltaSource[{}] at version {}", root_, changes.version));
    }
    const columnar::Schema& read = *snapshot_->Schema();
    SchemaDifference diff;
    CompareFields((*schema)->Fields(), read.Fields(), "", &diff);
    if (diff.conflicts.empty() && diff.added.empty()) {
      return Status::OK();  // the same, or older columns the stream reads as nulls
    }
    if (diff.conflicts.empty() && diff.dropped.empty()) {
      return SchemaChangedStatus(fmt::format(
          "DeltaSource[{}]: the table's schema changed at version {} ({}): new columns {}. "
          "Restart the query to read them; it continues where it stopped",
          root_, changes.version, changes.operation, fmt::join(diff.added, ", ")));
    }
    std::vector<std::string> reasons = diff.conflicts;
    if (!diff.added.empty()) {
      reasons.push_back(fmt::format("added {}", fmt::join(diff.added, ", ")));
    }
    if (!diff.dropped.empty()) {
      reasons.push_back(fmt::format("dropped {}", fmt::join(diff.dropped, ", ")));
    }
    return Status::InvalidArgument(fmt::format(
        "DeltaSource[{}]: the table's schema changed incompatibly at version {} ({}): {}. The "
        "stream cannot continue; start it again with a new checkpoint",
        root_, changes.version, changes.operation, fmt::join(reasons, "; ")));
  }

  // Whether commit `changes` is skipped (skipChangeCommits), or an error when it removes data
  // and no option allows that.
  Result<bool> SkipCommit(const CommitChanges& changes) const {
    if (!changes.removes_data) {
      return false;
    }
    const DeltaSourceOptions& options = options_;
    if (options.skip_change_commits) {
      return true;
    }
    const bool rewrites = !changes.adds.empty();
    if (options.ignore_changes || (!rewrites && options.ignore_deletes)) {
      return false;
    }
    return Status::InvalidArgument(fmt::format(
        "DeltaSource[{}]: version {} ({}) {} data (it removes {}), which a stream of appends "
        "cannot follow. Set skipChangeCommits to skip such commits{}",
        root_, changes.version, changes.operation,
        rewrites ? "updates existing" : "deletes existing", changes.first_removed_path,
        rewrites ? "" : ", or ignoreDeletes to let deletes through"));
  }

  // The files after `from`, up to `bound` when given, within `limits` when given. A metaData
  // action the stream cannot read past ends the walk before its commit when files were taken,
  // else is the walk's error.
  Result<Walk> WalkFrom(const Position& from, const std::optional<Position>& bound,
                        std::optional<Admission> limits) {
    Walk walk;
    walk.end = from;
    auto admit = [&](const delta::AddFile& file, int64_t version, int64_t index) {
      if ((bound && !bound->Covers(version, index)) || (limits && !limits->HasCapacity())) {
        return false;
      }
      if (limits) {
        limits->Take(file);
      }
      walk.files.push_back(file);
      return true;
    };
    int64_t first_commit = from.version;
    int64_t first_index = from.index + 1;
    if (from.initial_snapshot) {
      TRIBUTARY_ASSIGN_OR_RAISE(const std::vector<delta::AddFile>* files,
                                InitialFiles(from.version));
      const auto count = static_cast<int64_t>(files->size());
      for (int64_t i = from.index + 1; i < count; ++i) {
        if (!admit((*files)[static_cast<size_t>(i)], from.version, i)) {
          return walk;
        }
        walk.end = i + 1 == count ? Position{from.version + 1, kBaseIndex, false}
                                  : Position{from.version, i, true};
      }
      first_commit = from.version + 1;
      first_index = 0;
    }
    if (bound && !bound->Covers(first_commit, first_index)) {
      return walk;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<const CommitChanges*> commits, CommitsFrom(first_commit));
    for (const CommitChanges* changes : commits) {
      const int64_t v = changes->version;
      if ((bound && !bound->Covers(v, 0)) || (limits && !limits->HasCapacity())) {
        break;
      }
      if (changes->metadata) {
        Status readable = CheckSchema(*changes);
        if (!readable.ok()) {
          if (!walk.files.empty()) {
            break;  // this batch ends before the change; the next one reports it
          }
          return readable;
        }
      }
      Result<bool> skip = SkipCommit(*changes);
      if (!skip.ok()) {
        if (!walk.files.empty()) {
          break;  // likewise: the files before the refused commit are still read
        }
        return skip.status();
      }
      if (*skip) {
        continue;
      }
      const auto count = static_cast<int64_t>(changes->adds.size());
      for (int64_t i = v == first_commit ? first_index : 0; i < count; ++i) {
        if (!admit(changes->adds[static_cast<size_t>(i)], v, i)) {
          return walk;
        }
        walk.end = i + 1 == count ? Position{v + 1, kBaseIndex, false} : Position{v, i, false};
      }
    }
    return walk;
  }

  SourceContext context_;
  storage::FileSystem& fs_;
  std::string root_;
  std::string log_dir_;
  std::string description_;
  DeltaSourceOptions options_;
  // The definition's snapshot: its schema, protocol and metadata read every batch.
  std::shared_ptr<const delta::Snapshot> snapshot_;
  std::string table_id_;
  std::optional<Position> starting_position_;
  std::optional<std::vector<delta::AddFile>> initial_files_;
  int64_t initial_files_version_ = -1;
  std::map<int64_t, CommitChanges> commits_;
  // The commit files listed from a version on, during one LatestOffset or GetBatch call.
  std::optional<std::pair<int64_t, std::vector<delta::LogFile>>> listing_;
  bool available_now_requested_ = false;
  std::optional<Position> available_now_end_;
  int64_t files_outstanding_ = 0;
  int64_t bytes_outstanding_ = 0;
};

}  // namespace

Result<DeltaSourceOptions> DeltaSourceOptions::FromMap(
    const std::map<std::string, std::string>& options) {
  DeltaSourceOptions out;
  for (const auto& [key, value] : options) {
    const std::string lowered = AsciiLower(key);
    if (lowered == "maxfilespertrigger") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.max_files_per_trigger, ParsePositiveInteger(key, value, 1));
    } else if (lowered == "maxbytespertrigger") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.max_bytes_per_trigger, ParseByteString(key, value));
    } else if (lowered == "startingversion") {
      if (AsciiLower(value) == "latest") {
        out.starting_version_latest = true;
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(out.starting_version, ParsePositiveInteger(key, value, 0));
      }
    } else if (lowered == "startingtimestamp") {
      int64_t micros = 0;
      if (!expr::ParseTimestamp(value, expr::TimeZone(), false, &micros)) {
        return Status::InvalidArgument(
            fmt::format("{} '{}' is not a timestamp or date", key, value));
      }
      out.starting_timestamp = value;
    } else if (lowered == "ignoredeletes") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.ignore_deletes, formats::BooleanOption(key, value));
    } else if (lowered == "ignorechanges") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.ignore_changes, formats::BooleanOption(key, value));
    } else if (lowered == "skipchangecommits") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.skip_change_commits, formats::BooleanOption(key, value));
    } else if (lowered == "failondataloss") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.fail_on_data_loss, formats::BooleanOption(key, value));
    } else if (lowered == "readchangefeed" || lowered == "readchangedata") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.read_change_feed, formats::BooleanOption(key, value));
    }
  }
  if ((out.starting_version || out.starting_version_latest) && out.starting_timestamp) {
    return Status::InvalidArgument(
        "give either startingVersion or startingTimestamp to a Delta stream, not both");
  }
  return out;
}

DeltaSourceDefinition::DeltaSourceDefinition(std::string table_root, DeltaSourceOptions options,
                                             std::shared_ptr<const delta::Snapshot> snapshot)
    : table_root_(std::move(table_root)),
      options_(std::move(options)),
      snapshot_(std::move(snapshot)) {}

Result<std::shared_ptr<const DeltaSourceDefinition>> DeltaSourceDefinition::Make(
    storage::FileSystem& fs, std::string table_root,
    const std::map<std::string, std::string>& options) {
  auto parsed = DeltaSourceOptions::FromMap(options);
  if (!parsed.ok()) {
    return parsed.status().WithContext(fmt::format("DeltaSource[{}]", table_root));
  }
  auto snapshot = delta::Snapshot::Load(fs, table_root);
  if (!snapshot.ok()) {
    return snapshot.status().WithContext(
        fmt::format("reading Delta table {} as a stream source", table_root));
  }
  return std::shared_ptr<const DeltaSourceDefinition>(
      new DeltaSourceDefinition(std::move(table_root), std::move(*parsed), std::move(*snapshot)));
}

std::string DeltaSourceDefinition::Description() const {
  return fmt::format("DeltaSource[{}]", table_root_);
}

columnar::SchemaPtr DeltaSourceDefinition::Schema() const {
  return options_.read_change_feed ? delta::ChangeFeedSchema(*snapshot_->Schema())
                                   : snapshot_->Schema();
}

std::string DeltaSourceDefinition::Identity() const {
  return fmt::format("delta {}", table_root_);
}

Result<std::unique_ptr<Source>> DeltaSourceDefinition::Open(const SourceContext& context) const {
  if (context.fs == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: opened without a file system", Description()));
  }
  return std::unique_ptr<Source>(std::make_unique<DeltaSource>(*this, context));
}

}  // namespace tributary::streaming
