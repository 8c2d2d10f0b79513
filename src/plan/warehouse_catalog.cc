// The warehouse's catalog files, which stand in for Spark's metastore:
//
//   schema marker = <warehouse> "/" schema ".db/_schema.json"       (not for `default`)
//   marker        = {"name": schema}                               written put-if-absent
//
//   entry path    = <schema folder> "/_catalog/" lowercased-table ".json"
//   entry         = {"name": name, "location": path, "provider": provider
//                    [, "managed": bool]                  default false
//                    [, "schema": schemaString]           data source tables
//                    [, "partitionColumns": [name, ...]]  data source tables, in order
//                    [, "options": {key: value, ...}]}    OPTIONS of CREATE TABLE
//   provider      = "delta" | "parquet" | "json" | "csv"
//
// `path` is the table root (an absolute local path or an object store URI); schemaString is
// Delta's schema serialization (PROTOCOL.md "Schema Serialization Format"), data columns then
// partition columns. An entry is written put-if-absent (of two racing CREATEs one wins) and
// deleted by DROP TABLE. Entries with only name, location and provider "delta" are the
// external Delta tables data_sources.cc has always registered.
//
// A data source table's files are Parquet files named and laid out as Spark's writer names
// them (part-<n>-<uuid>.c000.snappy.parquet under `col=value/` folders), so Spark, DuckDB and
// any Hive-partitioned reader read the folder as it is.

#include "plan/warehouse_catalog.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/ascii.h"
#include "common/uuid.h"
#include "delta/file_writer.h"
#include "delta/log_segment.h"
#include "delta/schema_json.h"
#include "expr/backquoted_name.h"
#include "expr/evaluator.h"
#include "expr/expression.h"
#include "plan/plan_builder.h"
#include "storage/path.h"

namespace tributary::plan {

namespace {

constexpr std::string_view kSchemaSuffix = ".db";
constexpr std::string_view kSchemaMarker = "_schema.json";
constexpr std::string_view kEntriesDirectory = "_catalog";

std::vector<std::string> SplitTableName(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) {
      return parts;
    }
    start = dot + 1;
  }
}

Result<std::string> TableEntryPath(const Catalog& catalog, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(QualifiedName qualified, QualifyTableName(catalog, name));
  return fmt::format("{}/{}/{}.json", SchemaDirectory(catalog, qualified.schema), kEntriesDirectory,
                     qualified.table);
}

Status NoCatalogFileSystem() {
  return Status::InvalidArgument("no file system to keep the catalog in");
}

// Files below `root` that a table scan reads; none when the folder does not exist yet.
Result<std::vector<std::string>> FileTableDataFiles(storage::FileSystem& fs,
                                                    const std::string& root) {
  Result<std::vector<std::string>> files = ListDataFiles(fs, root);
  if (!files.ok() && files.status().IsNotFound()) {
    return std::vector<std::string>{};
  }
  return files;
}

}  // namespace

Result<QualifiedName> QualifyTableName(const Catalog& catalog, const std::string& name) {
  std::vector<std::string> parts = SplitTableName(name);
  if (parts.size() == 3) {
    if (!EqualsIgnoreAsciiCase(parts[0], "spark_catalog")) {
      return Status::InvalidArgument(fmt::format(
          "[REQUIRES_SINGLE_PART_NAMESPACE] {}: the only catalog is spark_catalog", name));
    }
    parts.erase(parts.begin());
  }
  if (parts.size() > 2) {
    return Status::InvalidArgument(fmt::format(
        "[REQUIRES_SINGLE_PART_NAMESPACE] {}: a table name is [[catalog.]schema.]table", name));
  }
  for (const std::string& part : parts) {
    if (part.empty() || part.find('/') != std::string::npos || part == "..") {
      return Status::InvalidArgument(fmt::format("'{}' is not a valid table name", name));
    }
  }
  QualifiedName qualified;
  qualified.schema = parts.size() == 2
                         ? AsciiLower(parts[0])
                         : AsciiLower(catalog.current_schema.empty() ? std::string(kDefaultSchema)
                                                                     : catalog.current_schema);
  qualified.table = AsciiLower(parts.back());
  return qualified;
}

std::string SchemaDirectory(const Catalog& catalog, std::string_view schema) {
  const std::string lowered = AsciiLower(schema);
  if (lowered == kDefaultSchema) {
    return catalog.warehouse;
  }
  return fmt::format("{}/{}{}", catalog.warehouse, lowered, kSchemaSuffix);
}

Status SchemaNotFoundError(std::string_view schema) {
  return Status::NotFound(fmt::format(
      "[SCHEMA_NOT_FOUND] The schema `{}` cannot be found. Verify the spelling and correctness "
      "of the schema and catalog.",
      schema));
}

Result<bool> SchemaExists(const Catalog& catalog, std::string_view schema) {
  if (AsciiLower(schema) == kDefaultSchema) {
    return true;
  }
  if (catalog.fs == nullptr || schema.empty() || schema.find('/') != std::string_view::npos) {
    return false;
  }
  Result<storage::FileInfo> marker =
      catalog.fs->GetFileInfo(storage::JoinPath(SchemaDirectory(catalog, schema), kSchemaMarker));
  if (!marker.ok()) {
    if (marker.status().IsNotFound()) {
      return false;
    }
    return marker.status().WithContext(fmt::format("looking up schema {}", schema));
  }
  return true;
}

Status CreateSchema(const Catalog& catalog, std::string_view schema) {
  if (catalog.fs == nullptr) {
    return NoCatalogFileSystem();
  }
  const std::string lowered = AsciiLower(schema);
  const auto already = [&] {
    return Status::AlreadyExists(fmt::format(
        "[SCHEMA_ALREADY_EXISTS] Cannot create schema `{}` because it already exists. Choose a "
        "different name, drop the existing schema, or add the IF NOT EXISTS clause to tolerate "
        "pre-existing schema.",
        schema));
  };
  if (lowered == kDefaultSchema) {
    return already();
  }
  if (lowered.empty() || lowered.find('/') != std::string::npos || lowered.starts_with(".") ||
      lowered.starts_with("_")) {
    return Status::InvalidArgument(fmt::format("'{}' is not a valid schema name", schema));
  }
  const nlohmann::json marker = {{"name", std::string(schema)}};
  Status written =
      catalog.fs->WriteFile(storage::JoinPath(SchemaDirectory(catalog, lowered), kSchemaMarker),
                            marker.dump() + "\n", storage::WriteMode::kPutIfAbsent);
  if (written.IsAlreadyExists()) {
    return already();
  }
  return written.WithContext(fmt::format("creating schema {}", schema));
}

Status DropSchema(const Catalog& catalog, std::string_view schema, bool cascade) {
  if (AsciiLower(schema) == kDefaultSchema) {
    return Status::InvalidArgument(
        "[UNSUPPORTED_FEATURE.DROP_DATABASE] The feature is not supported: Drop the default "
        "database `spark_catalog`.`default`.");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const bool exists, SchemaExists(catalog, schema));
  if (!exists) {
    return SchemaNotFoundError(schema);
  }
  if (!cascade) {
    TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> tables, ListSchemaTables(catalog, schema));
    if (!tables.empty()) {
      return Status::InvalidArgument(fmt::format(
          "[SCHEMA_NOT_EMPTY] Cannot drop a schema `{}` because it contains objects. Use DROP "
          "SCHEMA ... CASCADE to drop the schema and all its objects.",
          schema));
    }
  }
  return catalog.fs->DeleteDir(SchemaDirectory(catalog, schema), /*recursive=*/true)
      .WithContext(fmt::format("dropping schema {}", schema));
}

Result<std::vector<std::string>> ListSchemas(const Catalog& catalog) {
  std::vector<std::string> names = {std::string(kDefaultSchema)};
  if (catalog.fs == nullptr) {
    return names;
  }
  Result<std::vector<storage::FileInfo>> entries = catalog.fs->List(catalog.warehouse, {});
  if (!entries.ok() && !entries.status().IsNotFound()) {
    return entries.status().WithContext("listing the warehouse's schemas");
  }
  if (entries.ok()) {
    for (const storage::FileInfo& entry : *entries) {
      const std::string_view base = storage::BaseName(entry.path);
      if (!entry.is_directory || !base.ends_with(kSchemaSuffix) ||
          base.size() == kSchemaSuffix.size()) {
        continue;
      }
      const std::string schema(base.substr(0, base.size() - kSchemaSuffix.size()));
      TRIBUTARY_ASSIGN_OR_RAISE(const bool exists, SchemaExists(catalog, schema));
      if (exists) {
        names.push_back(schema);
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::vector<std::string>> ListSchemaTables(const Catalog& catalog, std::string_view schema) {
  std::vector<std::string> names;
  if (catalog.fs == nullptr) {
    return names;
  }
  const std::string directory = SchemaDirectory(catalog, schema);
  Result<std::vector<storage::FileInfo>> entries = catalog.fs->List(directory, {});
  if (!entries.ok() && !entries.status().IsNotFound()) {
    return entries.status().WithContext(fmt::format("listing the tables of schema {}", schema));
  }
  if (entries.ok()) {
    for (const storage::FileInfo& entry : *entries) {
      const std::string_view base = storage::BaseName(entry.path);
      if (!entry.is_directory || base.empty() || base[0] == '.' || base[0] == '_' ||
          base.ends_with(kSchemaSuffix)) {
        continue;
      }
      if (delta::HasDeltaLog(*catalog.fs, entry.path)) {
        names.emplace_back(base);
      }
    }
  }
  Result<std::vector<storage::FileInfo>> catalog_entries =
      catalog.fs->List(storage::JoinPath(directory, kEntriesDirectory), {});
  if (!catalog_entries.ok() && !catalog_entries.status().IsNotFound()) {
    return catalog_entries.status().WithContext(
        fmt::format("listing the catalog entries of schema {}", schema));
  }
  if (catalog_entries.ok()) {
    for (const storage::FileInfo& entry : *catalog_entries) {
      const std::string_view base = storage::BaseName(entry.path);
      if (!entry.is_directory && base.ends_with(".json") && base.size() > 5) {
        names.emplace_back(base.substr(0, base.size() - 5));
      }
    }
  }
  // A table located inside the warehouse is both a folder and an entry.
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Result<std::optional<TableEntry>> ReadTableEntry(const Catalog& catalog, const std::string& name) {
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, TableEntryPath(catalog, name));
  if (catalog.fs == nullptr) {
    return std::optional<TableEntry>();
  }
  Result<std::string> text = catalog.fs->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      return std::optional<TableEntry>();
    }
    return text.status().WithContext(fmt::format("reading the catalog entry of table {}", name));
  }
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  const auto corrupt = [&](std::string_view what) {
    return Status::Corruption(
        fmt::format("{}: the catalog entry of table {} is not valid: {}", path, name, what));
  };
  if (json.is_discarded() || !json.is_object() || !json.contains("location") ||
      !json["location"].is_string() || json["location"].get<std::string>().empty()) {
    return corrupt("not a JSON object with a \"location\" string");
  }
  TableEntry entry;
  entry.location = json["location"].get<std::string>();
  entry.name =
      json.contains("name") && json["name"].is_string() ? json["name"].get<std::string>() : name;
  if (json.contains("provider")) {
    if (!json["provider"].is_string()) {
      return corrupt("\"provider\" is not a string");
    }
    entry.provider = AsciiLower(json["provider"].get<std::string>());
  }
  if (json.contains("managed")) {
    if (!json["managed"].is_boolean()) {
      return corrupt("\"managed\" is not a boolean");
    }
    entry.managed = json["managed"].get<bool>();
  }
  if (json.contains("schema")) {
    if (!json["schema"].is_string()) {
      return corrupt("\"schema\" is not a schema string");
    }
    Result<columnar::SchemaPtr> schema =
        delta::ParseSchemaString(json["schema"].get<std::string>());
    if (!schema.ok()) {
      return schema.status().WithContext(fmt::format("{}: the schema of table {}", path, name));
    }
    entry.schema = *std::move(schema);
  }
  if (json.contains("partitionColumns")) {
    const nlohmann::json& columns = json["partitionColumns"];
    if (!columns.is_array()) {
      return corrupt("\"partitionColumns\" is not an array");
    }
    for (const nlohmann::json& column : columns) {
      if (!column.is_string()) {
        return corrupt("\"partitionColumns\" holds a value that is not a string");
      }
      entry.partition_columns.push_back(column.get<std::string>());
    }
  }
  if (json.contains("options")) {
    const nlohmann::json& options = json["options"];
    if (!options.is_object()) {
      return corrupt("\"options\" is not an object");
    }
    for (const auto& [key, value] : options.items()) {
      if (!value.is_string()) {
        return corrupt(fmt::format("option {} is not a string", key));
      }
      entry.options[key] = value.get<std::string>();
    }
  }
  if (entry.IsFileTable() && (!IsFileTableProvider(entry.provider) || entry.schema == nullptr)) {
    return corrupt(fmt::format("provider {} without a schema, or unknown", entry.provider));
  }
  return std::optional<TableEntry>(std::move(entry));
}

Status WriteTableEntry(const Catalog& catalog, const std::string& name, const TableEntry& entry) {
  if (catalog.fs == nullptr) {
    return NoCatalogFileSystem();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, TableEntryPath(catalog, name));
  nlohmann::json json = {
      {"name", entry.name}, {"location", entry.location}, {"provider", entry.provider}};
  if (entry.managed) {
    json["managed"] = true;
  }
  if (entry.schema != nullptr) {
    json["schema"] = delta::SchemaToJson(*entry.schema);
  }
  if (!entry.partition_columns.empty()) {
    json["partitionColumns"] = entry.partition_columns;
  }
  if (!entry.options.empty()) {
    json["options"] = entry.options;
  }
  Status written =
      catalog.fs->WriteFile(path, json.dump() + "\n", storage::WriteMode::kPutIfAbsent);
  if (written.IsAlreadyExists()) {
    return Status::AlreadyExists(fmt::format("table {} is already registered ({})", name, path));
  }
  return written.WithContext(fmt::format("registering table {} at {}", name, entry.location));
}

Status DeleteTableEntry(const Catalog& catalog, const std::string& name) {
  if (catalog.fs == nullptr) {
    return NoCatalogFileSystem();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string path, TableEntryPath(catalog, name));
  return catalog.fs->DeleteFile(path);
}

Result<std::string> DeltaTablePathForWrite(const Catalog& catalog, const std::string& name,
                                           std::string_view writer) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::optional<TableEntry> entry, ReadTableEntry(catalog, name));
  if (entry && entry->IsFileTable()) {
    return Status::NotImplemented(fmt::format(
        "{}({}): {} is a {} table; {} writes Delta tables only (INSERT INTO writes this one)",
        writer, name, name, entry->provider, writer));
  }
  return TablePath(catalog, name);
}

bool IsFileTableProvider(std::string_view provider) {
  return provider == "parquet" || provider == "json" || provider == "csv";
}

Result<LogicalPlanPtr> ScanFileTable(const Catalog& catalog, const TableEntry& entry,
                                     const std::string& qualifier) {
  if (catalog.fs == nullptr) {
    return Status::InvalidArgument("no file system to read tables from");
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<std::string> files,
                            FileTableDataFiles(*catalog.fs, entry.location));
  const size_t num_files = files.size();
  std::vector<columnar::Field> data_fields;
  std::vector<columnar::Field> partition_fields;
  for (const columnar::Field& field : entry.schema->Fields()) {
    const bool partition = std::any_of(
        entry.partition_columns.begin(), entry.partition_columns.end(),
        [&](const std::string& column) { return EqualsIgnoreAsciiCase(column, field.Name()); });
    (partition ? partition_fields : data_fields).push_back(field);
  }
  auto data_schema = std::make_shared<const columnar::Schema>(std::move(data_fields));
  Result<ScanSource> source =
      FileScanSource(*catalog.fs, entry.provider, std::move(files), entry.options, data_schema,
                     formats::OptionDefaults::kSparkReader, catalog.threads);
  if (!source.ok()) {
    return source.status().WithContext(fmt::format("table {} at {}", entry.name, entry.location));
  }
  if (!partition_fields.empty()) {
    TRIBUTARY_RETURN_NOT_OK(SetPartitionColumns(
        *source, *catalog.fs, std::make_shared<const columnar::Schema>(std::move(partition_fields)),
        entry.location));
  }
  source->description = fmt::format("{} table {} at {} ({} files)", entry.provider, entry.name,
                                    entry.location, num_files);
  return Scan(*std::move(source), qualifier);
}

namespace {

// The rows of `batches` as one JSON Lines or CSV text, each row formatted by Spark's to_json /
// to_csv (which Spark's JSON and CSV writers share) with the table's writer options; a CSV
// header line first when the `header` option is true. Empty when there are no rows.
Result<std::string> FormatTextRows(const TableEntry& entry,
                                   const std::vector<columnar::RecordBatchPtr>& batches,
                                   const expr::TimeZone& zone) {
  const bool json = entry.provider == "json";
  std::string separator = ",";
  for (std::string_view key : {"sep", "delimiter"}) {
    if (const std::string* sep = formats::FindOption(entry.options, key); !json && sep != nullptr) {
      separator = *sep;
    }
  }
  std::vector<expr::ExprPtr> fields;
  std::string header;
  for (const columnar::Field& field : entry.schema->Fields()) {
    fields.push_back(expr::Lit(expr::Scalar::String(field.Name())));
    fields.push_back(expr::Col(expr::BackquotedName(field.Name())));
    if (!header.empty()) {
      header += separator;
    }
    header += field.Name();
  }
  std::vector<expr::ExprPtr> args = {expr::Function("named_struct", std::move(fields))};
  // The options that change how values are written; reader-only ones stay out of the call.
  const std::vector<std::string_view> writer_options =
      json ? std::vector<std::string_view>{"dateFormat", "timestampFormat", "ignoreNullFields"}
           : std::vector<std::string_view>{"sep",       "delimiter",  "quote",          "escape",
                                           "nullValue", "dateFormat", "timestampFormat"};
  for (std::string_view key : writer_options) {
    if (const std::string* value = formats::FindOption(entry.options, key)) {
      args.push_back(expr::Lit(expr::Scalar::String(std::string(key))));
      args.push_back(expr::Lit(expr::Scalar::String(*value)));
    }
  }
  const expr::ExprPtr call = expr::Function(json ? "to_json" : "to_csv", std::move(args));
  TRIBUTARY_ASSIGN_OR_RAISE(expr::BoundExprPtr bound, expr::Bind(*call, *entry.schema));
  expr::EvalContext context;
  context.session_time_zone = zone;
  bool with_header = false;
  if (const std::string* value = formats::FindOption(entry.options, "header");
      !json && value != nullptr) {
    TRIBUTARY_ASSIGN_OR_RAISE(with_header, formats::BooleanOption("header", *value));
  }
  std::string text;
  for (const columnar::RecordBatchPtr& batch : batches) {
    if (batch->NumRows() == 0) {
      continue;
    }
    if (text.empty() && with_header) {
      text = header;
      text += '\n';
    }
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr lines, expr::Evaluate(*bound, *batch, context));
    for (int64_t row = 0; row < lines->Length(); ++row) {
      text += lines->BytesAt(row);
      text += '\n';
    }
  }
  return text;
}

// Writes `batches` as one new JSON Lines or CSV file of unpartitioned table `entry`, named as
// Spark names its files (part-00000-<uuid>-c000.json); no file when there are no rows.
Status WriteTextTableFile(storage::FileSystem& fs, const TableEntry& entry,
                          const std::vector<columnar::RecordBatchPtr>& batches,
                          const expr::TimeZone& zone) {
  if (!entry.partition_columns.empty()) {
    return Status::NotImplemented(fmt::format(
        "writing to {} table {}: partitioned {} tables can be read but not written yet (parquet "
        "tables can be both)",
        entry.provider, entry.name, entry.provider));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string text, FormatTextRows(entry, batches, zone));
  if (text.empty()) {
    return fs.CreateDir(entry.location);
  }
  const std::string path = storage::JoinPath(
      entry.location, fmt::format("part-00000-{}-c000.{}", NewUuid(), entry.provider));
  TRIBUTARY_ASSIGN_OR_RAISE(auto out, fs.OpenOutputStream(path, storage::WriteMode::kPutIfAbsent));
  Status written = out->Append(text);
  if (!written.ok()) {
    TRIBUTARY_RETURN_NOT_OK(out->Abort());
    return written.WithContext(fmt::format("writing {}", path));
  }
  return out->Close().WithContext(fmt::format("writing {}", path));
}

}  // namespace

Result<int64_t> WriteFileTable(storage::FileSystem& fs, const TableEntry& entry,
                               const std::vector<columnar::RecordBatchPtr>& batches, bool overwrite,
                               int threads, const expr::TimeZone& zone) {
  std::vector<std::string> old_files;
  if (overwrite) {
    TRIBUTARY_ASSIGN_OR_RAISE(old_files, FileTableDataFiles(fs, entry.location));
  }
  int64_t rows = 0;
  std::vector<columnar::RecordBatchPtr> non_empty;
  for (const columnar::RecordBatchPtr& batch : batches) {
    rows += batch->NumRows();
    if (batch->NumRows() > 0) {
      non_empty.push_back(batch);
    }
  }
  if (entry.provider != "parquet") {
    Status written = WriteTextTableFile(fs, entry, non_empty, zone);
    if (!written.ok()) {
      return written.WithContext(fmt::format("writing table {} at {}", entry.name, entry.location));
    }
  } else if (non_empty.empty()) {
    // An empty table (or one overwritten with no rows) is its folder with no files.
    TRIBUTARY_RETURN_NOT_OK(fs.CreateDir(entry.location));
  } else {
    delta::DataWriteOptions options;
    options.parquet.threads = threads;
    Result<std::vector<delta::AddFile>> written = delta::WriteDataFiles(
        fs, entry.location, entry.schema, entry.partition_columns, non_empty, options);
    if (!written.ok()) {
      return written.status().WithContext(
          fmt::format("writing table {} at {}", entry.name, entry.location));
    }
  }
  for (const std::string& file : old_files) {
    Status deleted = fs.DeleteFile(file);
    if (!deleted.ok() && !deleted.IsNotFound()) {
      return deleted.WithContext(fmt::format("overwriting table {}", entry.name));
    }
  }
  return rows;
}

}  // namespace tributary::plan
