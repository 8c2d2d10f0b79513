// Turning names and paths into scans: Delta tables (by warehouse name or path, at a version or
// timestamp) and file sets (Parquet, JSON, CSV with Spark's reader options, schema given or
// inferred). The DataFrame reader, SQL's table references and read_files(...) all go through
// here, so a path or an option means the same in each.

#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "formats/reader_options.h"
#include "plan/logical_plan.h"
#include "storage/file_system.h"

namespace tributary::plan {

/// Where tables live and how values are read: what name and path resolution needs.
struct Catalog {
  storage::FileSystem* fs = nullptr;
  /// Tables by name are in its schema folders: <warehouse>/<name> for schema `default`,
  /// <warehouse>/<schema>.db/<name> for others (warehouse_catalog.h).
  std::string warehouse;
  /// Session time zone and current timestamp.
  expr::EvalContext eval;
  /// Threads a read may use to infer its files' schema (the session's tributary.threads).
  int threads = 1;
  /// Session tables outside the warehouse (a memory sink's table, queryable by its query
  /// name): the plan for a lowercased name, or null. Looked up before the warehouse; may be
  /// empty.
  std::function<LogicalPlanPtr(const std::string& name)> session_table;
  /// The lowercased names of the session's temporary views, sorted (SHOW TABLES lists them);
  /// may be empty.
  std::function<std::vector<std::string>()> session_views;
  /// The schema unqualified table names are in (USE schema; warehouse_catalog.h). Default:
  /// "default", the warehouse root.
  std::string current_schema = "default";
};

/// The root of table `name` ([[spark_catalog.]schema.]table, QualifyTableName): the location
/// of an external or data source table registered under it (its catalog entry), else
/// <schema folder>/<name> (names are
/// case-insensitive: stored lowercased, as Spark's default catalog does). InvalidArgument for a
/// name that is not an identifier, or for the reserved names "_checkpoints" (the default root of
/// pipeline checkpoints) and "_catalog" (the external table entries).
Result<std::string> TablePath(const Catalog& catalog, const std::string& name);

/// <warehouse>/<name>, where a managed table `name` lives, whether or not an external table
/// is registered under the name. Errors as TablePath.
Result<std::string> ManagedTablePath(const Catalog& catalog, const std::string& name);

/// The location registered for external table `name`, or nullopt when none is (or there is no
/// file system). Corruption naming the entry when it is unreadable.
Result<std::optional<std::string>> ExternalTableLocation(const Catalog& catalog,
                                                         const std::string& name);

/// Registers `location` (a Delta table root, absolute) as table `name` in the warehouse's
/// catalog (the entry format is at the top of data_sources.cc), where every later session
/// finds it. AlreadyExists when the name is registered already.
Status RegisterExternalTable(const Catalog& catalog, const std::string& name,
                             const std::string& location);

/// Removes the catalog entry of external table `name`, leaving its files. NotFound when none.
Status UnregisterExternalTable(const Catalog& catalog, const std::string& name);

/// The lowercased names of the registered external tables, sorted.
Result<std::vector<std::string>> ListExternalTables(const Catalog& catalog);

/// Which version of a Delta table to read (VERSION AS OF / TIMESTAMP AS OF, or the
/// versionAsOf / timestampAsOf reader options). Default: the latest.
struct TimeTravel {
  std::optional<int64_t> version;
  /// A timestamp string, read in the session time zone when it has no zone.
  std::optional<std::string> timestamp;
};

/// A scan of the Delta table at `path`, its columns qualified by `qualifier`. NotFound names
/// the path when there is no table there.
Result<LogicalPlanPtr> ScanDeltaTable(const Catalog& catalog, const std::string& path,
                                      const TimeTravel& travel, const std::string& qualifier);

/// The change data feed of the Delta table at `path` (SQL table_changes, the readChangeFeed
/// reader option): its columns, then _change_type, _commit_version and _commit_timestamp
/// (delta::ChangeFeedSchema), from `start` to `end` inclusive (the latest version when `end`
/// is absent), qualified by `qualifier`. A start timestamp means the first commit at or after
/// it, an end timestamp the last commit at or before it (Delta's startingTimestamp /
/// endingTimestamp). The changes are read when the plan is made (delta::ReadChanges), so the
/// plan holds them as values. Errors: InvalidArgument for a bound with neither or both of a
/// version and a timestamp, and ReadChanges' errors.
Result<LogicalPlanPtr> ScanTableChanges(const Catalog& catalog, const std::string& path,
                                        const TimeTravel& start,
                                        const std::optional<TimeTravel>& end,
                                        const std::string& qualifier);

/// The data files at `path`: the file itself, or every file below the directory (recursively,
/// sorted, skipping names that start with "_" or "." at any level, as Spark does).
Result<std::vector<std::string>> ListDataFiles(storage::FileSystem& fs, const std::string& path);
/// ListDataFiles with each file's size and modification time (the file stream source orders
/// and rate-limits by them).
Result<std::vector<storage::FileInfo>> ListDataFileInfos(storage::FileSystem& fs,
                                                         const std::string& path);

/// The scan of the data files `paths` in `format` ("parquet", "json", "csv") with reader
/// `options` over `defaults`: the reader spec and the scan's schema; the caller sets the
/// description. `schema` null means inferred from `paths` (JSON/CSV per the options' inference
/// settings; Parquet from the first file). ScanFiles and the file stream source both build
/// their scans here, so an option means the same to a batch read and to a stream. JSON
/// inference reads files on up to `threads` threads (the same schema whatever the count).
Result<ScanSource> FileScanSource(storage::FileSystem& fs, std::string_view format,
                                  std::vector<std::string> paths, const formats::OptionMap& options,
                                  columnar::SchemaPtr schema, formats::OptionDefaults defaults,
                                  int threads = 1);

/// The partition columns of `files` below the directory `root` (Spark's partition discovery):
/// the keys of the `key=value` directories between `root` and each file, which every file
/// must have alike (InvalidArgument naming two files that differ, as Spark's "conflicting
/// directory structures"). Types are inferred from the values (exec::InferPartitionType) with
/// `infer_types` (spark.sql.sources.partitionColumnTypeInference.enabled), else strings. No
/// partition directories: an empty schema.
Result<columnar::SchemaPtr> DiscoverPartitionColumns(const std::string& root,
                                                     const std::vector<std::string>& files,
                                                     bool infer_types, const expr::TimeZone& zone);

/// `source` (a kFiles scan) reading `partition_schema` from the `key=value` directories below
/// `root` (exec::FileScanSpec::partition_schema), its schema recomputed. Null or empty
/// `partition_schema`: no partition columns.
Status SetPartitionColumns(ScanSource& source, storage::FileSystem& fs,
                           columnar::SchemaPtr partition_schema, std::string root);

/// A scan of the files at `path` in `format` ("parquet", "json", "csv") with reader `options`.
/// `schema` null means inferred (JSON/CSV per the options' inference settings; Parquet from the
/// first file). JSON and CSV scans include the rescued-data column when the defaults or options
/// ask for one. Files below `key=value` directories get those partition columns after the
/// data columns (DiscoverPartitionColumns, types inferred). Every file scan offers the hidden
/// `_metadata` column (exec::kMetadataColumnName).
Result<LogicalPlanPtr> ScanFiles(const Catalog& catalog, std::string_view format,
                                 const std::string& path, const formats::OptionMap& options,
                                 columnar::SchemaPtr schema, formats::OptionDefaults defaults,
                                 const std::string& qualifier);

/// A schema from DDL text: "a INT, b STRING, c STRUCT<x: DOUBLE>".
Result<columnar::SchemaPtr> ParseSchemaDdl(std::string_view ddl);

}  // namespace tributary::plan
