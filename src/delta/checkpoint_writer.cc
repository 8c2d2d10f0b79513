// Classic single-file checkpoints (PROTOCOL.md "Checkpoints", "Checkpoint Specs", "Checkpoint
// Schema") and the last checkpoint file (PROTOCOL.md "Last Checkpoint File").
//
// The checkpoint file, `_delta_log/<version as 20 digits>.checkpoint.parquet`, is a Parquet
// file (SNAPPY) in the column layout Spark's checkpoints have, every field nullable:
//
//   checkpoint     := txn add remove metaData protocol domainMetadata [checkpointMetadata]
//   txn            := struct{appId string, version long, lastUpdated long}
//   add            := struct{path string, partitionValues map<string,string>, size long,
//                            modificationTime long, dataChange boolean,
//                            tags map<string,string>, deletionVector dv, baseRowId long,
//                            defaultRowCommitVersion long, clusteringProvider string,
//                            stats string, [partitionValues_parsed pv], [stats_parsed sp]}
//   pv             := struct{<partition column> <its type>, ...}     (partitioned tables)
//   sp             := struct{numRecords long, [minValues s, maxValues s], nullCount n,
//                            [tightBounds boolean]}
//                     s mirrors the data columns with min/max statistics, n has a long per
//                     column (structs nest); see stats_parsed.h
//   remove         := struct{path string, deletionTimestamp long, dataChange boolean,
//                            extendedFileMetadata boolean, partitionValues map<string,string>,
//                            size long, deletionVector dv, baseRowId long,
//                            defaultRowCommitVersion long}
//   dv             := struct{storageType string, pathOrInlineDv string, offset int,
//                            sizeInBytes int, cardinality long, maxRowIndex long}
//   metaData       := struct{id string, name string, description string,
//                            format struct{provider string, options map<string,string>},
//                            schemaString string, partitionColumns array<string>,
//                            configuration map<string,string>, createdTime long}
//   protocol       := struct{minReaderVersion int, minWriterVersion int,
//                            readerFeatures array<string>, writerFeatures array<string>}
//   domainMetadata := struct{domain string, configuration string, removed boolean}
//   checkpointMetadata := struct{version long, tags map<string,string>}   (v2Checkpoint only)
//
// One action per row; in each row exactly one column is non-null. Rows, in order: protocol,
// metaData, [checkpointMetadata], one txn per appId, one domainMetadata per live domain
// (removed = false), then the live files as add rows (dataChange = false, as Spark writes
// them) in log order, then unexpired tombstones as remove rows (dataChange = false). Map
// values, array elements and nested fields are nullable, as in Spark's schema.
//
// stats is null when delta.checkpoint.writeStatsAsJson is false; pv and sp are written when
// delta.checkpoint.writeStatsAsStruct is true (Spark's default for both is true).
//
// The last checkpoint file, `_delta_log/_last_checkpoint`, is one JSON object:
//
//   {"version":V,"size":<rows of the checkpoint>,"sizeInBytes":<file bytes>,
//    "numOfAddFiles":<add rows>}

#include "delta/checkpoint_writer.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "columnar/record_batch.h"
#include "columnar/schema.h"
#include "delta/log_segment.h"
#include "delta/stats_parsed.h"
#include "delta/table_properties.h"
#include "formats/parquet/writer.h"
#include "storage/path.h"

namespace tributary::delta {
namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::SchemaPtr;

// Rows per record batch handed to the Parquet writer.
constexpr int64_t kBatchRows = 16384;

// Top-level columns, in file order.
enum class CheckpointColumn : uint8_t {
  kTxn,
  kAdd,
  kRemove,
  kMetaData,
  kProtocol,
  kDomainMetadata,
  kCheckpointMetadata,
};

// Children of the add struct, in file order.
enum class AddField : uint8_t {
  kPath,
  kPartitionValues,
  kSize,
  kModificationTime,
  kDataChange,
  kTags,
  kDeletionVector,
  kBaseRowId,
  kDefaultRowCommitVersion,
  kClusteringProvider,
  kStats,
};

template <typename E>
ColumnBuilder& FieldBuilder(ColumnBuilder& builder, E child) {
  return builder.Child(static_cast<int>(child));
}

DataTypePtr StringMapType() {
  return DataType::Map(DataType::String(), DataType::String(), /*value_contains_null=*/true);
}

DataTypePtr StringArrayType() {
  return DataType::Array(DataType::String(), /*contains_null=*/true);
}

DataTypePtr DeletionVectorType() {
  return DataType::Struct(
      {Field("storageType", DataType::String()), Field("pathOrInlineDv", DataType::String()),
       Field("offset", DataType::Int32()), Field("sizeInBytes", DataType::Int32()),
       Field("cardinality", DataType::Int64()), Field("maxRowIndex", DataType::Int64())});
}

// What a checkpoint holds besides the actions, from the table's protocol and properties.
struct CheckpointLayout {
  // v2Checkpoint writer feature: the checkpointMetadata column and row.
  bool v2 = false;
  // delta.checkpoint.writeStatsAsJson (Default: true): add.stats as the JSON string.
  bool stats_as_json = true;
  // delta.checkpoint.writeStatsAsStruct (Default: true, as Spark): the types of
  // add.stats_parsed and (partitioned tables) add.partitionValues_parsed, else nullptr.
  DataTypePtr stats_parsed;
  DataTypePtr partition_values_parsed;
};

// The checkpoint's columns; `with_parsed` adds the typed add fields of `layout` at the end of
// the add struct.
SchemaPtr CheckpointSchema(const CheckpointLayout& layout, bool with_parsed) {
  std::vector<Field> fields = {
      Field("txn", DataType::Struct({Field("appId", DataType::String()),
                                     Field("version", DataType::Int64()),
                                     Field("lastUpdated", DataType::Int64())})),
      Field(
          "add",
          DataType::Struct(
              {Field("path", DataType::String()), Field("partitionValues", StringMapType()),
               Field("size", DataType::Int64()), Field("modificationTime", DataType::Int64()),
               Field("dataChange", DataType::Boolean()), Field("tags", StringMapType()),
               Field("deletionVector", DeletionVectorType()), Field("baseRowId", DataType::Int64()),
               Field("defaultRowCommitVersion", DataType::Int64()),
               Field("clusteringProvider", DataType::String()),
               Field("stats", DataType::String())})),
      Field(
          "remove",
          DataType::Struct(
              {Field("path", DataType::String()), Field("deletionTimestamp", DataType::Int64()),
               Field("dataChange", DataType::Boolean()),
               Field("extendedFileMetadata", DataType::Boolean()),
               Field("partitionValues", StringMapType()), Field("size", DataType::Int64()),
               Field("deletionVector", DeletionVectorType()), Field("baseRowId", DataType::Int64()),
               Field("defaultRowCommitVersion", DataType::Int64())})),
      Field(
          "metaData",
          DataType::Struct({Field("id", DataType::String()), Field("name", DataType::String()),
                            Field("description", DataType::String()),
                            Field("format", DataType::Struct({Field("provider", DataType::String()),
                                                              Field("options", StringMapType())})),
                            Field("schemaString", DataType::String()),
                            Field("partitionColumns", StringArrayType()),
                            Field("configuration", StringMapType()),
                            Field("createdTime", DataType::Int64())})),
      Field("protocol", DataType::Struct({Field("minReaderVersion", DataType::Int32()),
                                          Field("minWriterVersion", DataType::Int32()),
                                          Field("readerFeatures", StringArrayType()),
                                          Field("writerFeatures", StringArrayType())})),
      Field("domainMetadata", DataType::Struct({Field("domain", DataType::String()),
                                                Field("configuration", DataType::String()),
                                                Field("removed", DataType::Boolean())})),
  };
  if (layout.v2) {
    fields.emplace_back("checkpointMetadata", DataType::Struct({Field("version", DataType::Int64()),
                                                                Field("tags", StringMapType())}));
  }
  if (with_parsed) {
    const auto add = static_cast<size_t>(CheckpointColumn::kAdd);
    std::vector<Field> add_fields = fields[add].Type()->Fields();
    if (layout.partition_values_parsed) {
      add_fields.emplace_back("partitionValues_parsed", layout.partition_values_parsed);
    }
    if (layout.stats_parsed) {
      add_fields.emplace_back("stats_parsed", layout.stats_parsed);
    }
    fields[add] = fields[add].WithType(DataType::Struct(std::move(add_fields)));
  }
  return std::make_shared<columnar::Schema>(std::move(fields));
}

void AppendOptionalString(ColumnBuilder& builder, const std::optional<std::string>& value) {
  if (value) {
    builder.AppendBytes(*value);
  } else {
    builder.AppendNull();
  }
}

void AppendOptionalInt(ColumnBuilder& builder, std::optional<int64_t> value) {
  if (value) {
    builder.AppendInt(*value);
  } else {
    builder.AppendNull();
  }
}

void AppendStringMap(ColumnBuilder& builder, const std::map<std::string, std::string>& map) {
  for (const auto& [key, value] : map) {
    builder.Child(0).AppendBytes(key);
    builder.Child(1).AppendBytes(value);
  }
  builder.AppendMap();
}

void AppendPartitionValues(ColumnBuilder& builder, const PartitionValues& values) {
  for (const auto& [key, value] : values) {
    builder.Child(0).AppendBytes(key);
    AppendOptionalString(builder.Child(1), value);
  }
  builder.AppendMap();
}

void AppendStringArray(ColumnBuilder& builder, const std::vector<std::string>& values) {
  for (const std::string& value : values) {
    builder.Child(0).AppendBytes(value);
  }
  builder.AppendArray();
}

void AppendDeletionVector(ColumnBuilder& builder,
                          const std::optional<DeletionVectorDescriptor>& dv) {
  if (!dv) {
    builder.AppendNull();
    return;
  }
  builder.Child(0).AppendBytes(dv->storage_type);
  builder.Child(1).AppendBytes(dv->path_or_inline_dv);
  AppendOptionalInt(builder.Child(2), dv->offset);
  builder.Child(3).AppendInt(dv->size_in_bytes);
  builder.Child(4).AppendInt(dv->cardinality);
  builder.Child(5).AppendNull();
  builder.AppendStruct();
}

// Builds record batches of checkpoint rows; every Append* adds one row.
class CheckpointBatchBuilder {
 public:
  explicit CheckpointBatchBuilder(CheckpointLayout layout)
      : layout_(std::move(layout)), schema_(CheckpointSchema(layout_, /*with_parsed=*/true)) {
    // The builders make the add struct without the typed fields; Finish adds them.
    const SchemaPtr built = CheckpointSchema(layout_, /*with_parsed=*/false);
    for (const Field& field : built->Fields()) {
      columns_.push_back(std::make_unique<ColumnBuilder>(field.Type()));
    }
  }

  const SchemaPtr& Schema() const { return schema_; }

  int64_t NumRows() const { return num_rows_; }

  void AppendProtocol(const Protocol& protocol) {
    ColumnBuilder& b = Begin(CheckpointColumn::kProtocol);
    b.Child(0).AppendInt(protocol.min_reader_version);
    b.Child(1).AppendInt(protocol.min_writer_version);
    AppendFeatures(b.Child(2), protocol.reader_features);
    AppendFeatures(b.Child(3), protocol.writer_features);
    b.AppendStruct();
  }

  void AppendMetadata(const Metadata& metadata) {
    ColumnBuilder& b = Begin(CheckpointColumn::kMetaData);
    b.Child(0).AppendBytes(metadata.id);
    AppendOptionalString(b.Child(1), metadata.name);
    AppendOptionalString(b.Child(2), metadata.description);
    ColumnBuilder& format = b.Child(3);
    format.Child(0).AppendBytes(metadata.format_provider);
    AppendStringMap(format.Child(1), metadata.format_options);
    format.AppendStruct();
    b.Child(4).AppendBytes(metadata.schema_string);
    AppendStringArray(b.Child(5), metadata.partition_columns);
    AppendStringMap(b.Child(6), metadata.configuration);
    AppendOptionalInt(b.Child(7), metadata.created_time);
    b.AppendStruct();
  }

  void AppendCheckpointMetadata(int64_t version) {
    ColumnBuilder& b = Begin(CheckpointColumn::kCheckpointMetadata);
    b.Child(0).AppendInt(version);
    b.Child(1).AppendNull();
    b.AppendStruct();
  }

  void AppendTxn(const std::string& app_id, int64_t version) {
    ColumnBuilder& b = Begin(CheckpointColumn::kTxn);
    b.Child(0).AppendBytes(app_id);
    b.Child(1).AppendInt(version);
    b.Child(2).AppendNull();
    b.AppendStruct();
  }

  void AppendDomain(const std::string& domain, const std::string& configuration) {
    ColumnBuilder& b = Begin(CheckpointColumn::kDomainMetadata);
    b.Child(0).AppendBytes(domain);
    b.Child(1).AppendBytes(configuration);
    b.Child(2).AppendBoolean(false);
    b.AppendStruct();
  }

  void AppendAdd(const AddFile& add) {
    ColumnBuilder& b = Begin(CheckpointColumn::kAdd);
    encoded_path_.clear();
    encoded_path_ += EncodeUriPath(add.path);
    FieldBuilder(b, AddField::kPath).AppendBytes(encoded_path_);
    AppendPartitionValues(FieldBuilder(b, AddField::kPartitionValues), add.partition_values);
    FieldBuilder(b, AddField::kSize).AppendInt(add.size);
    FieldBuilder(b, AddField::kModificationTime).AppendInt(add.modification_time);
    // Spark writes dataChange = false in checkpoints: the files are not new at this version.
    FieldBuilder(b, AddField::kDataChange).AppendBoolean(false);
    if (add.tags.empty()) {
      FieldBuilder(b, AddField::kTags).AppendNull();
    } else {
      AppendStringMap(FieldBuilder(b, AddField::kTags), add.tags);
    }
    AppendDeletionVector(FieldBuilder(b, AddField::kDeletionVector), add.deletion_vector);
    AppendOptionalInt(FieldBuilder(b, AddField::kBaseRowId), add.base_row_id);
    AppendOptionalInt(FieldBuilder(b, AddField::kDefaultRowCommitVersion),
                      add.default_row_commit_version);
    AppendOptionalString(FieldBuilder(b, AddField::kClusteringProvider), add.clustering_provider);
    if (layout_.stats_as_json) {
      AppendOptionalString(FieldBuilder(b, AddField::kStats), add.stats);
    } else {
      FieldBuilder(b, AddField::kStats).AppendNull();
    }
    row_stats_.back() = add.stats ? &*add.stats : nullptr;
    row_partition_values_.back() = &add.partition_values;
    b.AppendStruct();
  }

  // A tombstone: the file's data must outlive readers of older versions until VACUUM's
  // retention has passed.
  void AppendRemove(const RemoveFile& remove) {
    ColumnBuilder& b = Begin(CheckpointColumn::kRemove);
    b.Child(0).AppendBytes(EncodeUriPath(remove.path));
    AppendOptionalInt(b.Child(1), remove.deletion_timestamp);
    b.Child(2).AppendBoolean(false);
    b.Child(3).AppendBoolean(remove.extended_file_metadata.value_or(false));
    AppendPartitionValues(b.Child(4), remove.partition_values);
    AppendOptionalInt(b.Child(5), remove.size);
    AppendDeletionVector(b.Child(6), remove.deletion_vector);
    b.Child(7).AppendNull();
    b.Child(8).AppendNull();
    b.AppendStruct();
  }

  /// The rows appended since the last call as one batch; the builder is then empty again.
  Result<columnar::RecordBatchPtr> Finish() {
    std::vector<columnar::ColumnPtr> columns;
    for (auto& builder : columns_) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto column, builder->Finish());
      columns.push_back(std::move(column));
    }
    const int64_t rows = num_rows_;
    num_rows_ = 0;
    auto& add = columns[static_cast<size_t>(CheckpointColumn::kAdd)];
    std::vector<columnar::ColumnPtr> add_children = add->Children();
    if (layout_.partition_values_parsed) {
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto parsed,
          PartitionValuesParsedColumn(layout_.partition_values_parsed, row_partition_values_));
      add_children.push_back(std::move(parsed));
    }
    if (layout_.stats_parsed) {
      std::vector<std::optional<std::string>> stats;
      stats.reserve(row_stats_.size());
      for (const std::string* text : row_stats_) {
        stats.push_back(text != nullptr ? std::optional<std::string>(*text) : std::nullopt);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto parsed, StatsParsedColumn(layout_.stats_parsed, stats));
      add_children.push_back(std::move(parsed));
    }
    row_stats_.clear();
    row_partition_values_.clear();
    if (add_children.size() != add->Children().size()) {
      const DataTypePtr& type = schema_->FieldAt(static_cast<int>(CheckpointColumn::kAdd)).Type();
      TRIBUTARY_ASSIGN_OR_RAISE(
          add, columnar::Column::Make(type, rows, add->ValidityBuffer(), nullptr, nullptr,
                                      std::move(add_children)));
    }
    return columnar::RecordBatch::Make(schema_, rows, std::move(columns));
  }

 private:
  // Appends null to every column but `column` and returns that column's builder.
  ColumnBuilder& Begin(CheckpointColumn column) {
    const auto index = static_cast<size_t>(column);
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (i != index) {
        columns_[i]->AppendNull();
      }
    }
    ++num_rows_;
    row_stats_.push_back(nullptr);
    row_partition_values_.push_back(nullptr);
    return *columns_[index];
  }

  static void AppendFeatures(ColumnBuilder& builder,
                             const std::optional<std::vector<std::string>>& features) {
    if (features) {
      AppendStringArray(builder, *features);
    } else {
      builder.AppendNull();
    }
  }

  CheckpointLayout layout_;
  SchemaPtr schema_;
  std::vector<std::unique_ptr<ColumnBuilder>> columns_;
  int64_t num_rows_ = 0;
  std::string encoded_path_;
  // Per row of the batch, for the typed add fields: the add's stats and partition values (both
  // owned by the snapshot), nullptr for other rows.
  std::vector<const std::string*> row_stats_;
  std::vector<const PartitionValues*> row_partition_values_;
};

// delta.deletedFileRetentionDuration in milliseconds; an unparsable value keeps the default
// (a checkpoint must not fail over a property Spark would have refused to set).
int64_t TombstoneRetentionMillis(const Metadata& metadata) {
  Result<int64_t> retention = DurationProperty(metadata, "delta.deletedFileRetentionDuration",
                                               kDefaultDeletedFileRetentionMillis);
  return retention.ok() ? *retention : kDefaultDeletedFileRetentionMillis;
}

// Writes the checkpoint at `path` with put-if-absent; returns its size in bytes. Another
// writer's checkpoint of the same version is taken as it is.
Result<int64_t> WriteCheckpointFile(storage::FileSystem& fs, const Snapshot& snapshot,
                                    const std::string& path, const CheckpointLayout& layout) {
  TRIBUTARY_ASSIGN_OR_RAISE(const bool exists, fs.Exists(path));
  if (!exists) {
    CheckpointBatchBuilder builder(layout);
    TRIBUTARY_ASSIGN_OR_RAISE(auto stream,
                              fs.OpenOutputStream(path, storage::WriteMode::kPutIfAbsent));
    TRIBUTARY_ASSIGN_OR_RAISE(auto writer,
                              parquet::ParquetWriter::Open(std::move(stream), builder.Schema()));
    auto flush = [&]() -> Status {
      TRIBUTARY_ASSIGN_OR_RAISE(auto batch, builder.Finish());
      return writer->Write(*batch);
    };
    builder.AppendProtocol(snapshot.GetProtocol());
    builder.AppendMetadata(snapshot.GetMetadata());
    if (layout.v2) {
      builder.AppendCheckpointMetadata(snapshot.Version());
    }
    for (const auto& [app_id, version] : snapshot.Transactions()) {
      builder.AppendTxn(app_id, version);
    }
    for (const auto& [domain, configuration] : snapshot.Domains()) {
      builder.AppendDomain(domain, configuration);
    }
    for (const AddFile& add : snapshot.Files()) {
      builder.AppendAdd(add);
      if (builder.NumRows() >= kBatchRows) {
        TRIBUTARY_RETURN_NOT_OK(flush());
      }
    }
    // Unexpired tombstones (PROTOCOL.md "Checkpoints": removes newer than
    // delta.deletedFileRetentionDuration, 1 week by default) so VACUUM keeps their files.
    const int64_t cutoff = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count() -
                           TombstoneRetentionMillis(snapshot.GetMetadata());
    for (const RemoveFile& remove : snapshot.Tombstones()) {
      if (remove.deletion_timestamp.value_or(0) >= cutoff) {
        builder.AppendRemove(remove);
        if (builder.NumRows() >= kBatchRows) {
          TRIBUTARY_RETURN_NOT_OK(flush());
        }
      }
    }
    if (builder.NumRows() > 0) {
      TRIBUTARY_RETURN_NOT_OK(flush());
    }
    Status closed = writer->Close();
    if (closed.ok()) {
      return writer->BytesWritten();
    }
    if (!closed.IsAlreadyExists()) {
      return closed;
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(storage::FileInfo info, fs.GetFileInfo(path));
  return info.size;
}

}  // namespace

Result<int64_t> WriteCheckpoint(storage::FileSystem& fs, const Snapshot& snapshot) {
  const int64_t version = snapshot.Version();
  const std::string log_dir = storage::JoinPath(snapshot.TableRoot(), "_delta_log");
  const std::string path =
      storage::JoinPath(log_dir, fmt::format("{:020}.checkpoint.parquet", version));
  CheckpointLayout layout;
  layout.v2 = HasWriterFeature(snapshot.GetProtocol(), "v2Checkpoint");
  const Metadata& metadata = snapshot.GetMetadata();
  layout.stats_as_json = BooleanProperty(metadata, "delta.checkpoint.writeStatsAsJson", true);
  if (BooleanProperty(metadata, "delta.checkpoint.writeStatsAsStruct", true)) {
    layout.stats_parsed = StatsParsedType(snapshot);
    layout.partition_values_parsed = PartitionValuesParsedType(snapshot);
  }
  const bool v2 = layout.v2;
  auto context = [&](const Status& status) {
    return status.WithContext(fmt::format("writing checkpoint {} of version {}", path, version));
  };

  Result<int64_t> size_in_bytes = WriteCheckpointFile(fs, snapshot, path, layout);
  if (!size_in_bytes.ok()) {
    return context(size_in_bytes.status());
  }
  const int64_t num_adds = static_cast<int64_t>(snapshot.Files().size());
  const int64_t num_actions = 2 + (v2 ? 1 : 0) +
                              static_cast<int64_t>(snapshot.Transactions().size()) +
                              static_cast<int64_t>(snapshot.Domains().size()) + num_adds;

  const std::string last_path = storage::JoinPath(log_dir, "_last_checkpoint");
  Result<std::optional<int64_t>> last = ReadLastCheckpointVersion(fs, log_dir);
  if (!last.ok()) {
    return context(last.status());
  }
  if (*last && **last > version) {
    return version;
  }
  const std::string content =
      fmt::format(R"({{"version":{},"size":{},"sizeInBytes":{},"numOfAddFiles":{}}})", version,
                  num_actions, *size_in_bytes, num_adds);
  Status replaced = fs.WriteFile(last_path, content, storage::WriteMode::kReplace);
  if (!replaced.ok()) {
    return context(replaced);
  }
  return version;
}

bool ShouldCheckpoint(const Snapshot& snapshot) {
  return snapshot.Version() > 0 &&
         snapshot.Version() % CheckpointInterval(snapshot.GetMetadata()) == 0;
}

}  // namespace tributary::delta
