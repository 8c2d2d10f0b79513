// One commit of a row-level change. Per file with deleted rows, either (deletion vectors)
//
//   remove(file as read, its old DV) + add(same path, DV = old rows ∪ new rows, stats with
//   numRecords unchanged and tightBounds false)      -- or remove only when no row is left
//
// or (copy-on-write) remove(file) + the file's surviving rows written as new files. New rows
// and change data files are written next to them; the commit holds every action.

#include "delta/row_changes.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/take.h"
#include "common/ascii.h"
#include "common/crash_point.h"
#include "delta/change_data.h"
#include "delta/deletion_vector.h"
#include "delta/schema_json.h"
#include "delta/table_reader.h"
#include "formats/parquet/reader.h"

namespace tributary::delta {

using nlohmann::json;

namespace {

constexpr const char* kRowIndexColumn = "__tributary_row_index";

bool ConfigIsTrue(const Metadata& metadata, const char* key) {
  auto it = metadata.configuration.find(key);
  return it != metadata.configuration.end() && EqualsIgnoreAsciiCase(it->second, "true");
}

// numRecords of a file's stats (physical rows, deleted ones included), or -1 when unknown.
int64_t NumRecords(const AddFile& add) {
  if (!add.stats) {
    return -1;
  }
  json stats = json::parse(*add.stats, nullptr, false);
  auto it = stats.is_object() ? stats.find("numRecords") : stats.end();
  return it != stats.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
}

// numRecords of `add`: its stats', else the Parquet footer's row count (a file with a
// deletion vector must have numRecords, PROTOCOL.md "Writer Requirement for Deletion Vectors").
Result<int64_t> PhysicalRows(storage::FileSystem& fs, const Snapshot& snapshot,
                             const AddFile& add) {
  const int64_t from_stats = NumRecords(add);
  if (from_stats >= 0) {
    return from_stats;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, parquet::ParquetFileReader::Open(
                                             fs, DataFilePath(snapshot.TableRoot(), add.path)));
  return reader->NumRows();
}

// The stats of a file that gained deleted rows: numRecords stays the physical count and the
// bounds, computed over rows some of which are gone now, are no longer tight (PROTOCOL.md
// "Per-file Statistics": tightBounds). Without stats (or unreadable ones) only numRecords.
std::string WideStats(const std::optional<std::string>& stats, int64_t num_records) {
  json parsed = stats ? json::parse(*stats, nullptr, false) : json::object();
  if (!parsed.is_object()) {
    parsed = json::object();
  }
  parsed["numRecords"] = num_records;
  parsed["tightBounds"] = false;
  return parsed.dump();
}

// Sorted union of two sorted row lists.
std::vector<uint64_t> Union(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

RemoveFile RemovalOf(const AddFile& add, int64_t now) {
  RemoveFile remove;
  remove.path = add.path;
  remove.deletion_timestamp = now;
  remove.data_change = true;
  remove.extended_file_metadata = true;
  remove.partition_values = add.partition_values;
  remove.size = add.size;
  remove.deletion_vector = add.deletion_vector;
  return remove;
}

// The live rows of `add` except `deleted` (file-wide row indexes, ascending), in the snapshot's
// schema, appended to `writer`. Returns the rows kept.
Result<int64_t> CopySurvivors(storage::FileSystem& fs, const Snapshot& snapshot, const AddFile& add,
                              const std::vector<uint64_t>& deleted,
                              const columnar::SchemaPtr& schema, DataFileWriter& writer) {
  TableReadOptions read;
  read.row_index_column = kRowIndexColumn;
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, DataFileReader::Open(fs, snapshot, add, read));
  const columnar::SchemaPtr& logical = snapshot.Schema();
  int64_t kept_rows = 0;
  size_t next_deleted = 0;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (batch == nullptr) {
      return kept_rows;
    }
    const columnar::Column& indexes = *batch->ColumnAt(batch->NumColumns() - 1);
    const int64_t* index = indexes.Values<int64_t>();
    std::vector<int64_t> keep;
    keep.reserve(static_cast<size_t>(batch->NumRows()));
    for (int64_t r = 0; r < batch->NumRows(); ++r) {
      const auto row = static_cast<uint64_t>(index[r]);
      while (next_deleted < deleted.size() && deleted[next_deleted] < row) {
        ++next_deleted;
      }
      if (next_deleted == deleted.size() || deleted[next_deleted] != row) {
        keep.push_back(r);
      }
    }
    if (keep.empty()) {
      continue;
    }
    std::vector<columnar::ColumnPtr> columns;
    for (int c = 0; c < logical->NumFields(); ++c) {
      if (static_cast<int64_t>(keep.size()) == batch->NumRows()) {
        columns.push_back(batch->ColumnAt(c));
      } else {
        TRIBUTARY_ASSIGN_OR_RAISE(auto taken, columnar::Take(*batch->ColumnAt(c), keep));
        columns.push_back(std::move(taken));
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto survivors, columnar::RecordBatch::Make(logical, static_cast<int64_t>(keep.size()),
                                                    std::move(columns)));
    TRIBUTARY_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(*survivors, schema));
    TRIBUTARY_RETURN_NOT_OK(writer.Append(conformed));
    kept_rows += static_cast<int64_t>(keep.size());
  }
}

// Delta's metric names: MERGE reports its files as the target's.
struct MetricNames {
  const char* files_added;
  const char* files_removed;
  const char* bytes_added;
  const char* bytes_removed;
  const char* change_files_added;
  const char* dvs_added;
  const char* dvs_removed;
  const char* dvs_updated;
};

MetricNames NamesFor(const std::string& operation) {
  if (operation == "MERGE") {
    return {"numTargetFilesAdded",
            "numTargetFilesRemoved",
            "numTargetBytesAdded",
            "numTargetBytesRemoved",
            "numTargetChangeFilesAdded",
            "numTargetDeletionVectorsAdded",
            "numTargetDeletionVectorsRemoved",
            "numTargetDeletionVectorsUpdated"};
  }
  return {"numAddedFiles",
          "numRemovedFiles",
          "numAddedBytes",
          "numRemovedBytes",
          "numAddedChangeFiles",
          "numDeletionVectorsAdded",
          "numDeletionVectorsRemoved",
          "numDeletionVectorsUpdated"};
}

}  // namespace

bool DeletionVectorsEnabled(const Metadata& metadata) {
  return ConfigIsTrue(metadata, "delta.enableDeletionVectors");
}

Result<TableWriteResult> CommitRowChanges(storage::FileSystem& fs,
                                          const std::shared_ptr<const Snapshot>& snapshot,
                                          const RowChanges& changes, const RowChangeReads& reads,
                                          const RowChangeOptions& options) {
  if (snapshot == nullptr) {
    return Status::InvalidArgument("row-level changes need an existing table");
  }
  const std::string& root = snapshot->TableRoot();
  TableWriteResult result;
  result.version = snapshot->Version();
  if (options.txn) {
    auto it = snapshot->Transactions().find(options.txn->first);
    if (it != snapshot->Transactions().end() && it->second >= options.txn->second) {
      return result;  // this application version is already in the table
    }
  }
  const columnar::SchemaPtr schema = changes.schema ? changes.schema : snapshot->Schema();
  const bool schema_changed = SchemaToJson(*schema) != SchemaToJson(*snapshot->Schema());
  int64_t new_row_count = 0;
  for (const auto& batch : changes.new_rows) {
    new_row_count += batch->NumRows();
  }
  const bool any_deletes = std::any_of(changes.deletes.begin(), changes.deletes.end(),
                                       [](const FileRowDeletes& d) { return !d.rows.empty(); });
  if (!any_deletes && new_row_count == 0 && !options.txn && !schema_changed) {
    return result;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto txn, Transaction::Begin(fs, root, snapshot, options.transaction));
  const Metadata& metadata = snapshot->GetMetadata();
  const bool dv_mode = DeletionVectorsEnabled(metadata) &&
                       HasWriterFeature(snapshot->GetProtocol(), "deletionVectors");
  const bool cdf = ChangeDataFeedEnabled(metadata);
  const std::vector<std::string>& partition_columns = metadata.partition_columns;
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();

  CrashPoint("dml.before_data_files");
  int64_t files_removed = 0;
  int64_t bytes_removed = 0;
  int64_t dvs_added = 0;
  int64_t dvs_removed = 0;
  int64_t dvs_updated = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto writer, DataFileWriter::Make(fs, root, schema, partition_columns, options.data));
  // Deletion vector mode: the files that keep rows get a new vector, all in one DV file.
  std::vector<const FileRowDeletes*> dv_files;
  std::vector<std::vector<uint64_t>> dv_rows;
  std::vector<int64_t> dv_physical_rows;
  for (const FileRowDeletes& change : changes.deletes) {
    if (change.rows.empty()) {
      continue;
    }
    const AddFile& file = change.file;
    if (!dv_mode) {
      TRIBUTARY_RETURN_NOT_OK(
          CopySurvivors(fs, *snapshot, file, change.rows, schema, *writer).status());
      txn->RemoveFile(RemovalOf(file, now));
      ++files_removed;
      bytes_removed += file.size;
      dvs_removed += file.deletion_vector ? 1 : 0;
      continue;
    }
    std::vector<uint64_t> rows = change.rows;
    if (file.deletion_vector) {
      auto old_rows = LoadDeletedRows(fs, root, *file.deletion_vector);
      if (!old_rows.ok()) {
        return old_rows.status().WithContext(fmt::format("deletion vector of {}", file.path));
      }
      rows = Union(*old_rows, rows);
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t physical_rows, PhysicalRows(fs, *snapshot, file));
    if (static_cast<int64_t>(rows.size()) >= physical_rows) {
      txn->RemoveFile(RemovalOf(file, now));  // no row left
      ++files_removed;
      bytes_removed += file.size;
      dvs_removed += file.deletion_vector ? 1 : 0;
      continue;
    }
    dv_files.push_back(&change);
    dv_rows.push_back(std::move(rows));
    dv_physical_rows.push_back(physical_rows);
  }
  if (!dv_rows.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto descriptors, WriteDeletionVectors(fs, root, dv_rows));
    for (size_t i = 0; i < dv_files.size(); ++i) {
      const AddFile& file = dv_files[i]->file;
      txn->RemoveFile(RemovalOf(file, now));
      AddFile updated = file;
      updated.deletion_vector = std::move(descriptors[i]);
      updated.data_change = true;
      updated.modification_time = now;
      updated.stats = WideStats(file.stats, dv_physical_rows[i]);
      txn->AddFile(std::move(updated));
      if (file.deletion_vector) {
        ++dvs_updated;
      } else {
        ++dvs_added;
      }
    }
  }
  for (const auto& batch : changes.new_rows) {
    if (batch->NumRows() == 0) {
      continue;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(*batch, schema));
    TRIBUTARY_RETURN_NOT_OK(writer->Append(conformed));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto adds, writer->Finish());
  int64_t bytes_added = 0;
  for (AddFile& add : adds) {
    bytes_added += add.size;
    txn->AddFile(std::move(add));
  }
  int64_t change_files = 0;
  if (cdf && !changes.change_rows.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto cdc_files,
                              WriteChangeDataFiles(fs, root, schema, partition_columns,
                                                   changes.change_rows, options.data));
    change_files = static_cast<int64_t>(cdc_files.size());
    for (AddCdcFile& cdc : cdc_files) {
      txn->AddCdcFile(std::move(cdc));
    }
  }
  CrashPoint("dml.after_data_files");

  if (schema_changed) {
    Metadata updated = metadata;
    updated.schema_string = SchemaToJson(*schema);
    txn->SetMetadata(std::move(updated));
    if (auto protocol = ProtocolForSchema(*schema, snapshot->GetProtocol())) {
      txn->SetProtocol(std::move(*protocol));
    }
  }
  txn->ReadFiles(reads.files_read, reads.could_match);
  if (options.txn) {
    txn->SetTransaction(options.txn->first, options.txn->second);
  }
  std::map<std::string, int64_t> metrics = options.operation_metrics;
  const MetricNames names = NamesFor(options.operation);
  metrics[names.files_added] = static_cast<int64_t>(adds.size());
  metrics[names.files_removed] = files_removed;
  metrics[names.bytes_added] = bytes_added;
  metrics[names.bytes_removed] = bytes_removed;
  metrics[names.change_files_added] = change_files;
  metrics[names.dvs_added] = dvs_added;
  metrics[names.dvs_removed] = dvs_removed;
  metrics[names.dvs_updated] = dvs_updated;
  std::map<std::string, std::string> metric_texts;
  for (const auto& [name, value] : metrics) {
    metric_texts[name] = std::to_string(value);
  }
  txn->SetOperationMetrics(std::move(metric_texts));
  txn->SetOperation(options.operation.empty() ? "WRITE" : options.operation,
                    options.operation_parameters);
  CrashPoint("dml.before_commit");
  TRIBUTARY_ASSIGN_OR_RAISE(result.version, txn->Commit());
  result.committed = true;
  result.files_added = static_cast<int64_t>(adds.size());
  result.files_removed = files_removed;
  return result;
}

}  // namespace tributary::delta
