// The warehouse as Spark's session catalog: schemas (databases) as folders, table names
// qualified by schema, the catalog entries of external and file-format tables, and the one
// listing of a schema's tables that SHOW TABLES and Session::ListTables share.
//
// Layout (the entry and marker grammars are at the top of warehouse_catalog.cc):
//   <warehouse>/                 schema `default`: Delta tables <name>/, entries _catalog/
//   <warehouse>/<schema>.db/     any other schema (Spark's directory name for a database):
//                                the marker _schema.json, tables <name>/, entries _catalog/
//
// Data source tables (CREATE TABLE ... USING parquet | json | csv) are plain folders of data
// files, Hive-partitioned, as Spark writes them; what a metastore would keep for them (the
// provider, schema, partition columns and options) is their catalog entry.

#pragma once

#include <optional>
#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "plan/data_sources.h"

namespace tributary::plan {

/// The schema Spark's session catalog starts in, and the warehouse root's.
inline constexpr std::string_view kDefaultSchema = "default";

/// A table name split into its schema and table: `t` is in the catalog's current schema,
/// `s.t` in s, `spark_catalog.s.t` in s; both parts lowercased (Spark's catalog is
/// case-insensitive).
struct QualifiedName {
  std::string schema;
  std::string table;
};

/// Splits the dotted `name`. InvalidArgument for more than three parts, a catalog other than
/// spark_catalog, or an empty part.
Result<QualifiedName> QualifyTableName(const Catalog& catalog, const std::string& name);

/// The folder of schema `schema` (lowercased): the warehouse for `default`, else
/// <warehouse>/<schema>.db.
std::string SchemaDirectory(const Catalog& catalog, std::string_view schema);

/// Whether schema `schema` exists: `default` always does, another when its marker does.
Result<bool> SchemaExists(const Catalog& catalog, std::string_view schema);

/// Spark's [SCHEMA_NOT_FOUND] error for `schema`.
Status SchemaNotFoundError(std::string_view schema);

/// Creates schema `schema` (its folder and marker, put-if-absent). AlreadyExists with Spark's
/// [SCHEMA_ALREADY_EXISTS] message when it exists.
Status CreateSchema(const Catalog& catalog, std::string_view schema);

/// Drops schema `schema`: with `cascade` its folder and everything in it (managed tables'
/// data, entries; external tables' files stay where they are), else only when it has no
/// tables (Spark's [SCHEMA_NOT_EMPTY]). NotFound ([SCHEMA_NOT_FOUND]) when it does not exist;
/// InvalidArgument for `default`.
Status DropSchema(const Catalog& catalog, std::string_view schema, bool cascade);

/// The schemas of the warehouse, sorted, `default` included.
Result<std::vector<std::string>> ListSchemas(const Catalog& catalog);

/// The tables of schema `schema`, sorted and lowercased: each folder holding a Delta log and
/// each catalog entry (external Delta tables, data source tables).
Result<std::vector<std::string>> ListSchemaTables(const Catalog& catalog, std::string_view schema);

/// What the catalog keeps of a table besides its files.
struct TableEntry {
  /// As created.
  std::string name;
  /// The table's root: an absolute local path or an object store URI.
  std::string location;
  /// "delta", "parquet", "json" or "csv".
  std::string provider = "delta";
  /// Whether the warehouse owns the files (DROP TABLE deletes them). Default: false.
  bool managed = false;
  /// Data source tables: the columns, data columns then partition columns (Spark's order);
  /// null for Delta tables, whose log has the schema.
  columnar::SchemaPtr schema;
  std::vector<std::string> partition_columns;
  /// OPTIONS (...) of CREATE TABLE: reader options of the files.
  formats::OptionMap options;

  bool IsFileTable() const { return provider != "delta"; }
};

/// The catalog entry of table `name` (resolved as QualifyTableName), or nullopt when there is
/// none. Corruption naming the entry file when it cannot be read.
Result<std::optional<TableEntry>> ReadTableEntry(const Catalog& catalog, const std::string& name);

/// Writes the catalog entry of table `name`, put-if-absent: AlreadyExists when one is there.
Status WriteTableEntry(const Catalog& catalog, const std::string& name, const TableEntry& entry);

/// Removes the catalog entry of table `name`. NotFound when there is none.
Status DeleteTableEntry(const Catalog& catalog, const std::string& name);

/// TablePath of `name` for a writer of Delta commits (DataFrameWriter::SaveAsTable, a stream's
/// ToTable): NotImplemented naming `writer` when `name` is a data source table, whose folder
/// must not get a Delta log.
Result<std::string> DeltaTablePathForWrite(const Catalog& catalog, const std::string& name,
                                           std::string_view writer);

/// Whether `provider` (lowercase) is a data source table format this catalog writes.
bool IsFileTableProvider(std::string_view provider);

/// A scan of data source table `entry`: its data files below the location, read with the
/// entry's schema and options, partition columns from the `col=value` folders.
Result<LogicalPlanPtr> ScanFileTable(const Catalog& catalog, const TableEntry& entry,
                                     const std::string& qualifier);

/// Writes `batches` (of the table's schema) as new files of `entry`: Parquet files, one per
/// partition under Hive-style `col=value/` folders (delta::WriteDataFiles' layout, on up to
/// `threads` threads), or one JSON Lines / CSV file whose rows Spark's to_json / to_csv format
/// (in time zone `zone`, with the table's writer options; a CSV header when its `header`
/// option is true). Each file is written under a hidden temporary name and renamed when
/// complete (the file system's atomic publication), so no reader sees half a file. With
/// `overwrite`, the files the table had are deleted once the new ones are in place. Returns
/// the number of rows written. NotImplemented for partitioned json and csv tables.
Result<int64_t> WriteFileTable(storage::FileSystem& fs, const TableEntry& entry,
                               const std::vector<columnar::RecordBatchPtr>& batches, bool overwrite,
                               int threads, const expr::TimeZone& zone);

}  // namespace tributary::plan
