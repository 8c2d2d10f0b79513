#include "state/state_inspection.h"

#include <stdlib.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/memory_pool.h"
#include "columnar/record_batch.h"
#include "exec/row_key.h"
#include "exec/streaming_join.h"
#include "state/state_files.h"
#include "state/state_store.h"
#include "storage/path.h"

namespace tributary::state {

namespace {

/// Rows decoded at once.
constexpr size_t kRowsPerBatch = 1024;

std::optional<int64_t> ParseId(std::string_view name) {
  int64_t id = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), id);
  if (error != std::errc() || end != name.data() + name.size() || id < 0) {
    return std::nullopt;
  }
  return id;
}

/// The ids named by the entries of `dir` (directories when `directories`, else files); empty
/// when `dir` does not exist.
Result<std::vector<int64_t>> ListIds(storage::FileSystem* fs, const std::string& dir,
                                     bool directories) {
  std::vector<int64_t> ids;
  auto listed = fs->List(dir, storage::ListOptions());
  if (!listed.ok() && listed.status().IsNotFound()) {
    return ids;
  }
  TRIBUTARY_RETURN_NOT_OK(listed.status());
  for (const storage::FileInfo& info : *listed) {
    if (info.is_directory != directories) {
      continue;
    }
    if (const auto id = ParseId(storage::BaseName(info.path)); id.has_value()) {
      ids.push_back(*id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<StatePartitionSummary> SummarizePartition(storage::FileSystem* fs, const std::string& dir,
                                                 int32_t partition_id, int64_t version) {
  StatePartitionSummary summary;
  summary.partition_id = partition_id;
  if (version == 0) {
    summary.num_rows = 0;
  }
  auto listed = fs->List(dir, storage::ListOptions());
  if (!listed.ok() && listed.status().IsNotFound()) {
    return summary;
  }
  TRIBUTARY_RETURN_NOT_OK(listed.status());
  for (const storage::FileInfo& info : *listed) {
    const auto parsed = ParseStateFileName(storage::BaseName(info.path));
    if (info.is_directory || !parsed.has_value()) {
      continue;
    }
    ++summary.num_files;
    summary.file_bytes += info.size;
    if (parsed->version == version && !summary.num_rows.has_value()) {
      // The header of either file of the version records its number of keys.
      TRIBUTARY_ASSIGN_OR_RAISE(auto reader,
                                StateFileReader::Open(fs, info.path, parsed->kind, version));
      summary.num_rows = reader->Header().num_keys;
    }
  }
  return summary;
}

/// Deletes a directory made by mkdtemp when it goes out of scope.
class TemporaryDirectory {
 public:
  static Result<TemporaryDirectory> Make() {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = storage::JoinPath(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp",
                                            "tributary-state-read-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) {
      return Status::IOError(fmt::format("cannot create a directory like {}", pattern));
    }
    return TemporaryDirectory(std::move(pattern));
  }
  TemporaryDirectory(TemporaryDirectory&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  TemporaryDirectory& operator=(TemporaryDirectory&&) = delete;
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    if (!path_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(path_, ignored);
    }
  }
  const std::string& Path() const { return path_; }

 private:
  explicit TemporaryDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

/// Decodes buffered keys and values into rows and emits them.
class RowPrinter {
 public:
  RowPrinter(const OperatorStateMetadata& metadata,
             const std::function<Status(std::string_view)>& emit)
      : metadata_(metadata), emit_(emit) {
    for (const columnar::Field& field : metadata.key_schema->Fields()) {
      key_types_.push_back(field.Type());
    }
    for (const columnar::Field& field : metadata.value_schema->Fields()) {
      value_types_.push_back(field.Type());
    }
  }

  Status Add(int32_t partition_id, std::string_view key, std::string_view value) {
    if (value.empty() || static_cast<uint8_t>(value[0]) != metadata_.format_version) {
      return Status::Corruption(fmt::format(
          "state of operator {} partition {}: a value does not start with state format version "
          "{}",
          metadata_.operator_id, partition_id, metadata_.format_version));
    }
    keys_.emplace_back(key);
    values_.emplace_back(value.substr(1));
    return keys_.size() >= kRowsPerBatch ? Flush(partition_id) : Status::OK();
  }

  Status Flush(int32_t partition_id) {
    if (keys_.empty()) {
      return Status::OK();
    }
    std::vector<std::string_view> keys(keys_.begin(), keys_.end());
    std::vector<std::string_view> values(values_.begin(), values_.end());
    const auto rows = static_cast<int64_t>(keys.size());
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto key_columns,
        exec::DecodeGroupingKeys(key_types_, keys, columnar::DefaultMemoryPool()));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto value_columns,
        exec::DecodeGroupingKeys(value_types_, values, columnar::DefaultMemoryPool()));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto key_batch,
        columnar::RecordBatch::Make(metadata_.key_schema, rows, std::move(key_columns)));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto value_batch,
        columnar::RecordBatch::Make(metadata_.value_schema, rows, std::move(value_columns)));
    std::string line;
    for (int64_t row = 0; row < rows; ++row) {
      line = "{\"key\":";
      columnar::AppendCanonicalJsonRow(*key_batch, row, &line);
      line += ",\"value\":";
      columnar::AppendCanonicalJsonRow(*value_batch, row, &line);
      line += fmt::format(",\"partition_id\":{}}}", partition_id);
      TRIBUTARY_RETURN_NOT_OK(emit_(line));
    }
    keys_.clear();
    values_.clear();
    return Status::OK();
  }

 private:
  const OperatorStateMetadata& metadata_;
  const std::function<Status(std::string_view)>& emit_;
  std::vector<columnar::DataTypePtr> key_types_;
  std::vector<columnar::DataTypePtr> value_types_;
  std::vector<std::string> keys_;
  std::vector<std::string> values_;
};

/// Decodes a stream-stream join's entries (exec/streaming_join.cc's layout): each stored row as
/// `{"key":{join key},"value":{"side":"left"|"right","matched":bool,"row":{its columns}},
/// "partition_id":p}`, as Spark's state reader shows a join side's rows. The row counts (per
/// key, per partition) are bookkeeping and not shown. The metadata's value schema holds one struct
/// per side.
class JoinRowPrinter {
 public:
  JoinRowPrinter(const OperatorStateMetadata& metadata,
                 const std::function<Status(std::string_view)>& emit)
      : metadata_(metadata), emit_(emit) {
    for (const columnar::Field& field : metadata.key_schema->Fields()) {
      key_types_.push_back(field.Type());
    }
  }

  Status Add(int32_t partition_id, std::string_view key, std::string_view value) {
    if (key.size() == 1 && key[0] == 2) {
      return Status::OK();  // the partition's number of rows
    }
    if (key.size() < 2 || static_cast<uint8_t>(key[0]) > 1 || static_cast<uint8_t>(key[1]) > 1) {
      return Corrupt(partition_id, "an entry without its side and kind");
    }
    const size_t side = static_cast<uint8_t>(key[0]);
    if (key[1] == 0) {
      return Status::OK();
    }
    if (key.size() < 2 + sizeof(uint64_t) || value.size() < 2 ||
        static_cast<uint8_t>(value[0]) != metadata_.format_version) {
      return Corrupt(partition_id, "a row entry too short or of another format version");
    }
    const std::string_view key_bytes = key.substr(2, key.size() - 2 - sizeof(uint64_t));
    const std::string_view row_bytes = value.substr(2);
    if (metadata_.value_schema->NumFields() != 2) {
      return Corrupt(partition_id, "metadata without a row schema per side");
    }
    const columnar::Field& side_field = metadata_.value_schema->FieldAt(static_cast<int>(side));
    auto row_schema = std::make_shared<columnar::Schema>(side_field.Type()->Fields());
    std::vector<columnar::DataTypePtr> row_types;
    for (const columnar::Field& field : row_schema->Fields()) {
      row_types.push_back(field.Type());
    }
    TRIBUTARY_RETURN_NOT_OK(exec::ValidateGroupingKey(key_types_, key_bytes));
    TRIBUTARY_RETURN_NOT_OK(exec::ValidateGroupingKey(row_types, row_bytes));
    const std::vector<std::string_view> keys{key_bytes};
    const std::vector<std::string_view> rows{row_bytes};
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto key_columns,
        exec::DecodeGroupingKeys(key_types_, keys, columnar::DefaultMemoryPool()));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto row_columns, exec::DecodeGroupingKeys(row_types, rows, columnar::DefaultMemoryPool()));
    TRIBUTARY_ASSIGN_OR_RAISE(auto key_batch, columnar::RecordBatch::Make(metadata_.key_schema, 1,
                                                                          std::move(key_columns)));
    TRIBUTARY_ASSIGN_OR_RAISE(auto row_batch,
                              columnar::RecordBatch::Make(row_schema, 1, std::move(row_columns)));
    std::string line = "{\"key\":";
    columnar::AppendCanonicalJsonRow(*key_batch, 0, &line);
    line += fmt::format(",\"value\":{{\"side\":\"{}\",\"matched\":{},\"row\":",
                        side == 0 ? "left" : "right", value[1] != 0 ? "true" : "false");
    columnar::AppendCanonicalJsonRow(*row_batch, 0, &line);
    line += fmt::format("}},\"partition_id\":{}}}", partition_id);
    return emit_(line);
  }

  static Status Flush(int32_t /*partition_id*/) { return Status::OK(); }

 private:
  Status Corrupt(int32_t partition_id, std::string_view what) const {
    return Status::Corruption(fmt::format("state of stream-stream join {} partition {}: {}",
                                          metadata_.operator_id, partition_id, what));
  }

  const OperatorStateMetadata& metadata_;
  const std::function<Status(std::string_view)>& emit_;
  std::vector<columnar::DataTypePtr> key_types_;
};

/// Every partition's entries of `version` through `printer`.
template <typename Printer>
Status PrintPartitions(storage::FileSystem* fs, const std::string& checkpoint,
                       const OperatorStateMetadata& metadata, int64_t version, Printer& printer) {
  TRIBUTARY_ASSIGN_OR_RAISE(const TemporaryDirectory local, TemporaryDirectory::Make());
  StateStoreConf conf;
  conf.local_dir = local.Path();
  for (int32_t partition_id = 0; partition_id < metadata.num_partitions; ++partition_id) {
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto provider,
        StateStoreProvider::Open(fs, checkpoint, metadata.operator_id, partition_id, conf));
    TRIBUTARY_ASSIGN_OR_RAISE(auto store, provider->Load(version));
    TRIBUTARY_RETURN_NOT_OK(store->ForEach([&](std::string_view key, std::string_view value) {
      return printer.Add(partition_id, key, value);
    }));
    TRIBUTARY_RETURN_NOT_OK(printer.Flush(partition_id));
  }
  return Status::OK();
}

}  // namespace

Result<std::optional<int64_t>> LastCommittedBatch(storage::FileSystem* fs,
                                                  const std::string& checkpoint) {
  TRIBUTARY_ASSIGN_OR_RAISE(const auto batches,
                            ListIds(fs, storage::JoinPath(checkpoint, "commits"), false));
  if (batches.empty()) {
    return std::optional<int64_t>();
  }
  return std::optional<int64_t>(batches.back());
}

Result<CheckpointStateSummary> SummarizeCheckpointState(storage::FileSystem* fs,
                                                        const std::string& checkpoint) {
  TRIBUTARY_ASSIGN_OR_RAISE(const storage::FileInfo root, fs->GetFileInfo(checkpoint));
  if (!root.is_directory) {
    return Status::InvalidArgument(fmt::format("{} is not a checkpoint directory", checkpoint));
  }
  CheckpointStateSummary summary;
  TRIBUTARY_ASSIGN_OR_RAISE(summary.last_committed_batch, LastCommittedBatch(fs, checkpoint));
  summary.committed_version =
      summary.last_committed_batch.has_value() ? *summary.last_committed_batch + 1 : 0;
  TRIBUTARY_ASSIGN_OR_RAISE(const auto operator_ids,
                            ListIds(fs, storage::JoinPath(checkpoint, "state"), true));
  for (const int64_t operator_id : operator_ids) {
    StateOperatorSummary op;
    op.operator_id = operator_id;
    TRIBUTARY_ASSIGN_OR_RAISE(const auto metadata,
                              ReadOperatorMetadata(fs, checkpoint, operator_id));
    std::vector<int64_t> partition_ids;
    if (metadata.has_value()) {
      op.operator_name = metadata->operator_name;
      op.num_partitions = metadata->num_partitions;
      for (int32_t p = 0; p < metadata->num_partitions; ++p) {
        partition_ids.push_back(p);
      }
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(partition_ids,
                                ListIds(fs,
                                        storage::JoinPath(storage::JoinPath(checkpoint, "state"),
                                                          std::to_string(operator_id)),
                                        true));
      op.num_partitions = static_cast<int32_t>(partition_ids.size());
    }
    for (const int64_t p : partition_ids) {
      const auto partition_id = static_cast<int32_t>(p);
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto partition,
          SummarizePartition(fs, StatePartitionDir(checkpoint, operator_id, partition_id),
                             partition_id, summary.committed_version));
      op.partitions.push_back(partition);
    }
    summary.operators.push_back(std::move(op));
  }
  return summary;
}

Status ReadStateRows(storage::FileSystem* fs, const std::string& checkpoint, int64_t operator_id,
                     int64_t version,
                     const std::function<Status(std::string_view json_line)>& emit) {
  TRIBUTARY_ASSIGN_OR_RAISE(const auto metadata, ReadOperatorMetadata(fs, checkpoint, operator_id));
  if (!metadata.has_value()) {
    return Status::NotFound(fmt::format(
        "operator {} of checkpoint {} has no state metadata (state/{}/_metadata/metadata), so "
        "its rows cannot be decoded",
        operator_id, checkpoint, operator_id));
  }
  if (metadata->operator_name == exec::kStreamingJoinOperatorName) {
    JoinRowPrinter printer(*metadata, emit);
    return PrintPartitions(fs, checkpoint, *metadata, version, printer);
  }
  RowPrinter printer(*metadata, emit);
  return PrintPartitions(fs, checkpoint, *metadata, version, printer);
}

}  // namespace tributary::state
