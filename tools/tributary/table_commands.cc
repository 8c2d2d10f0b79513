#include "table_commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/calendar.h"
#include "columnar/canonical_json.h"
#include "delta/checkpoint_writer.h"
#include "delta/history.h"
#include "delta/maintenance.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "expr/temporal_parsing.h"
#include "storage/uri_file_system.h"

namespace tributary::tools {
namespace {

using nlohmann::json;

Result<std::optional<int64_t>> ResolveVersion(storage::FileSystem& fs,
                                              const TableCommandOptions& options) {
  if (options.version) {
    return options.version;
  }
  if (options.timestamp.empty()) {
    return std::optional<int64_t>();
  }
  int64_t micros = 0;
  if (!expr::ParseTimestamp(options.timestamp, options.time_zone, false, &micros)) {
    return Status::InvalidArgument(
        fmt::format("--timestamp '{}' is not a timestamp", options.timestamp));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      int64_t version,
      delta::VersionAtTimestamp(fs, options.path, columnar::FloorDiv(micros, 1000)));
  return std::optional<int64_t>(version);
}

Result<std::shared_ptr<const delta::Snapshot>> Load(storage::FileSystem& fs,
                                                    const TableCommandOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto version, ResolveVersion(fs, options));
  return delta::Snapshot::Load(fs, options.path, version);
}

std::string FormatMillis(int64_t ms) {
  std::string out;
  columnar::AppendTimestampIso(ms * 1000, true, &out);
  return out;
}

}  // namespace

Status TableOptimize(const TableCommandOptions& options, const std::vector<std::string>& partition,
                     int64_t target_size, std::ostream& out) {
  storage::UriFileSystem fs;
  delta::OptimizeOptions optimize;
  if (target_size > 0) {
    optimize.target_file_size = target_size;
  }
  for (const std::string& filter : partition) {
    const size_t eq = filter.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument(
          fmt::format("--partition '{}' is not of the form column=value", filter));
    }
    optimize.partition_filter[filter.substr(0, eq)] = filter.substr(eq + 1);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto result, delta::Optimize(fs, options.path, optimize));
  if (result.version < 0) {
    out << "nothing to compact\n";
  } else {
    out << fmt::format("version {}: compacted {} files into {} ({} rows)\n", result.version,
                       result.files_removed, result.files_added, result.rows);
  }
  return Status::OK();
}

Status TableVacuum(const TableCommandOptions& options, int64_t retain_hours, bool dry_run,
                   bool force, std::ostream& out) {
  storage::UriFileSystem fs;
  delta::VacuumOptions vacuum;
  vacuum.retention_hours = retain_hours;
  vacuum.dry_run = dry_run;
  vacuum.force = force;
  TRIBUTARY_ASSIGN_OR_RAISE(auto result, delta::Vacuum(fs, options.path, vacuum));
  for (const std::string& file : result.files) {
    out << file << "\n";
  }
  out << fmt::format("{} {} files\n", dry_run ? "would delete" : "deleted", result.files.size());
  return Status::OK();
}

Status TableCheckpoint(const TableCommandOptions& options, std::ostream& out) {
  storage::UriFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Load(fs, options));
  TRIBUTARY_ASSIGN_OR_RAISE(int64_t version, delta::WriteCheckpoint(fs, *snapshot));
  out << fmt::format("checkpoint written at version {}\n", version);
  return Status::OK();
}

Status TableDescribe(const TableCommandOptions& options, std::ostream& out) {
  storage::UriFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Load(fs, options));
  const delta::Protocol& protocol = snapshot->GetProtocol();
  const delta::Metadata& metadata = snapshot->GetMetadata();
  int64_t bytes = 0;
  for (const auto& file : snapshot->Files()) {
    bytes += file.size;
  }
  if (options.format == "json") {
    json info = {{"path", options.path},
                 {"version", snapshot->Version()},
                 {"id", metadata.id},
                 {"minReaderVersion", protocol.min_reader_version},
                 {"minWriterVersion", protocol.min_writer_version},
                 {"partitionColumns", metadata.partition_columns},
                 {"configuration", metadata.configuration},
                 {"numFiles", snapshot->Files().size()},
                 {"sizeInBytes", bytes},
                 {"schema", json::parse(metadata.schema_string, nullptr, false)}};
    if (protocol.reader_features) {
      info["readerFeatures"] = *protocol.reader_features;
    }
    if (protocol.writer_features) {
      info["writerFeatures"] = *protocol.writer_features;
    }
    out << info.dump() << "\n";
    return Status::OK();
  }
  out << fmt::format("table:       {}\nversion:     {}\nid:          {}\n", options.path,
                     snapshot->Version(), metadata.id);
  out << fmt::format("protocol:    reader {}, writer {}\n", protocol.min_reader_version,
                     protocol.min_writer_version);
  if (protocol.reader_features) {
    out << "  reader features: " << fmt::format("{}", fmt::join(*protocol.reader_features, ", "))
        << "\n";
  }
  if (protocol.writer_features) {
    out << "  writer features: " << fmt::format("{}", fmt::join(*protocol.writer_features, ", "))
        << "\n";
  }
  out << fmt::format("partitioned: {}\nfiles:       {} ({} bytes)\n",
                     metadata.partition_columns.empty()
                         ? std::string("no")
                         : fmt::format("by {}", fmt::join(metadata.partition_columns, ", ")),
                     snapshot->Files().size(), bytes);
  for (const auto& [key, value] : metadata.configuration) {
    out << fmt::format("property:    {} = {}\n", key, value);
  }
  out << "schema:\n";
  for (const auto& field : snapshot->Schema()->Fields()) {
    out << "  " << field.ToString() << "\n";
  }
  return Status::OK();
}

Status TableHistory(const TableCommandOptions& options, std::ostream& out) {
  storage::UriFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto history, delta::ReadHistory(fs, options.path));
  // As of --version (or --timestamp), like every other table command: the commits up to it.
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<int64_t> as_of, ResolveVersion(fs, options));
  if (as_of && !history.empty()) {
    if (*as_of < history.front().version || *as_of > history.back().version) {
      return Status::InvalidArgument(
          fmt::format("{}: no version {} in the history (versions {} to {})", options.path, *as_of,
                      history.front().version, history.back().version));
    }
    std::erase_if(history, [&](const delta::CommitEntry& entry) { return entry.version > *as_of; });
  }
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (options.format == "json") {
      out << json({{"version", it->version},
                   {"timestamp", FormatMillis(it->timestamp_ms)},
                   {"operation", it->operation},
                   {"operationParameters", it->operation_parameters},
                   {"engineInfo", it->engine_info}})
                 .dump()
          << "\n";
    } else {
      out << fmt::format("{:>6}  {}  {:<28} {}\n", it->version, FormatMillis(it->timestamp_ms),
                         it->operation.empty() ? "-" : it->operation, it->operation_parameters);
    }
  }
  return Status::OK();
}

Status TableFiles(const TableCommandOptions& options, std::ostream& out) {
  storage::UriFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Load(fs, options));
  for (const auto& add : snapshot->Files()) {
    json partitions = json::object();
    for (const auto& [key, value] : add.partition_values) {
      partitions[key] = value ? json(*value) : json();
    }
    out << json({{"path", add.path},
                 {"partitionValues", partitions},
                 {"size", add.size},
                 {"deletionVector",
                  add.deletion_vector ? json(add.deletion_vector->UniqueId()) : json()}})
               .dump()
        << "\n";
  }
  return Status::OK();
}

Status TableCat(const TableCommandOptions& options, std::ostream& out) {
  storage::UriFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, Load(fs, options));
  delta::TableReadOptions read_options;
  read_options.session_time_zone = options.time_zone;
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, delta::ReadTable(fs, *snapshot, read_options));
  std::string line;
  for (const auto& batch : batches) {
    for (int64_t row = 0; row < batch->NumRows(); ++row) {
      line.clear();
      columnar::AppendCanonicalJsonRow(*batch, row, &line);
      line.push_back('\n');
      out << line;
    }
  }
  return Status::OK();
}

}  // namespace tributary::tools
