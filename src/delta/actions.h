// Delta log actions (delta-io/delta PROTOCOL.md, "Actions") as plain structs, and their
// parsing from the newline-delimited JSON of commit files.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::delta {

/// PROTOCOL.md "Protocol Evolution".
struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  /// Present only with reader version 3 / writer version 7.
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;
};

/// Whether `protocol` lists `feature` among its writer features (table features protocols).
bool HasWriterFeature(const Protocol& protocol, std::string_view feature);

/// PROTOCOL.md "Change Metadata".
struct Metadata {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> description;
  std::string format_provider = "parquet";
  std::map<std::string, std::string> format_options;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
  std::optional<int64_t> created_time;
};

/// PROTOCOL.md "Deletion Vector Descriptor Schema".
struct DeletionVectorDescriptor {
  /// 'u' (relative, Z85 UUID), 'i' (inline), 'p' (absolute path).
  std::string storage_type;
  std::string path_or_inline_dv;
  std::optional<int32_t> offset;
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;

  /// storageType + pathOrInlineDv [+ "@" + offset]: part of a file's logical key.
  std::string UniqueId() const;
};

/// A partition value as the log holds it: absent (JSON null) means null.
using PartitionValues = std::map<std::string, std::optional<std::string>>;

/// PROTOCOL.md "Add File and Remove File".
struct AddFile {
  /// URI-decoded path relative to the table root (or absolute).
  std::string path;
  PartitionValues partition_values;
  int64_t size = 0;
  int64_t modification_time = 0;
  bool data_change = true;
  std::optional<std::string> stats;
  std::map<std::string, std::string> tags;
  std::optional<DeletionVectorDescriptor> deletion_vector;
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  std::optional<std::string> clustering_provider;
};

struct RemoveFile {
  std::string path;
  std::optional<int64_t> deletion_timestamp;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  PartitionValues partition_values;
  std::optional<int64_t> size;
  std::optional<DeletionVectorDescriptor> deletion_vector;
};

/// PROTOCOL.md "Add CDC File": a file of change data (rows with _change_type) under
/// _change_data/, read by change data feed readers in place of the commit's adds and removes.
struct AddCdcFile {
  /// URI-decoded path relative to the table root.
  std::string path;
  PartitionValues partition_values;
  int64_t size = 0;
  /// Always false: change data files do not change the table's data.
  bool data_change = false;
  std::map<std::string, std::string> tags;
};

/// PROTOCOL.md "Transaction Identifiers".
struct Txn {
  std::string app_id;
  int64_t version = 0;
  std::optional<int64_t> last_updated;
};

/// PROTOCOL.md "Domain Metadata".
struct DomainMetadata {
  std::string domain;
  std::string configuration;
  bool removed = false;
};

/// V2 checkpoints: PROTOCOL.md "Sidecar File Information".
struct Sidecar {
  std::string path;
  int64_t size_in_bytes = 0;
  int64_t modification_time = 0;
};

/// One parsed line of a commit (or a row of a checkpoint): exactly one member is set, or none
/// for an action type this reader does not know (ignored, as the protocol requires).
struct Action {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::optional<AddFile> add;
  std::optional<RemoveFile> remove;
  std::optional<AddCdcFile> cdc;
  std::optional<Txn> txn;
  std::optional<DomainMetadata> domain_metadata;
  std::optional<Sidecar> sidecar;
  /// The raw commitInfo object (provenance; free-form JSON).
  std::optional<std::string> commit_info;
  /// commitInfo.inCommitTimestamp when present.
  std::optional<int64_t> in_commit_timestamp;
  bool checkpoint_metadata = false;
};

/// Parses one JSON line of a commit file. `location` ("_delta_log/00..03.json line 4") prefixes
/// Corruption errors.
Result<Action> ParseAction(std::string_view line, std::string_view location);

/// Parses every non-empty line of a commit file.
Result<std::vector<Action>> ParseCommit(std::string_view text, std::string_view location);

/// Percent-encodes a path for `add.path` as Hadoop's Path.toUri does (java.net.URI's quoting
/// of a path component): `%` from Hive's directory escaping becomes `%25`, spaces `%20`, while
/// non-ASCII letters stay as they are. DecodeUriPath is its inverse.
std::string EncodeUriPath(std::string_view path);

/// Decodes the percent-escapes of an `add.path` URI ("a%20b" -> "a b").
Result<std::string> DecodeUriPath(std::string_view path);

}  // namespace tributary::delta
