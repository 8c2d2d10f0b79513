// Auto Loader's schema (cloudFiles): inferred once from a sample of the files, stored in the
// schema location as versioned files `<cloudFiles.schemaLocation>/_schemas/0, 1, ...` (grammar
// in cloud_files_schema.cc), reused on restart, and evolved by `cloudFiles.schemaEvolutionMode`
// when a batch meets top-level fields the schema lacks.
//
// Finding new fields costs no second parse: the JSON/CSV readers report the top-level field
// names outside the schema (exec::FileScanSpec::on_unknown_fields), and the scan template this
// module builds carries a hook that, at the end of a batch's scan, acts on them per mode:
//   addNewColumns     writes the schema with the new fields appended at the end (existing types
//                     unchanged) as the next `_schemas/N`, then fails the batch with
//                     a schema change (schema_change.h) naming them. The batch's offsets were
//                     logged, so a restart (a new definition, which reads the latest stored schema)
//                     re-reads it with the merged schema; the sink committed nothing of it.
//   failOnNewColumns  fails the batch (InvalidArgument) naming them; the schema stays.
//   rescue, none      no hook: the fields go to the rescued-data column (when there is one).

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "columnar/schema.h"
#include "formats/reader_options.h"
#include "plan/logical_plan.h"
#include "storage/file_system.h"
#include "tributary/result.h"

namespace tributary::streaming {

/// `cloudFiles.schemaEvolutionMode`.
enum class SchemaEvolutionMode : uint8_t { kAddNewColumns, kRescue, kFailOnNewColumns, kNone };

/// "addNewColumns", "rescue", "failOnNewColumns", "none" (any case); InvalidArgument otherwise.
Result<SchemaEvolutionMode> ParseSchemaEvolutionMode(std::string_view text);
/// The option's spelling of `mode`.
std::string_view SchemaEvolutionModeName(SchemaEvolutionMode mode);

/// One version of a stored schema: the data columns (without the rescued-data column) and the
/// partition columns taken from `key=value` directories.
struct StoredSchema {
  int64_t version = 0;
  columnar::SchemaPtr data;
  columnar::SchemaPtr partition;
};

/// The versioned schema files under `<schema_location>/_schemas/`, each written whole and
/// put-if-absent, never changed.
///
/// Thread-safety: none needed; every method is one file-system operation or a read.
class CloudFilesSchemaStore {
 public:
  CloudFilesSchemaStore(storage::FileSystem& fs, const std::string& schema_location);

  /// The newest version, or nullopt when none was written. Corruption names a damaged file.
  Result<std::optional<StoredSchema>> Latest();
  /// Version `version`; NotFound when it was never written.
  Result<StoredSchema> Read(int64_t version);
  /// Writes `schema` as its version. AlreadyExists (nothing written) when that version exists.
  Status Write(const StoredSchema& schema);
  /// `<schema_location>/_schemas/<version>`.
  std::string VersionPath(int64_t version) const;
  const std::string& SchemasDir() const { return dir_; }

 private:
  storage::FileSystem& fs_;
  std::string dir_;
};

/// Session settings bounding the inference sample (Databricks' names).
inline constexpr std::string_view kSampleNumBytesSetting =
    "spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes";
inline constexpr std::string_view kSampleNumFilesSetting =
    "spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles";

/// What an Auto Loader source needs to choose its schema.
struct CloudFilesSchemaRequest {
  /// Used for inference, the schema store, and later by the evolution hook (so it must outlive
  /// every query of the definition: the session's file system).
  storage::FileSystem* fs = nullptr;
  /// `cloudFiles.format`: "json", "csv" or "parquet".
  std::string format;
  /// The source directory.
  std::string path;
  /// All options (cloudFiles.* with or without the prefix, and the reader's).
  formats::OptionMap options;
  /// The schema the user gave; null to infer (which needs cloudFiles.schemaLocation).
  columnar::SchemaPtr user_schema;
  /// Session settings (the sample size settings above).
  std::map<std::string, std::string> session_config;
  /// Lists the files the source would ingest, in ingestion order; inference samples the first
  /// of them (called only when it infers). Null lists every data file below `path`, sorted by
  /// modification time, then path.
  std::function<Result<std::vector<storage::FileInfo>>()> list_files;
};

/// The schema an Auto Loader source reads with.
struct CloudFilesSchema {
  /// A kFiles scan of no files: the reader spec with the data schema, the rescued-data column
  /// when there is one, and the evolution hook when the mode has one. Each batch copies it and
  /// fills in its paths. Its `schema` is the source's schema.
  plan::ScanSource scan_template;
  SchemaEvolutionMode mode = SchemaEvolutionMode::kNone;
  /// The stored version read or written (nullopt without a schema location).
  std::optional<int64_t> version;
  /// Partition columns found in `key=value` directories (stored with the schema; the scan
  /// template fills them in from each file's directories, after the data columns).
  columnar::SchemaPtr partition_schema;
  /// Files and bytes the inference read (0 when the schema came from the store or the user).
  int64_t num_files_sampled = 0;
  int64_t num_bytes_sampled = 0;
};

/// Chooses the schema of an Auto Loader source: the user's; else the latest stored one in
/// `cloudFiles.schemaLocation` (with `cloudFiles.schemaHints` applied on top); else inferred
/// from the first files (up to the sample size settings; `cloudFiles.inferColumnTypes`,
/// default false: every leaf a string; hints applied) and stored as version 0. The
/// rescued-data column is `_rescued_data` (Auto Loader's reader defaults, with or without a
/// schema location: no malformed record is lost); `rescuedDataColumn` renames it, "" drops it.
/// InvalidArgument for a bad option, for inference without a schema location, for no files to
/// infer from, and for addNewColumns with a user schema.
Result<CloudFilesSchema> DefineCloudFilesSchema(const CloudFilesSchemaRequest& request);

/// The partition columns of `files` below `root`: the `key=value` directory names between the
/// root and each file, when every file has the same keys in the same order (else none, as
/// Databricks ignores conflicting layouts). Strings, or with `infer_types` Spark's partition
/// type inference (plan::DiscoverPartitionColumns, which this shares).
columnar::SchemaPtr InferPartitionColumns(const std::string& root,
                                          const std::vector<storage::FileInfo>& files,
                                          bool infer_types = false);

}  // namespace tributary::streaming
