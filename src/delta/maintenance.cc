#include "delta/maintenance.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "delta/table_reader.h"
#include "storage/local_path.h"
#include "storage/path.h"

namespace tributary::delta {

Result<OptimizeResult> Optimize(storage::FileSystem& fs, const std::string& table_root,
                                const OptimizeOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto txn, Transaction::Begin(fs, table_root, options.transaction));
  const Snapshot* snapshot = txn->ReadSnapshot();
  if (snapshot == nullptr) {
    return Status::NotFound(fmt::format("{} is not a Delta table", table_root));
  }
  for (const auto& [column, value] : options.partition_filter) {
    const auto& partitions = snapshot->GetMetadata().partition_columns;
    if (std::find(partitions.begin(), partitions.end(), column) == partitions.end()) {
      return Status::InvalidArgument(
          fmt::format("OPTIMIZE: '{}' is not a partition column of {}", column, table_root));
    }
  }
  auto selected = [&](const PartitionValues& values) {
    for (const auto& [column, value] : options.partition_filter) {
      auto it = values.find(column);
      if (it == values.end() || it->second != std::optional<std::string>(value)) {
        return false;
      }
    }
    return true;
  };
  // Candidates grouped by partition, smallest first so bins fill with small files.
  std::map<std::string, std::vector<const AddFile*>> by_partition;
  for (const AddFile& add : snapshot->Files()) {
    if (add.size < options.target_file_size && selected(add.partition_values)) {
      std::string key;
      for (const auto& [column, value] : add.partition_values) {
        key += column + "=" + value.value_or("\x01") + "\x1f";
      }
      by_partition[key].push_back(&add);
    }
  }
  OptimizeResult result;
  TableReadOptions read;
  std::vector<std::string> partition_columns = snapshot->GetMetadata().partition_columns;
  for (auto& [key, files] : by_partition) {
    std::sort(files.begin(), files.end(),
              [](const AddFile* a, const AddFile* b) { return a->size < b->size; });
    std::vector<std::vector<const AddFile*>> bins(1);
    int64_t bin_size = 0;
    for (const AddFile* file : files) {
      if (bin_size + file->size > options.target_file_size && !bins.back().empty()) {
        bins.emplace_back();
        bin_size = 0;
      }
      bins.back().push_back(file);
      bin_size += file->size;
    }
    for (const auto& bin : bins) {
      // A lone file without deleted rows is already as compact as it gets.
      if (bin.size() < 2 && (bin.empty() || !bin[0]->deletion_vector)) {
        continue;
      }
      std::vector<columnar::RecordBatchPtr> batches;
      for (const AddFile* file : bin) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto rows, ReadDataFile(fs, *snapshot, *file, read));
        for (auto& batch : rows) {
          result.rows += batch->NumRows();
          batches.push_back(std::move(batch));
        }
        RemoveFile remove;
        remove.path = file->path;
        remove.data_change = false;
        remove.partition_values = file->partition_values;
        remove.size = file->size;
        remove.deletion_vector = file->deletion_vector;
        txn->RemoveFile(std::move(remove));
        ++result.files_removed;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto adds, WriteDataFiles(fs, table_root, snapshot->Schema(), partition_columns, batches,
                                    options.data));
      for (AddFile& add : adds) {
        add.data_change = false;
        txn->AddFile(std::move(add));
        ++result.files_added;
      }
    }
  }
  if (result.files_removed == 0) {
    return result;
  }
  // A concurrent delete of a compacted file must fail this commit (ConcurrentDeleteRead).
  txn->ReadPartitions(selected);
  std::map<std::string, std::string> parameters = {
      {"predicate", options.partition_filter.empty() ? "[]" : "partition filter"},
      {"targetFileSize", std::to_string(options.target_file_size)}};
  txn->SetOperation("OPTIMIZE", std::move(parameters));
  TRIBUTARY_ASSIGN_OR_RAISE(result.version, txn->Commit());
  return result;
}

Result<VacuumResult> Vacuum(storage::FileSystem& fs, const std::string& table_root,
                            const VacuumOptions& options) {
  constexpr int64_t kMinimumRetentionHours = 168;
  if (options.retention_hours < 0 ||
      (options.retention_hours < kMinimumRetentionHours && !options.force)) {
    return Status::InvalidArgument(fmt::format(
        "VACUUM with a retention of {} hours could delete files that readers or concurrent "
        "writers still need; the minimum is {} hours unless forced",
        options.retention_hours, kMinimumRetentionHours));
  }
  // Only a table root: VACUUM deletes every file below it that the log does not name, so a
  // folder without a log (a warehouse, a checkpoint root, a partition directory) would lose all.
  Result<std::shared_ptr<const Snapshot>> loaded = Snapshot::Load(fs, table_root);
  if (!loaded.ok()) {
    if (loaded.status().IsNotFound()) {
      return Status::InvalidArgument(fmt::format("VACUUM: {} is not a Delta table ({})", table_root,
                                                 loaded.status().Message()));
    }
    return loaded.status().WithContext("VACUUM");
  }
  const std::shared_ptr<const Snapshot>& snapshot = *loaded;
  const Protocol& protocol = snapshot->GetProtocol();
  if (protocol.min_writer_version > 7) {
    return Status::NotImplemented(
        fmt::format("{}: VACUUM of writer version {}", table_root, protocol.min_writer_version));
  }
  const int64_t now =
      options.now_ms.value_or(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  const int64_t cutoff = now - options.retention_hours * 3600 * 1000;
  // The listing and the log's paths are compared in one spelling, the root's canonical one: a
  // root given as a file:// URI, through a symbolic link or as "a/../t" would otherwise match
  // no listed file, and a live file the log names by an absolute path could be taken for an
  // unreferenced one and deleted.
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string root, storage::CanonicalPath(table_root));
  const std::string prefix = root + "/";
  std::set<std::string> keep;
  auto keep_file = [&](const std::string& path) -> Status {
    std::string full = DataFilePath(root, path);
    if (!full.starts_with(prefix)) {
      TRIBUTARY_ASSIGN_OR_RAISE(full, storage::CanonicalPath(full));
    }
    keep.insert(std::move(full));
    return Status::OK();
  };
  for (const AddFile& add : snapshot->Files()) {
    TRIBUTARY_RETURN_NOT_OK(keep_file(add.path));
  }
  for (const RemoveFile& removed : snapshot->Tombstones()) {
    if (removed.deletion_timestamp.value_or(now) >= cutoff) {
      TRIBUTARY_RETURN_NOT_OK(keep_file(removed.path));
    }
  }
  storage::ListOptions list;
  list.recursive = true;
  // A writer that died mid-file leaves the file's staging copy (storage::StagingPath); it is
  // never in the log, so it is collected like any unreferenced data file once old enough.
  list.include_staging_files = true;
  TRIBUTARY_ASSIGN_OR_RAISE(auto listing, fs.List(root, list));
  VacuumResult result;
  for (const storage::FileInfo& info : listing) {
    if (info.is_directory || info.path.rfind(prefix, 0) != 0) {
      continue;
    }
    const std::string relative = info.path.substr(prefix.size());
    // Hidden files and directories (`_delta_log`, `_change_data`, `.crc`-like) are not data.
    bool hidden = false;
    size_t start = 0;
    while (start < relative.size()) {
      const size_t slash = relative.find('/', start);
      std::string part =
          relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      if (slash == std::string::npos && storage::IsStagingFileName(part)) {
        part = storage::StagingTargetName(part);  // judged by the name it was written under
      }
      if (!part.empty() && (part[0] == '_' || part[0] == '.') &&
          part.find('=') == std::string::npos) {
        hidden = true;
        break;
      }
      if (slash == std::string::npos) {
        break;
      }
      start = slash + 1;
    }
    if (hidden || keep.count(info.path) || info.modification_time_ms >= cutoff) {
      continue;
    }
    result.files.push_back(relative);
  }
  if (!options.dry_run) {
    std::vector<std::string> paths;
    paths.reserve(result.files.size());
    for (const std::string& relative : result.files) {
      paths.push_back(storage::JoinPath(root, relative));
    }
    TRIBUTARY_RETURN_NOT_OK(fs.DeleteFiles(paths).WithContext("VACUUM"));
  }
  return result;
}

}  // namespace tributary::delta
