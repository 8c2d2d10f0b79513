// Auto Loader's schema store, inference and evolution hook.
//
// Schema store, one file per version in `<schemaLocation>/_schemas/`, UTF-8:
//
//   <version> := "v1" "\n" {"dataSchemaJson":<json string>,"partitionSchemaJson":<json string>}
//
// <version> is the decimal version without padding, from 0, one more per evolution. Each JSON
// string holds a schema in Spark's StructType JSON (Delta's schemaString form,
// delta/schema_json.h). The data schema is the columns read from the files, without the
// rescued-data column (the readers add it); new columns are appended at its end. The partition
// schema lists the `key=value` directory columns. This is the shape we recall Databricks
// writing; it is not verified against a Databricks schema location. Files are written whole
// with put-if-absent and never changed, so two writers racing for a version leave one winner.

#include "streaming/cloud_files_schema.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/ascii.h"
#include "common/thread_count.h"
#include "delta/schema_json.h"
#include "exec/scan.h"
#include "formats/text/schema_hints.h"
#include "formats/text/schema_inference.h"
#include "plan/data_sources.h"
#include "storage/path.h"
#include "streaming/file_source.h"
#include "streaming/metadata_log.h"
#include "streaming/schema_change.h"

namespace tributary::streaming {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    out += out.empty() ? "" : ", ";
    out += name;
  }
  return out;
}

Result<int64_t> PositiveSetting(const std::map<std::string, std::string>& config,
                                std::string_view key, int64_t fallback) {
  auto it = config.find(std::string(key));
  if (it == config.end()) {
    return fallback;
  }
  int64_t value = 0;
  const std::string& text = it->second;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) {
    return Status::InvalidArgument(
        fmt::format("session setting {}: expected a positive integer, found '{}'", key, text));
  }
  return value;
}

// The files inference reads: the first ones in ingestion order, up to `max_files` files and
// until `max_bytes` were taken (at least one file).
std::vector<storage::FileInfo> SampleFiles(std::vector<storage::FileInfo> files, int64_t max_files,
                                           int64_t max_bytes) {
  size_t count = 0;
  int64_t bytes = 0;
  while (count < files.size() && static_cast<int64_t>(count) < max_files &&
         (count == 0 || bytes < max_bytes)) {
    bytes += files[count].size;
    ++count;
  }
  files.resize(count);
  return files;
}

// A failure ignoreCorruptFiles skips, as the batches' scans do (exec/scan.cc): anything but a
// missing file or a transient I/O error.
bool IsSkippableFileError(const Status& status) {
  return !status.ok() && !status.IsNotFound() && !status.IsRetryable();
}

// Parquet files carry their schema: the sample's schemas merged by name, new fields appended,
// a field's types widened (Auto Loader's "widest type"). With `ignore_corrupt_files`, a file
// whose footer cannot be read is left out; when no file can be read, the first one's error.
Result<columnar::SchemaPtr> MergedParquetSchema(storage::FileSystem& fs,
                                                const std::vector<std::string>& paths,
                                                const formats::OptionMap& options,
                                                bool ignore_corrupt_files) {
  std::vector<columnar::Field> fields;
  Status first_skipped;
  size_t num_read = 0;
  for (const std::string& path : paths) {
    auto read = plan::FileScanSource(fs, "parquet", {path}, options, nullptr,
                                     formats::OptionDefaults::kAutoLoader);
    if (!read.ok()) {
      if (!ignore_corrupt_files || !IsSkippableFileError(read.status())) {
        return read.status();
      }
      if (first_skipped.ok()) {
        first_skipped = read.status();
      }
      continue;
    }
    ++num_read;
    const plan::ScanSource& one = *read;
    for (const columnar::Field& field : one.schema->Fields()) {
      auto same = std::find_if(fields.begin(), fields.end(),
                               [&](const columnar::Field& f) { return f.Name() == field.Name(); });
      if (same == fields.end()) {
        fields.push_back(field);
      } else {
        *same = same->WithType(text::WidenInferredTypes(same->Type(), field.Type()));
      }
    }
  }
  if (num_read == 0 && !first_skipped.ok()) {
    return first_skipped.WithContext("ignoreCorruptFiles: no file of the sample could be read");
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

// The schema JSON or CSV inference gives over `paths`. With `ignore_corrupt_files`, when that
// fails on a file that cannot be read (a truncated .json.gz), the files that fail alone are left
// out and the rest inferred together, as Spark's inference skips corrupt files; when every file
// fails, the first one's error. JSON files are inferred on up to `threads` threads.
Result<columnar::SchemaPtr> InferredTextSchema(storage::FileSystem& fs, const std::string& format,
                                               const std::vector<std::string>& paths,
                                               const formats::OptionMap& options,
                                               bool ignore_corrupt_files, int threads) {
  auto inferred = plan::FileScanSource(fs, format, paths, options, nullptr,
                                       formats::OptionDefaults::kAutoLoader, threads);
  if (inferred.ok() || !ignore_corrupt_files || !IsSkippableFileError(inferred.status())) {
    if (!inferred.ok()) {
      return inferred.status();
    }
    return inferred->files.schema;
  }
  std::vector<std::string> readable;
  Status first_skipped;
  for (const std::string& path : paths) {
    auto one = plan::FileScanSource(fs, format, {path}, options, nullptr,
                                    formats::OptionDefaults::kAutoLoader);
    if (one.ok()) {
      readable.push_back(path);
    } else if (!IsSkippableFileError(one.status())) {
      return one.status();
    } else if (first_skipped.ok()) {
      first_skipped = one.status();
    }
  }
  if (readable.empty()) {
    return first_skipped.WithContext("ignoreCorruptFiles: no file of the sample could be read");
  }
  if (readable.size() == paths.size()) {
    return inferred.status();  // no single file fails: the failure is the combination's
  }
  TRIBUTARY_ASSIGN_OR_RAISE(plan::ScanSource rest,
                            plan::FileScanSource(fs, format, readable, options, nullptr,
                                                 formats::OptionDefaults::kAutoLoader, threads));
  return rest.files.schema;
}

Result<bool> IgnoresCorruptFiles(const formats::OptionMap& options) {
  const std::string* text = formats::FindOption(options, "ignoreCorruptFiles");
  if (text == nullptr) {
    return false;
  }
  return formats::BooleanOption("ignoreCorruptFiles", *text);
}

// Whether `schema` has a field named `name` ignoring case (several such fields count too).
bool NamedIgnoringCase(const columnar::Schema& schema, const std::string& name) {
  Result<int> index = schema.FieldIndexIgnoreCase(name);
  return !index.ok() || *index >= 0;
}

struct SchemaChoice {
  StoredSchema stored;
  bool from_store = false;
  int64_t num_files_sampled = 0;
  int64_t num_bytes_sampled = 0;
};

Result<std::vector<storage::FileInfo>> FilesInIngestionOrder(
    const CloudFilesSchemaRequest& request) {
  if (request.list_files != nullptr) {
    return request.list_files();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> files,
                            plan::ListDataFileInfos(*request.fs, request.path));
  DropNonRegularFiles(files);
  std::stable_sort(files.begin(), files.end(),
                   [](const storage::FileInfo& a, const storage::FileInfo& b) {
                     return a.modification_time_ms != b.modification_time_ms
                                ? a.modification_time_ms < b.modification_time_ms
                                : a.path < b.path;
                   });
  return files;
}

// The partition columns: `cloudFiles.partitionColumns` when given (a comma list, "" for
// none), else inferred from the sampled files' directories.
Result<columnar::SchemaPtr> PartitionColumns(const CloudFilesSchemaRequest& request,
                                             const std::vector<storage::FileInfo>& sample) {
  const std::string* option = formats::FindOption(request.options, "partitionColumns");
  if (option == nullptr) {
    // Databricks' Auto Loader takes partition columns as strings, like JSON/CSV data columns,
    // unless cloudFiles.inferColumnTypes asks for types (then Spark's partition type
    // inference) or schemaHints pin them ("Configure schema inference and evolution in Auto
    // Loader", docs.databricks.com/ingestion/cloud-object-storage/auto-loader/schema.html).
    const std::string* infer_types = formats::FindOption(request.options, "inferColumnTypes");
    bool typed = false;
    if (infer_types != nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(typed, formats::BooleanOption("inferColumnTypes", *infer_types));
    }
    return InferPartitionColumns(request.path, sample, typed);
  }
  std::vector<columnar::Field> fields;
  std::string_view rest = *option;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view name = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!name.empty() && name.front() == ' ') {
      name.remove_prefix(1);
    }
    while (!name.empty() && name.back() == ' ') {
      name.remove_suffix(1);
    }
    if (name.empty()) {
      continue;
    }
    fields.emplace_back(std::string(name), columnar::DataType::String());
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

Result<SchemaChoice> InferSchema(const CloudFilesSchemaRequest& request,
                                 const formats::OptionMap& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(
      const int64_t max_bytes,
      PositiveSetting(request.session_config, kSampleNumBytesSetting, int64_t{50} << 30));
  TRIBUTARY_ASSIGN_OR_RAISE(
      const int64_t max_files,
      PositiveSetting(request.session_config, kSampleNumFilesSetting, int64_t{1000}));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::FileInfo> files, FilesInIngestionOrder(request));
  if (files.empty()) {
    return Status::InvalidArgument(fmt::format(
        "Auto Loader cannot infer the schema of {} files at {}: there are none yet; add files "
        "or give a schema",
        request.format, request.path));
  }
  std::vector<storage::FileInfo> sample = SampleFiles(std::move(files), max_files, max_bytes);
  SchemaChoice choice;
  std::vector<std::string> paths;
  for (const storage::FileInfo& file : sample) {
    paths.push_back(file.path);
    choice.num_bytes_sampled += file.size;
  }
  choice.num_files_sampled = static_cast<int64_t>(paths.size());
  formats::OptionMap sample_options = options;
  // The sample is chosen here; the readers' own sample limits must not cut it again.
  sample_options["schemaInference.sampleSize.numFiles"] = std::to_string(paths.size());
  sample_options["schemaInference.sampleSize.numBytes"] = std::to_string(max_bytes);
  TRIBUTARY_ASSIGN_OR_RAISE(const bool ignore_corrupt_files, IgnoresCorruptFiles(options));
  columnar::SchemaPtr data;
  if (request.format == "parquet") {
    TRIBUTARY_ASSIGN_OR_RAISE(
        data, MergedParquetSchema(*request.fs, paths, sample_options, ignore_corrupt_files));
  } else {
    TRIBUTARY_ASSIGN_OR_RAISE(const int threads, ResolveThreadCount(request.session_config));
    TRIBUTARY_ASSIGN_OR_RAISE(data,
                              InferredTextSchema(*request.fs, request.format, paths, sample_options,
                                                 ignore_corrupt_files, threads));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(columnar::SchemaPtr partition, PartitionColumns(request, sample));
  // A column both in the files and in the directories stays in the data schema; the scan
  // takes the directory's value for it (Spark's rule).
  choice.stored.data = text::AsNullable(*data);
  choice.stored.partition = std::move(partition);
  return choice;
}

// The evolution hook's work: the new fields of a batch, what to do about them.
class EvolutionHook {
 public:
  EvolutionHook(storage::FileSystem* fs, std::string schema_location, StoredSchema current,
                SchemaEvolutionMode mode, std::string format, formats::OptionMap options,
                std::vector<std::string> special_columns)
      : fs_(fs),
        schema_location_(std::move(schema_location)),
        current_(std::move(current)),
        mode_(mode),
        format_(std::move(format)),
        options_(std::move(options)),
        special_columns_(std::move(special_columns)) {}

  Status operator()(const std::vector<std::string>& unknown_fields,
                    const std::vector<std::string>& paths) const {
    std::vector<std::string> new_fields;
    for (const std::string& name : unknown_fields) {
      // A name differing from a column only in case is a case mismatch (rescued), not a new
      // column; the special columns are never data.
      if (NamedIgnoringCase(*current_.data, name) || NamedIgnoringCase(*current_.partition, name) ||
          std::find(special_columns_.begin(), special_columns_.end(), name) !=
              special_columns_.end()) {
        continue;
      }
      new_fields.push_back(name);
    }
    if (new_fields.empty()) {
      return Status::OK();
    }
    const std::string files =
        fmt::format("{} file{} of the batch, first {}", paths.size(), paths.size() == 1 ? "" : "s",
                    paths.empty() ? std::string("-") : paths.front());
    if (mode_ == SchemaEvolutionMode::kFailOnNewColumns) {
      return Status::InvalidArgument(fmt::format(
          "[UNKNOWN_FIELD_EXCEPTION.NEW_FIELDS_IN_FILE] Auto Loader found new columns {} ({}); "
          "cloudFiles.schemaEvolutionMode is failOnNewColumns, so the stream stops with its "
          "schema unchanged: add them to the schema, or change the mode",
          JoinNames(new_fields), files));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(StoredSchema next, MergedSchema(new_fields, paths));
    CloudFilesSchemaStore store(*fs_, schema_location_);
    Status written = store.Write(next);
    // AlreadyExists: another scan of the same batch recorded its merge first; the restart
    // reads that one and meets whatever it lacks again.
    if (!written.ok() && !written.IsAlreadyExists()) {
      return written.WithContext("recording the evolved Auto Loader schema");
    }
    // One line (a pipeline prints it as it restarts): Databricks' UNKNOWN_FIELD_EXCEPTION.
    // NEW_FIELDS_IN_RECORD_WITH_FILE_PATH, told by its SchemaChange detail rather than a prefix.
    return SchemaChangedStatus(fmt::format(
        "Auto Loader found new columns {} ({}) and stored them as schema version {}; a restart "
        "re-reads this batch with them",
        JoinNames(new_fields), files, next.version));
  }

 private:
  // The current schema with `new_fields` appended, their types inferred from the batch's files
  // with the stream's inference options (only now that a change was found: the common case
  // reads each file once).
  Result<StoredSchema> MergedSchema(const std::vector<std::string>& new_fields,
                                    const std::vector<std::string>& paths) const {
    // Parquet: the types the files' footers give, merged across the batch (Auto Loader merges
    // Parquet's own types; JSON and CSV infer theirs with the stream's options).
    TRIBUTARY_ASSIGN_OR_RAISE(const bool ignore_corrupt_files, IgnoresCorruptFiles(options_));
    columnar::SchemaPtr batch_schema_ptr;
    if (format_ == "parquet") {
      auto merged = MergedParquetSchema(*fs_, paths, options_, ignore_corrupt_files);
      if (!merged.ok()) {
        return merged.status().WithContext("reading the types of Auto Loader's new columns");
      }
      batch_schema_ptr = std::move(*merged);
    } else {
      auto inferred =
          InferredTextSchema(*fs_, format_, paths, options_, ignore_corrupt_files, /*threads=*/1);
      if (!inferred.ok()) {
        return inferred.status().WithContext("inferring the types of Auto Loader's new columns");
      }
      batch_schema_ptr = std::move(*inferred);
    }
    const columnar::Schema& batch_schema = *batch_schema_ptr;
    std::vector<columnar::Field> fields = current_.data->Fields();
    for (const std::string& name : new_fields) {
      const int index = batch_schema.FieldIndex(name);
      columnar::DataTypePtr type =
          index >= 0 ? batch_schema.FieldAt(index).Type() : columnar::DataType::String();
      fields.emplace_back(name, std::move(type));
    }
    StoredSchema next;
    next.version = current_.version + 1;
    next.data = text::AsNullable(columnar::Schema(std::move(fields)));
    next.partition = current_.partition;
    return next;
  }

  storage::FileSystem* fs_;
  std::string schema_location_;
  StoredSchema current_;
  SchemaEvolutionMode mode_;
  std::string format_;
  formats::OptionMap options_;
  std::vector<std::string> special_columns_;
};

}  // namespace

Result<SchemaEvolutionMode> ParseSchemaEvolutionMode(std::string_view text) {
  const std::string lower = AsciiLower(text);
  if (lower == "addnewcolumns") {
    return SchemaEvolutionMode::kAddNewColumns;
  }
  if (lower == "rescue") {
    return SchemaEvolutionMode::kRescue;
  }
  if (lower == "failonnewcolumns") {
    return SchemaEvolutionMode::kFailOnNewColumns;
  }
  if (lower == "none") {
    return SchemaEvolutionMode::kNone;
  }
  return Status::InvalidArgument(
      fmt::format("cloudFiles.schemaEvolutionMode: unknown mode '{}' (addNewColumns, rescue, "
                  "failOnNewColumns, none)",
                  text));
}

std::string_view SchemaEvolutionModeName(SchemaEvolutionMode mode) {
  switch (mode) {
    case SchemaEvolutionMode::kAddNewColumns:
      return "addNewColumns";
    case SchemaEvolutionMode::kRescue:
      return "rescue";
    case SchemaEvolutionMode::kFailOnNewColumns:
      return "failOnNewColumns";
    case SchemaEvolutionMode::kNone:
      return "none";
  }
  return "none";
}

CloudFilesSchemaStore::CloudFilesSchemaStore(storage::FileSystem& fs,
                                             const std::string& schema_location)
    : fs_(fs), dir_(storage::JoinPath(schema_location, "_schemas")) {}

std::string CloudFilesSchemaStore::VersionPath(int64_t version) const {
  return storage::JoinPath(dir_, std::to_string(version));
}

Result<std::optional<StoredSchema>> CloudFilesSchemaStore::Latest() {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<int64_t> versions, ListLogBatchIds(fs_, dir_));
  if (versions.empty()) {
    return std::optional<StoredSchema>();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(StoredSchema latest, Read(versions.back()));
  return std::optional<StoredSchema>(std::move(latest));
}

Result<StoredSchema> CloudFilesSchemaStore::Read(int64_t version) {
  const std::string path = VersionPath(version);
  TRIBUTARY_ASSIGN_OR_RAISE(std::string text, fs_.ReadFile(path));
  const std::vector<std::string_view> lines = SplitLogLines(text);
  TRIBUTARY_RETURN_NOT_OK(CheckLogVersion(lines, path));
  if (lines.size() < 2) {
    return Status::Corruption(fmt::format("{} line 2: missing the schema object", path));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json value, ParseLogJson(lines[1], path, 2));
  if (!value.is_object() || !value.contains("dataSchemaJson") ||
      !value["dataSchemaJson"].is_string() || !value.contains("partitionSchemaJson") ||
      !value["partitionSchemaJson"].is_string()) {
    return Status::Corruption(fmt::format(
        "{} line 2: expected {{\"dataSchemaJson\":...,\"partitionSchemaJson\":...}}, found {}",
        path, lines[1]));
  }
  StoredSchema stored;
  stored.version = version;
  auto data = delta::ParseSchemaString(value["dataSchemaJson"].get<std::string>());
  if (!data.ok()) {
    return data.status().WithContext(fmt::format("{} line 2, dataSchemaJson", path));
  }
  auto partition = delta::ParseSchemaString(value["partitionSchemaJson"].get<std::string>());
  if (!partition.ok()) {
    return partition.status().WithContext(fmt::format("{} line 2, partitionSchemaJson", path));
  }
  stored.data = std::move(*data);
  stored.partition = std::move(*partition);
  return stored;
}

Status CloudFilesSchemaStore::Write(const StoredSchema& schema) {
  nlohmann::json value = nlohmann::json::object();
  value["dataSchemaJson"] = delta::SchemaToJson(*schema.data);
  value["partitionSchemaJson"] =
      delta::SchemaToJson(schema.partition != nullptr ? *schema.partition : columnar::Schema({}));
  const std::string text = "v1\n" + value.dump() + "\n";
  TRIBUTARY_RETURN_NOT_OK(fs_.CreateDir(dir_));
  return fs_.WriteFile(VersionPath(schema.version), text, storage::WriteMode::kPutIfAbsent);
}

columnar::SchemaPtr InferPartitionColumns(const std::string& root,
                                          const std::vector<storage::FileInfo>& files,
                                          bool infer_types) {
  std::vector<std::string> paths;
  paths.reserve(files.size());
  for (const storage::FileInfo& file : files) {
    paths.push_back(file.path);
  }
  Result<columnar::SchemaPtr> discovered =
      plan::DiscoverPartitionColumns(root, paths, infer_types, expr::TimeZone());
  // Its one error is conflicting layouts, where Auto Loader takes no partition columns.
  return discovered.ok() ? *discovered
                         : std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{});
}

Result<CloudFilesSchema> DefineCloudFilesSchema(const CloudFilesSchemaRequest& request) {
  if (request.fs == nullptr) {
    return Status::InvalidArgument("Auto Loader: no file system to read the schema from");
  }
  const std::string format = AsciiLower(request.format);
  if (format != "json" && format != "csv" && format != "parquet") {
    return Status::InvalidArgument(fmt::format(
        "Auto Loader: no schema inference for cloudFiles.format '{}' (json, csv, parquet)",
        request.format));
  }
  CloudFilesSchemaRequest normalized = request;
  normalized.format = format;
  const std::string* location = formats::FindOption(request.options, "schemaLocation");
  const bool has_location = location != nullptr && !location->empty();
  const formats::OptionMap& options = request.options;
  SchemaEvolutionMode mode = request.user_schema != nullptr ? SchemaEvolutionMode::kNone
                                                            : SchemaEvolutionMode::kAddNewColumns;
  if (const std::string* text = formats::FindOption(options, "schemaEvolutionMode")) {
    TRIBUTARY_ASSIGN_OR_RAISE(mode, ParseSchemaEvolutionMode(*text));
  }
  if (mode == SchemaEvolutionMode::kAddNewColumns && request.user_schema != nullptr) {
    return Status::InvalidArgument(
        fmt::format("Auto Loader at {}: cloudFiles.schemaEvolutionMode addNewColumns evolves an "
                    "inferred schema, not a given one: leave the schema out (and set "
                    "cloudFiles.schemaLocation), or use rescue, failOnNewColumns or none",
                    request.path));
  }
  std::vector<text::SchemaHint> hints;
  if (const std::string* text = formats::FindOption(options, "schemaHints")) {
    TRIBUTARY_ASSIGN_OR_RAISE(hints, text::ParseSchemaHints(*text));
  }

  CloudFilesSchema result;
  StoredSchema current;
  if (request.user_schema != nullptr) {
    current.data = text::AsNullable(*request.user_schema);
    current.partition = std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{});
    if (formats::FindOption(options, "partitionColumns") != nullptr) {
      // With a given schema, Databricks expects the partition columns in it: they take its
      // types (cloudFiles.partitionColumns, Auto Loader options).
      TRIBUTARY_ASSIGN_OR_RAISE(current.partition, PartitionColumns(normalized, {}));
      std::vector<columnar::Field> fields = current.partition->Fields();
      for (columnar::Field& field : fields) {
        Result<int> index = current.data->FieldIndexIgnoreCase(field.Name());
        if (index.ok() && *index >= 0) {
          field = field.WithType(current.data->FieldAt(*index).Type());
        }
      }
      current.partition = std::make_shared<const columnar::Schema>(std::move(fields));
    }
  } else {
    if (!has_location) {
      return Status::InvalidArgument(fmt::format(
          "Auto Loader at {}: inferring the schema needs cloudFiles.schemaLocation (where the "
          "schema is stored and evolved); set it, or give a schema",
          request.path));
    }
    CloudFilesSchemaStore store(*request.fs, *location);
    TRIBUTARY_ASSIGN_OR_RAISE(std::optional<StoredSchema> latest, store.Latest());
    if (latest.has_value()) {
      current = std::move(*latest);
    } else {
      auto inferred = InferSchema(normalized, options);
      if (!inferred.ok()) {
        return inferred.status().WithContext(
            fmt::format("inferring the Auto Loader schema of {}", request.path));
      }
      current = std::move(inferred->stored);
      result.num_files_sampled = inferred->num_files_sampled;
      result.num_bytes_sampled = inferred->num_bytes_sampled;
      Status written = store.Write(current);
      if (written.IsAlreadyExists()) {
        // Another definition stored version 0 first: use its schema, as a restart would.
        TRIBUTARY_ASSIGN_OR_RAISE(current, store.Read(0));
      } else if (!written.ok()) {
        return written.WithContext("storing the inferred Auto Loader schema");
      }
    }
    result.version = current.version;
  }
  // Hints pin types over whatever schema was chosen (inference applied them already; a stored
  // schema gets the hints of this definition).
  columnar::SchemaPtr data = current.data;
  if (!hints.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(data, text::ApplySchemaHints(*data, hints));
  }

  // Parquet: the scan fills the rescued-data column (named as for JSON and CSV) with the
  // values of columns outside the schema or of another type, as Auto Loader rescues them.
  std::string parquet_rescued;
  columnar::SchemaPtr read_schema = data;
  if (format == "parquet") {
    const std::string* named = formats::FindOption(options, "rescuedDataColumn");
    parquet_rescued = named != nullptr ? *named : std::string("_rescued_data");
    if (!parquet_rescued.empty() && !NamedIgnoringCase(*data, parquet_rescued)) {
      std::vector<columnar::Field> fields = data->Fields();
      fields.emplace_back(parquet_rescued, columnar::DataType::String());
      read_schema = std::make_shared<const columnar::Schema>(std::move(fields));
    } else {
      parquet_rescued.clear();
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(result.scan_template,
                            plan::FileScanSource(*request.fs, format, {}, options, read_schema,
                                                 formats::OptionDefaults::kAutoLoader));
  result.scan_template.files.options.parquet_rescued_data_column = parquet_rescued;
  // The scan fills the partition columns from each file's directories, typed by the hints
  // that name them.
  std::vector<columnar::Field> partition_fields =
      current.partition != nullptr ? current.partition->Fields() : std::vector<columnar::Field>{};
  for (const text::SchemaHint& hint : hints) {
    for (columnar::Field& field : partition_fields) {
      if (hint.path.size() == 1 && EqualsIgnoreAsciiCase(hint.path[0], field.Name())) {
        field = field.WithType(hint.type);
      }
    }
  }
  TRIBUTARY_RETURN_NOT_OK(plan::SetPartitionColumns(
      result.scan_template, *request.fs,
      std::make_shared<const columnar::Schema>(std::move(partition_fields)), request.path));
  std::vector<std::string> special_columns;
  if (format == "json") {
    special_columns = {result.scan_template.files.options.json.rescued_data_column,
                       result.scan_template.files.options.json.column_name_of_corrupt_record};
  } else if (format == "csv") {
    special_columns = {result.scan_template.files.options.csv.rescued_data_column,
                       result.scan_template.files.options.csv.column_name_of_corrupt_record};
  } else {
    special_columns = {parquet_rescued};
  }
  // JSON and CSV readers report the new top-level fields they parse; the Parquet scan reports
  // the footer's columns outside the schema.
  if (mode == SchemaEvolutionMode::kAddNewColumns ||
      mode == SchemaEvolutionMode::kFailOnNewColumns) {
    StoredSchema hooked = current;
    hooked.data = data;
    result.scan_template.files.on_unknown_fields =
        EvolutionHook(request.fs, has_location ? *location : std::string(), std::move(hooked), mode,
                      format, options, std::move(special_columns));
  }
  result.mode = mode;
  result.partition_schema = current.partition;
  return result;
}

}  // namespace tributary::streaming
