// The change data feed: _change_data/ files written by DML commits, and reading a table's
// changes version by version as Delta's CDCReader does.
//
//   change data file = "_change_data/" *( column "=" value "/" ) "cdc-" n5 "-" uuid ".c000."
//                      codec ".parquet"   ; the table's data columns + _change_type
//   per version v:  cdc actions present -> the cdc files' rows (their _change_type)
//                   else dataChange adds -> "insert", dataChange removes -> "delete"
//                   (no dataChange action: no rows, e.g. OPTIMIZE)

#include "delta/change_data.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "columnar/take.h"
#include "delta/deletion_vector.h"
#include "delta/log_segment.h"
#include "delta/table_properties.h"
#include "delta/table_reader.h"
#include "expr/evaluator.h"
#include "expr/scalar.h"
#include "formats/parquet/reader.h"
#include "storage/path.h"

namespace tributary::delta {

using columnar::DataType;
using columnar::Field;
using columnar::Schema;
using columnar::SchemaPtr;

bool ChangeDataFeedEnabled(const Metadata& metadata) {
  return BooleanProperty(metadata, "delta.enableChangeDataFeed", false);
}

SchemaPtr ChangeFeedSchema(const Schema& table_schema) {
  std::vector<Field> fields = table_schema.Fields();
  fields.emplace_back(std::string(kChangeTypeColumn), DataType::String());
  fields.emplace_back(std::string(kCommitVersionColumn), DataType::Int64());
  fields.emplace_back(std::string(kCommitTimestampColumn), DataType::Timestamp());
  return std::make_shared<const Schema>(std::move(fields));
}

namespace {

constexpr std::string_view kChangeDataDir = "_change_data";

/// Reads the changes of one version range into batches of ChangeFeedSchema (of the end
/// version's schema): every file is read through the end snapshot, so files of older schemas
/// map onto it as time travel maps them (missing columns null).
class ChangeReader {
 public:
  ChangeReader(storage::FileSystem& fs, const std::string& table_root,
               std::shared_ptr<const Snapshot> end_snapshot, int64_t start_version,
               int64_t end_version, const ChangeReadOptions& options)
      : fs_(fs),
        table_root_(table_root),
        end_snapshot_(std::move(end_snapshot)),
        start_version_(start_version),
        end_version_(end_version),
        options_(options),
        output_schema_(ChangeFeedSchema(*end_snapshot_->Schema())) {
    read_options_.session_time_zone = options.session_time_zone;
    read_options_.pool = options.pool;
  }

  Status Run() {
    // The table's metadata as of the first version decides whether its changes were recorded;
    // every metadata action in the range after it is checked again (CDCReader's rule).
    TRIBUTARY_ASSIGN_OR_RAISE(auto first, Snapshot::Load(fs_, table_root_, start_version_));
    if (!ChangeDataFeedEnabled(first->GetMetadata())) {
      return NotRecorded(start_version_);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        LogListing listing,
        ListLog(fs_, storage::JoinPath(table_root_, "_delta_log"), start_version_));
    int64_t expected = start_version_;
    int64_t previous_ms = INT64_MIN;
    for (const LogFile& commit : listing.commits) {
      if (commit.version < start_version_) {
        continue;
      }
      if (commit.version > end_version_) {
        break;
      }
      if (commit.version != expected) {
        break;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs_.ReadFile(commit.path));
      TRIBUTARY_ASSIGN_OR_RAISE(auto actions, ParseCommit(text, commit.path));
      std::optional<int64_t> in_commit_timestamp;
      for (const Action& action : actions) {
        if (action.in_commit_timestamp) {
          in_commit_timestamp = action.in_commit_timestamp;
        }
        if (action.metadata && commit.version > start_version_ &&
            !ChangeDataFeedEnabled(*action.metadata)) {
          return NotRecorded(commit.version);
        }
      }
      // An in-commit timestamp is the commit's time as written. File times can go backwards
      // (copies, clock skew); Delta's history makes them increase, as ReadHistory does.
      int64_t timestamp_ms = commit.modification_time_ms;
      if (in_commit_timestamp) {
        timestamp_ms = *in_commit_timestamp;
      } else if (previous_ms != INT64_MIN && timestamp_ms <= previous_ms) {
        timestamp_ms = previous_ms + 1;
      }
      previous_ms = timestamp_ms;
      TRIBUTARY_RETURN_NOT_OK(ReadVersion(commit.version, timestamp_ms, actions));
      ++expected;
    }
    if (expected <= end_version_) {
      return Status::NotFound(fmt::format(
          "{}: version {} of the change data feed is not in the log (cleaned up or missing)",
          table_root_, expected));
    }
    return Status::OK();
  }

  std::vector<columnar::RecordBatchPtr> TakeBatches() { return std::move(batches_); }

  /// The end snapshot's live rows as inserts of its version.
  Status ReadSnapshot() {
    TRIBUTARY_ASSIGN_OR_RAISE(
        LogListing listing,
        ListLog(fs_, storage::JoinPath(table_root_, "_delta_log"), end_version_));
    int64_t timestamp_ms = 0;
    for (const LogFile& commit : listing.commits) {
      if (commit.version != end_version_) {
        continue;
      }
      timestamp_ms = commit.modification_time_ms;
      TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs_.ReadFile(commit.path));
      TRIBUTARY_ASSIGN_OR_RAISE(auto actions, ParseCommit(text, commit.path));
      for (const Action& action : actions) {
        if (action.in_commit_timestamp) {
          timestamp_ms = *action.in_commit_timestamp;
        }
      }
    }
    for (const AddFile& file : end_snapshot_->Files()) {
      TRIBUTARY_RETURN_NOT_OK(ReadFileRows(file, kInsert, end_version_, timestamp_ms));
    }
    return Status::OK();
  }

 private:
  Status NotRecorded(int64_t version) const {
    return Status::InvalidArgument(fmt::format(
        "{}: Error getting change data for range [{} , {}] as change data was not recorded for "
        "version [{}]. If you've enabled change data feed on this table, use `DESCRIBE "
        "HISTORY` to see when it was first enabled. Otherwise, to start recording change data, "
        "use `ALTER TABLE table_name SET TBLPROPERTIES (delta.enableChangeDataFeed=true)`.",
        table_root_, start_version_, end_version_, version));
  }

  Status ReadVersion(int64_t version, int64_t timestamp_ms, const std::vector<Action>& actions) {
    bool has_cdc = false;
    for (const Action& action : actions) {
      if (action.cdc) {
        has_cdc = true;
        TRIBUTARY_RETURN_NOT_OK(ReadChangeDataFile(*action.cdc, version, timestamp_ms));
      }
    }
    if (has_cdc) {
      return Status::OK();
    }
    // Without change data files, a commit's dataChange adds are inserts and its dataChange
    // removes deletes. A file removed and re-added with another deletion vector (a DELETE
    // that only marks rows) changes only the rows whose deletion state differs.
    std::map<std::string, const AddFile*> added;
    for (const Action& action : actions) {
      if (action.add && action.add->data_change) {
        added.emplace(action.add->path, &*action.add);
      }
    }
    std::map<std::string, const RemoveFile*> removed;
    for (const Action& action : actions) {
      if (action.remove && action.remove->data_change) {
        removed.emplace(action.remove->path, &*action.remove);
      }
    }
    for (const auto& [path, remove] : removed) {
      auto pair = added.find(path);
      if (pair != added.end()) {
        TRIBUTARY_RETURN_NOT_OK(ReadMarkedRows(*pair->second, *remove, version, timestamp_ms));
        added.erase(pair);
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(AddFile file, RemovedFile(*remove, version));
      TRIBUTARY_RETURN_NOT_OK(ReadFileRows(file, kDelete, version, timestamp_ms));
    }
    for (const auto& [path, add] : added) {
      TRIBUTARY_RETURN_NOT_OK(ReadFileRows(*add, kInsert, version, timestamp_ms));
    }
    return Status::OK();
  }

  /// The file a remove names, as it was before its commit: partition values and deletion
  /// vector from the remove, or from the previous version's snapshot when the remove lacks
  /// them (extendedFileMetadata absent).
  Result<AddFile> RemovedFile(const RemoveFile& remove, int64_t version) {
    AddFile file;
    file.path = remove.path;
    file.partition_values = remove.partition_values;
    file.size = remove.size.value_or(0);
    file.deletion_vector = remove.deletion_vector;
    const bool partitioned = !end_snapshot_->GetMetadata().partition_columns.empty();
    if (remove.extended_file_metadata.value_or(true) &&
        (!partitioned || !remove.partition_values.empty())) {
      return file;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto before, Snapshot::Load(fs_, table_root_, version - 1));
    for (const AddFile& live : before->Files()) {
      if (live.path == remove.path) {
        return live;
      }
    }
    return file;
  }

  Status ReadFileRows(const AddFile& file, std::string_view change_type, int64_t version,
                      int64_t timestamp_ms) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto reader,
                              DataFileReader::Open(fs_, *end_snapshot_, file, read_options_));
    while (true) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto batch, reader->Next());
      if (batch == nullptr) {
        return Status::OK();
      }
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto types, expr::MakeConstantColumn(expr::Scalar::String(std::string(change_type)),
                                               batch->NumRows(), options_.pool));
      TRIBUTARY_RETURN_NOT_OK(Emit(*batch, std::move(types), version, timestamp_ms));
    }
  }

  /// A file whose deletion vector changed in place: rows deleted by the new one and not the
  /// old are deletes, rows the old one deleted and the new one does not are inserts.
  Status ReadMarkedRows(const AddFile& add, const RemoveFile& remove, int64_t version,
                        int64_t timestamp_ms) {
    std::vector<uint64_t> old_deleted;
    std::vector<uint64_t> new_deleted;
    if (remove.deletion_vector) {
      TRIBUTARY_ASSIGN_OR_RAISE(old_deleted,
                                LoadDeletedRows(fs_, table_root_, *remove.deletion_vector));
    }
    if (add.deletion_vector) {
      TRIBUTARY_ASSIGN_OR_RAISE(new_deleted,
                                LoadDeletedRows(fs_, table_root_, *add.deletion_vector));
    }
    std::vector<int64_t> deletes;
    std::vector<int64_t> inserts;
    std::set_difference(new_deleted.begin(), new_deleted.end(), old_deleted.begin(),
                        old_deleted.end(), std::back_inserter(deletes));
    std::set_difference(old_deleted.begin(), old_deleted.end(), new_deleted.begin(),
                        new_deleted.end(), std::back_inserter(inserts));
    if (deletes.empty() && inserts.empty()) {
      return Status::OK();
    }
    // Every physical row of the file, in file order: row i of the result is row index i.
    AddFile physical = add;
    physical.deletion_vector.reset();
    TRIBUTARY_ASSIGN_OR_RAISE(auto batches,
                              ReadDataFile(fs_, *end_snapshot_, physical, read_options_));
    TRIBUTARY_ASSIGN_OR_RAISE(auto all, ConcatenateBatches(batches));
    if (all == nullptr) {
      return Status::OK();
    }
    for (auto [rows, change_type] : {std::pair{&deletes, kDelete}, std::pair{&inserts, kInsert}}) {
      if (rows->empty()) {
        continue;
      }
      if (rows->back() >= all->NumRows()) {
        return Status::Corruption(
            fmt::format("{}: deletion vector of {} names row {} of a file with {} rows",
                        table_root_, add.path, rows->back(), all->NumRows()));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto taken, columnar::TakeRows(*all, *rows, options_.pool));
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto types, expr::MakeConstantColumn(expr::Scalar::String(std::string(change_type)),
                                               taken->NumRows(), options_.pool));
      TRIBUTARY_RETURN_NOT_OK(Emit(*taken, std::move(types), version, timestamp_ms));
    }
    return Status::OK();
  }

  /// A cdc file's rows: the table's columns through the end snapshot (as a data file of that
  /// partition), and the file's own _change_type column; any other column is dropped.
  Status ReadChangeDataFile(const AddCdcFile& cdc, int64_t version, int64_t timestamp_ms) {
    AddFile file;
    file.path = cdc.path;
    file.partition_values = cdc.partition_values;
    file.size = cdc.size;
    TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ReadDataFile(fs_, *end_snapshot_, file, read_options_));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto parquet_file,
        parquet::ParquetFileReader::Open(fs_, DataFilePath(table_root_, cdc.path), options_.pool));
    std::vector<columnar::ColumnPtr> type_parts;
    for (int group = 0; group < parquet_file->NumRowGroups(); ++group) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto part, parquet_file->ReadRowGroup(group, {std::string(kChangeTypeColumn)}));
      type_parts.push_back(part->ColumnAt(0));
    }
    int64_t offset = 0;
    columnar::ColumnPtr types;
    if (!type_parts.empty()) {
      TRIBUTARY_ASSIGN_OR_RAISE(types, columnar::Concatenate(type_parts, options_.pool));
    }
    for (const auto& batch : batches) {
      if (types == nullptr || offset + batch->NumRows() > types->Length()) {
        return Status::Corruption(
            fmt::format("{}: change data file {} has fewer {} values than rows", table_root_,
                        cdc.path, kChangeTypeColumn));
      }
      std::vector<int64_t> rows(static_cast<size_t>(batch->NumRows()));
      for (size_t i = 0; i < rows.size(); ++i) {
        rows[i] = offset + static_cast<int64_t>(i);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto batch_types, columnar::Take(*types, rows, options_.pool));
      offset += batch->NumRows();
      TRIBUTARY_RETURN_NOT_OK(Emit(*batch, std::move(batch_types), version, timestamp_ms));
    }
    return Status::OK();
  }

  Result<columnar::RecordBatchPtr> ConcatenateBatches(
      const std::vector<columnar::RecordBatchPtr>& batches) const {
    if (batches.empty()) {
      return columnar::RecordBatchPtr{};
    }
    if (batches.size() == 1) {
      return batches.front();
    }
    std::vector<columnar::ColumnPtr> columns;
    int64_t rows = 0;
    for (const auto& batch : batches) {
      rows += batch->NumRows();
    }
    for (int c = 0; c < batches.front()->NumColumns(); ++c) {
      std::vector<columnar::ColumnPtr> parts;
      parts.reserve(batches.size());
      for (const auto& batch : batches) {
        parts.push_back(batch->ColumnAt(c));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, columnar::Concatenate(parts, options_.pool));
      columns.push_back(std::move(column));
    }
    return columnar::RecordBatch::Make(batches.front()->Schema(), rows, std::move(columns));
  }

  /// Appends `batch` (the table's columns) with its change types and the commit's version and
  /// timestamp to the output.
  Status Emit(const columnar::RecordBatch& batch, columnar::ColumnPtr change_types, int64_t version,
              int64_t timestamp_ms) {
    std::vector<columnar::ColumnPtr> columns;
    columns.reserve(static_cast<size_t>(output_schema_->NumFields()));
    for (int c = 0; c < batch.NumColumns(); ++c) {
      columns.push_back(batch.ColumnAt(c));
    }
    columns.push_back(std::move(change_types));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto versions,
        expr::MakeConstantColumn(expr::Scalar::Int64(version), batch.NumRows(), options_.pool));
    columns.push_back(std::move(versions));
    TRIBUTARY_ASSIGN_OR_RAISE(auto timestamps,
                              expr::MakeConstantColumn(expr::Scalar::Timestamp(timestamp_ms * 1000),
                                                       batch.NumRows(), options_.pool));
    columns.push_back(std::move(timestamps));
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto out, columnar::RecordBatch::Make(output_schema_, batch.NumRows(), std::move(columns)));
    batches_.push_back(std::move(out));
    return Status::OK();
  }

  static constexpr std::string_view kInsert = "insert";
  static constexpr std::string_view kDelete = "delete";

  storage::FileSystem& fs_;
  const std::string& table_root_;
  std::shared_ptr<const Snapshot> end_snapshot_;
  int64_t start_version_;
  int64_t end_version_;
  const ChangeReadOptions& options_;
  SchemaPtr output_schema_;
  TableReadOptions read_options_;
  std::vector<columnar::RecordBatchPtr> batches_;
};

}  // namespace

Result<std::vector<AddCdcFile>> WriteChangeDataFiles(
    storage::FileSystem& fs, const std::string& table_root, const SchemaPtr& schema,
    const std::vector<std::string>& partition_columns,
    const std::vector<columnar::RecordBatchPtr>& change_rows, const DataWriteOptions& options) {
  std::vector<Field> fields = schema->Fields();
  fields.emplace_back(std::string(kChangeTypeColumn), DataType::String());
  auto file_schema = std::make_shared<const Schema>(std::move(fields));
  DataWriteOptions file_options = options;
  file_options.file_prefix = "cdc";
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto writer,
      DataFileWriter::Make(fs, storage::JoinPath(table_root, std::string(kChangeDataDir)),
                           file_schema, partition_columns, std::move(file_options)));
  for (const auto& batch : change_rows) {
    TRIBUTARY_RETURN_NOT_OK(writer->Append(batch));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<AddFile> written, writer->Finish());
  std::vector<AddCdcFile> cdc_files;
  cdc_files.reserve(written.size());
  for (AddFile& add : written) {
    AddCdcFile cdc;
    cdc.path = fmt::format("{}/{}", kChangeDataDir, add.path);
    cdc.partition_values = std::move(add.partition_values);
    cdc.size = add.size;
    cdc.data_change = false;
    cdc_files.push_back(std::move(cdc));
  }
  return cdc_files;
}

Result<std::vector<columnar::RecordBatchPtr>> ReadChanges(storage::FileSystem& fs,
                                                          const std::string& table_root,
                                                          int64_t start_version,
                                                          std::optional<int64_t> end_version,
                                                          const ChangeReadOptions& options) {
  if (start_version < 0) {
    return Status::InvalidArgument(fmt::format(
        "{}: the change data feed's starting version {} is negative", table_root, start_version));
  }
  if (end_version && *end_version < start_version) {
    return Status::InvalidArgument(fmt::format(
        "{}: CDC range from start {} to end {} was invalid. End cannot be before start.",
        table_root, start_version, *end_version));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto latest, Snapshot::Load(fs, table_root));
  if (start_version > latest->Version()) {
    return Status::InvalidArgument(fmt::format(
        "{}: Provided Start version({}) for reading change data is invalid. Start version "
        "cannot be greater than the latest version of the table({}).",
        table_root, start_version, latest->Version()));
  }
  const int64_t last = std::min(end_version.value_or(latest->Version()), latest->Version());
  std::shared_ptr<const Snapshot> end_snapshot = latest;
  if (last != latest->Version()) {
    TRIBUTARY_ASSIGN_OR_RAISE(end_snapshot, Snapshot::Load(fs, table_root, last));
  }
  ChangeReader reader(fs, table_root, end_snapshot, start_version, last, options);
  TRIBUTARY_RETURN_NOT_OK(reader.Run());
  return reader.TakeBatches();
}

Result<std::vector<columnar::RecordBatchPtr>> ReadSnapshotAsInserts(
    storage::FileSystem& fs, const std::string& table_root, int64_t version,
    const ChangeReadOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Snapshot::Load(fs, table_root, version));
  ChangeReader reader(fs, table_root, snapshot, version, version, options);
  TRIBUTARY_RETURN_NOT_OK(reader.ReadSnapshot());
  return reader.TakeBatches();
}

}  // namespace tributary::delta
