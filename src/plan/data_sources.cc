// Catalog entries of external tables (CREATE TABLE name ... LOCATION 'path', as Spark's
// metastore keeps them), one file per table in the warehouse, so they outlive the session:
//
//   entry path = schema-folder "/_catalog/" lowercased-name ".json"
//   entry      = {"name": name, "location": path, "provider": "delta"}
//                name as created; path the table root as an absolute local path or an
//                object store URI; the schema folder is the warehouse for `default`
//                (warehouse_catalog.cc has the full grammar, data source tables included)
//
// An entry is written put-if-absent (of two racing CREATEs one wins) and deleted by DROP
// TABLE, which leaves the table's files (an external table's data is not the catalog's).

#include "plan/data_sources.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/ascii.h"
#include "delta/change_data.h"
#include "delta/history.h"
#include "exec/hive_partitioning.h"
#include "expr/temporal_parsing.h"
#include "formats/text/schema_hints.h"
#include "plan/plan_builder.h"
#include "plan/warehouse_catalog.h"
#include "storage/local_path.h"
#include "storage/path.h"

namespace tributary::plan {

namespace {

bool IsHiddenName(std::string_view relative) {
  // Any path component starting with '_' or '.' hides the file (Spark's
  // InMemoryFileIndex skips _SUCCESS, _delta_log, .crc files and hidden directories).
  size_t start = 0;
  while (start < relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) {
      end = relative.size();
    }
    if (end > start && (relative[start] == '_' || relative[start] == '.')) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// The schema and hidden columns of the kFiles scan `source` (exec::FileScanOperator's
// ScanSchema, its hidden `_metadata` split off).
Status SetScanSchema(ScanSource& source, storage::FileSystem& fs) {
  int num_hidden = 0;
  TRIBUTARY_ASSIGN_OR_RAISE(SchemaPtr full,
                            exec::FileScanOperator::ScanSchema(source.files, fs, &num_hidden));
  std::vector<columnar::Field> fields = full->Fields();
  const auto first_hidden = fields.end() - num_hidden;
  source.hidden_columns.assign(first_hidden, fields.end());
  fields.erase(first_hidden, fields.end());
  source.schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return Status::OK();
}

}  // namespace

namespace {

constexpr std::string_view kCatalogDirectory = "_catalog";
constexpr std::string_view kCheckpointsDirectory = "_checkpoints";

// The schema folder and lowercased table of `name` (QualifyTableName), the table checked.
Result<QualifiedName> CheckTableName(const Catalog& catalog, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(QualifiedName qualified, QualifyTableName(catalog, name));
  const std::string& lowered = qualified.table;
  if (lowered == kCatalogDirectory || lowered == kCheckpointsDirectory) {
    return Status::InvalidArgument(fmt::format(
        "'{}' is a reserved name: the warehouse keeps {} there, not a table", name,
        lowered == kCatalogDirectory ? "its external table entries" : "streaming checkpoints"));
  }
  return qualified;
}

std::string CatalogEntryPath(const Catalog& catalog, const QualifiedName& name) {
  return fmt::format("{}/{}/{}.json", SchemaDirectory(catalog, name.schema), kCatalogDirectory,
                     name.table);
}

}  // namespace

Result<std::optional<std::string>> ExternalTableLocation(const Catalog& catalog,
                                                         const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(const QualifiedName qualified, CheckTableName(catalog, name));
  if (catalog.fs == nullptr) {
    return std::optional<std::string>();
  }
  const std::string path = CatalogEntryPath(catalog, qualified);
  Result<std::string> text = catalog.fs->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      return std::optional<std::string>();
    }
    return text.status().WithContext(fmt::format("reading the catalog entry of table {}", name));
  }
  const nlohmann::json entry = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (entry.is_discarded() || !entry.is_object() || !entry.contains("location") ||
      !entry["location"].is_string() || entry["location"].get<std::string>().empty()) {
    return Status::Corruption(fmt::format(
        "{}: the catalog entry of table {} is not a JSON object with a \"location\" string", path,
        name));
  }
  return std::optional<std::string>(entry["location"].get<std::string>());
}

Status RegisterExternalTable(const Catalog& catalog, const std::string& name,
                             const std::string& location) {
  TRIBUTARY_ASSIGN_OR_RAISE(const QualifiedName qualified, CheckTableName(catalog, name));
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("no file system to keep the catalog in");
  }
  const nlohmann::json entry = {{"name", name}, {"location", location}, {"provider", "delta"}};
  const std::string path = CatalogEntryPath(catalog, qualified);
  Status written =
      catalog.fs->WriteFile(path, entry.dump() + "\n", storage::WriteMode::kPutIfAbsent);
  if (written.IsAlreadyExists()) {
    return Status::AlreadyExists(fmt::format("table {} is already registered ({})", name, path));
  }
  return written.WithContext(fmt::format("registering table {} at {}", name, location));
}

Status UnregisterExternalTable(const Catalog& catalog, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(const QualifiedName qualified, CheckTableName(catalog, name));
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("no file system to keep the catalog in");
  }
  return catalog.fs->DeleteFile(CatalogEntryPath(catalog, qualified));
}

Result<std::vector<std::string>> ListExternalTables(const Catalog& catalog) {
  std::vector<std::string> names;
  if (catalog.fs == nullptr) {
    return names;
  }
  Result<std::vector<storage::FileInfo>> entries = catalog.fs->List(
      fmt::format("{}/{}", SchemaDirectory(catalog, catalog.current_schema), kCatalogDirectory),
      {});
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) {
      return names;
    }
    return entries.status();
  }
  for (const storage::FileInfo& entry : *entries) {
    std::string_view base = storage::BaseName(entry.path);
    if (!entry.is_directory && base.ends_with(".json") && base.size() > 5) {
      names.emplace_back(base.substr(0, base.size() - 5));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> TablePath(const Catalog& catalog, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<std::string> external,
                            ExternalTableLocation(catalog, name));
  if (external) {
    // An entry written by hand may spell its location as a file URI.
    return storage::StoragePath(*external);
  }
  return ManagedTablePath(catalog, name);
}

Result<std::string> ManagedTablePath(const Catalog& catalog, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(const QualifiedName qualified, CheckTableName(catalog, name));
  return SchemaDirectory(catalog, qualified.schema) + "/" + qualified.table;
}

Result<LogicalPlanPtr> ScanDeltaTable(const Catalog& catalog, const std::string& path,
                                      const TimeTravel& travel, const std::string& qualifier) {
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("no file system to read tables from");
  }
  std::optional<int64_t> version = travel.version;
  if (travel.timestamp.has_value()) {
    if (version.has_value()) {
      return Status::InvalidArgument(
          "give either a version or a timestamp to time travel, not both");
    }
    int64_t micros = 0;
    if (!expr::ParseTimestamp(*travel.timestamp, catalog.eval.session_time_zone, false, &micros)) {
      return Status::InvalidArgument(
          fmt::format("TIMESTAMP AS OF '{}': not a timestamp", *travel.timestamp));
    }
    // A commit at 10:00:00.123 is visible AS OF '10:00:00.123' (millisecond commit times).
    auto at = delta::VersionAtTimestamp(*catalog.fs, path, micros / 1000);
    if (!at.ok()) {
      return at.status().WithContext(fmt::format("table {}", path));
    }
    version = *at;
  }
  auto snapshot = delta::Snapshot::Load(*catalog.fs, path, version);
  if (!snapshot.ok()) {
    return snapshot.status().WithContext(fmt::format("reading Delta table {}", path));
  }
  ScanSource source;
  source.kind = ScanSource::Kind::kDelta;
  source.pinned_version = travel.version.has_value() || travel.timestamp.has_value();
  source.schema = (*snapshot)->Schema();
  source.description = fmt::format("delta {} v{}", path, (*snapshot)->Version());
  source.snapshot = std::move(*snapshot);
  return Scan(std::move(source), qualifier);
}

namespace {

/// A change feed bound's time in milliseconds, from its timestamp text in the session zone.
/// Commit times are milliseconds: a start of 10:00:00.1234 is after a commit at 10:00:00.123
/// (rounded up), an end of 10:00:00.1234 is after it too (rounded down).
Result<int64_t> BoundMillis(const Catalog& catalog, const std::string& text,
                            std::string_view option, bool round_up) {
  int64_t micros = 0;
  if (!expr::ParseTimestamp(text, catalog.eval.session_time_zone, false, &micros)) {
    return Status::InvalidArgument(fmt::format("{} '{}': not a timestamp", option, text));
  }
  return micros / 1000 + (round_up && micros % 1000 > 0 ? 1 : 0);
}

Status CheckBound(const TimeTravel& bound, std::string_view which) {
  if (bound.version.has_value() == bound.timestamp.has_value()) {
    return Status::InvalidArgument(fmt::format(
        "the change data feed's {} bound needs either a version or a timestamp", which));
  }
  return Status::OK();
}

}  // namespace

Result<LogicalPlanPtr> ScanTableChanges(const Catalog& catalog, const std::string& path,
                                        const TimeTravel& start,
                                        const std::optional<TimeTravel>& end,
                                        const std::string& qualifier) {
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("no file system to read tables from");
  }
  TRIBUTARY_RETURN_NOT_OK(CheckBound(start, "start"));
  if (end) {
    TRIBUTARY_RETURN_NOT_OK(CheckBound(*end, "end"));
  }
  int64_t start_version = start.version.value_or(0);
  if (start.timestamp) {
    // Delta: the first commit at or after the starting timestamp.
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t ms,
                              BoundMillis(catalog, *start.timestamp, "startingTimestamp",
                                          /*round_up=*/true));
    auto history = delta::ReadHistory(*catalog.fs, path);
    if (!history.ok()) {
      return history.status().WithContext(fmt::format("reading Delta table {}", path));
    }
    auto at = std::find_if(history->begin(), history->end(),
                           [&](const delta::CommitEntry& e) { return e.timestamp_ms >= ms; });
    if (at == history->end()) {
      return Status::InvalidArgument(fmt::format(
          "table {}: The provided timestamp ({}) is after the latest version available to "
          "this table (version {}).",
          path, *start.timestamp, history->empty() ? -1 : history->back().version));
    }
    start_version = at->version;
  }
  std::optional<int64_t> end_version;
  if (end && end->version) {
    end_version = end->version;
  } else if (end) {
    TRIBUTARY_ASSIGN_OR_RAISE(int64_t ms, BoundMillis(catalog, *end->timestamp, "endingTimestamp",
                                                      /*round_up=*/false));
    // Delta: the last commit at or before the ending timestamp.
    auto at = delta::VersionAtTimestamp(*catalog.fs, path, ms);
    if (!at.ok()) {
      return at.status().WithContext(fmt::format("table {}", path));
    }
    end_version = *at;
  }
  delta::ChangeReadOptions options;
  options.session_time_zone = catalog.eval.session_time_zone;
  auto changes = delta::ReadChanges(*catalog.fs, path, start_version, end_version, options);
  if (!changes.ok()) {
    return changes.status().WithContext(fmt::format("reading the change data feed of {}", path));
  }
  // The schema of the last version read (an ending version past the latest is the latest).
  auto snapshot = delta::Snapshot::Load(*catalog.fs, path);
  if (snapshot.ok() && end_version && *end_version < (*snapshot)->Version()) {
    snapshot = delta::Snapshot::Load(*catalog.fs, path, end_version);
  }
  if (!snapshot.ok()) {
    return snapshot.status().WithContext(fmt::format("reading Delta table {}", path));
  }
  ScanSource source;
  source.kind = ScanSource::Kind::kValues;
  source.schema = delta::ChangeFeedSchema(*(*snapshot)->Schema());
  source.batches = std::move(*changes);
  source.description =
      fmt::format("table_changes {} v{}..v{}", path, start_version, (*snapshot)->Version());
  return Scan(std::move(source), qualifier);
}

Result<std::vector<storage::FileInfo>> ListDataFileInfos(storage::FileSystem& fs,
                                                         const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(storage::FileInfo info, fs.GetFileInfo(path));
  if (!info.is_directory) {
    info.path = path;
    return std::vector<storage::FileInfo>{std::move(info)};
  }
  storage::ListOptions options;
  options.recursive = true;
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> entries, fs.List(path, options));
  std::vector<storage::FileInfo> files;
  const size_t prefix = path.size() + (path.ends_with('/') ? 0 : 1);
  for (storage::FileInfo& entry : entries) {
    if (entry.is_directory || entry.path.size() <= prefix) {
      continue;
    }
    if (!IsHiddenName(std::string_view(entry.path).substr(prefix))) {
      files.push_back(std::move(entry));
    }
  }
  return files;
}

Result<std::vector<std::string>> ListDataFiles(storage::FileSystem& fs, const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> infos, ListDataFileInfos(fs, path));
  std::vector<std::string> files;
  files.reserve(infos.size());
  for (storage::FileInfo& info : infos) {
    files.push_back(std::move(info.path));
  }
  return files;
}

Result<columnar::SchemaPtr> ParseSchemaDdl(std::string_view ddl) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<text::SchemaHint> hints, text::ParseSchemaHints(ddl));
  for (const text::SchemaHint& hint : hints) {
    if (hint.path.size() != 1) {
      return Status::InvalidArgument(
          fmt::format("schema '{}': nested paths are not column definitions", ddl));
    }
  }
  return text::ApplySchemaHints(columnar::Schema({}), hints);
}

Result<ScanSource> FileScanSource(storage::FileSystem& fs, std::string_view format,
                                  std::vector<std::string> paths, const formats::OptionMap& options,
                                  columnar::SchemaPtr schema, formats::OptionDefaults defaults,
                                  int threads) {
  TRIBUTARY_ASSIGN_OR_RAISE(formats::FileFormat file_format, formats::FileFormatFromName(format));
  exec::FileScanSpec spec;
  spec.format = file_format;
  spec.paths = std::move(paths);
  switch (file_format) {
    case formats::FileFormat::kParquet:
      break;
    case formats::FileFormat::kJson: {
      TRIBUTARY_ASSIGN_OR_RAISE(spec.options.json, formats::JsonOptionsFromMap(options, defaults));
      if (schema == nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            schema, json::InferJsonSchema(fs, spec.paths, spec.options.json, threads));
      }
      break;
    }
    case formats::FileFormat::kCsv: {
      TRIBUTARY_ASSIGN_OR_RAISE(spec.options.csv, formats::CsvOptionsFromMap(options, defaults));
      if (schema == nullptr) {
        TRIBUTARY_ASSIGN_OR_RAISE(schema, csv::InferCsvSchema(fs, spec.paths, spec.options.csv));
      }
      break;
    }
    case formats::FileFormat::kText:
      if (const std::string* whole = formats::FindOption(options, "wholeText")) {
        TRIBUTARY_ASSIGN_OR_RAISE(spec.options.whole_text,
                                  formats::BooleanOption("wholeText", *whole));
      }
      break;
    case formats::FileFormat::kBinaryFile:
      break;
  }
  spec.schema = std::move(schema);
  spec.metadata_column = true;
  ScanSource source;
  source.kind = ScanSource::Kind::kFiles;
  source.files = std::move(spec);
  TRIBUTARY_RETURN_NOT_OK(SetScanSchema(source, fs));
  return source;
}

Result<columnar::SchemaPtr> DiscoverPartitionColumns(const std::string& root,
                                                     const std::vector<std::string>& files,
                                                     bool infer_types, const expr::TimeZone& zone) {
  std::vector<std::string> keys;
  std::vector<std::vector<std::optional<std::string>>> values;
  const std::string* first = nullptr;
  for (const std::string& file : files) {
    std::vector<exec::PartitionDirectory> directories = exec::PartitionDirectories(root, file);
    std::vector<std::string> file_keys;
    file_keys.reserve(directories.size());
    for (const exec::PartitionDirectory& directory : directories) {
      file_keys.push_back(directory.key);
    }
    if (first == nullptr) {
      first = &file;
      keys = std::move(file_keys);
      values.resize(keys.size());
    } else if (file_keys != keys) {
      return Status::InvalidArgument(fmt::format(
          "conflicting partition directories below {}: {} and {} have different key=value "
          "directories; read a directory whose files share one layout",
          root, *first, file));
    }
    for (size_t i = 0; i < directories.size(); ++i) {
      values[i].push_back(std::move(directories[i].value));
    }
  }
  std::vector<columnar::Field> fields;
  for (size_t i = 0; i < keys.size(); ++i) {
    fields.emplace_back(keys[i], infer_types ? exec::InferPartitionType(values[i], zone)
                                             : columnar::DataType::String());
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

Status SetPartitionColumns(ScanSource& source, storage::FileSystem& fs,
                           columnar::SchemaPtr partition_schema, std::string root) {
  source.files.partition_schema = std::move(partition_schema);
  source.files.partition_root = std::move(root);
  return SetScanSchema(source, fs);
}

Result<LogicalPlanPtr> ScanFiles(const Catalog& catalog, std::string_view format,
                                 const std::string& path, const formats::OptionMap& options,
                                 columnar::SchemaPtr schema, formats::OptionDefaults defaults,
                                 const std::string& qualifier) {
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("no file system to read files from");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(formats::FileFormat file_format, formats::FileFormatFromName(format));
  auto listed = ListDataFiles(*catalog.fs, path);
  if (!listed.ok()) {
    return listed.status().WithContext(fmt::format("reading {} files at {}", format, path));
  }
  if (file_format == formats::FileFormat::kParquet && listed->empty() && schema == nullptr) {
    return Status::InvalidArgument(
        fmt::format("no Parquet files at {} to take a schema from; give one", path));
  }
  const size_t num_files = listed->size();
  const columnar::SchemaPtr schema_given = schema;
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::SchemaPtr partitions,
                            DiscoverPartitionColumns(path, *listed, /*infer_types=*/true,
                                                     catalog.eval.session_time_zone));
  TRIBUTARY_ASSIGN_OR_RAISE(ScanSource source,
                            FileScanSource(*catalog.fs, format, std::move(*listed), options,
                                           std::move(schema), defaults, catalog.threads));
  if (partitions->NumFields() > 0) {
    if (schema_given != nullptr) {
      // A partition column in the given schema takes its type there (Spark's user schema).
      std::vector<columnar::Field> fields = partitions->Fields();
      for (columnar::Field& field : fields) {
        Result<int> index = schema_given->FieldIndexIgnoreCase(field.Name());
        if (index.ok() && *index >= 0) {
          field = field.WithType(schema_given->FieldAt(*index).Type());
        }
      }
      partitions = std::make_shared<const columnar::Schema>(std::move(fields));
    }
    TRIBUTARY_RETURN_NOT_OK(SetPartitionColumns(source, *catalog.fs, std::move(partitions), path));
  }
  source.description = fmt::format("{} {} ({} files)", format, path, num_files);
  return Scan(std::move(source), qualifier);
}

}  // namespace tributary::plan
