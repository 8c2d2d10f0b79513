#include "delta/table_writes.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/uuid.h"
#include "delta/data_skipping.h"
#include "delta/schema_json.h"
#include "expr/evaluator.h"

namespace tributary::delta {

using columnar::DataType;
using columnar::Field;
using columnar::TypeId;

namespace {

bool HasNtz(const DataType& type) {
  switch (type.Id()) {
    case TypeId::kTimestampNtz:
      return true;
    case TypeId::kStruct:
      for (const Field& f : type.Fields()) {
        if (HasNtz(*f.Type())) {
          return true;
        }
      }
      return false;
    case TypeId::kArray:
      return HasNtz(*type.ElementType());
    case TypeId::kMap:
      return HasNtz(*type.KeyType()) || HasNtz(*type.ValueType());
    default:
      return false;
  }
}

std::string ModeName(SaveMode mode) {
  switch (mode) {
    case SaveMode::kAppend:
      return "Append";
    case SaveMode::kOverwrite:
      return "Overwrite";
    case SaveMode::kErrorIfExists:
      return "ErrorIfExists";
    case SaveMode::kIgnore:
      return "Ignore";
  }
  return "?";
}

// The type a column of the table takes when data of type `data` is written into it (`path`
// names the column for errors). Without `merge` the data may only omit nullable fields or be
// untyped nulls; with it (mergeSchema), new struct fields, also inside arrays and maps, are
// added as nullable and a void (NullType) column takes the data's type, as Spark's
// SchemaMergingUtils does. Anything else is an error naming the path and both types.
Result<columnar::DataTypePtr> MergeType(const std::string& path, const columnar::DataTypePtr& table,
                                        const columnar::DataTypePtr& data, bool merge) {
  if (data->Id() == TypeId::kNull) {
    return table;
  }
  if (table->Id() == TypeId::kNull && merge) {
    return data;
  }
  auto mismatch = [&]() {
    return Status::InvalidArgument(fmt::format(
        "column '{}' is {} in the table but {} in the data{}", path, table->ToString(),
        data->ToString(),
        table->Id() == TypeId::kNull ? "; set mergeSchema to give the void column a type" : ""));
  };
  if (table->Id() != data->Id()) {
    return mismatch();
  }
  switch (table->Id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields = table->Fields();
      std::vector<std::string> missing;
      for (const Field& field : data->Fields()) {
        const std::string child_path = path.empty() ? field.Name() : path + "." + field.Name();
        const int index = table->FieldIndex(field.Name());
        if (index < 0) {
          if (!merge) {
            missing.push_back(fmt::format("'{}' ({})", child_path, field.Type()->ToString()));
          }
          fields.push_back(field.WithNullable(true));
          continue;
        }
        const Field& existing = table->Fields()[static_cast<size_t>(index)];
        TRIBUTARY_ASSIGN_OR_RAISE(auto merged,
                                  MergeType(child_path, existing.Type(), field.Type(), merge));
        fields[static_cast<size_t>(index)] = existing.WithType(std::move(merged));
      }
      if (missing.size() == 1) {
        return Status::InvalidArgument(fmt::format(
            "column {} is not in the table schema; set mergeSchema to add it", missing[0]));
      }
      if (!missing.empty()) {
        return Status::InvalidArgument(
            fmt::format("columns {} are not in the table schema; set mergeSchema to add them",
                        fmt::join(missing, ", ")));
      }
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kArray: {
      TRIBUTARY_ASSIGN_OR_RAISE(auto element, MergeType(path + ".element", table->ElementType(),
                                                        data->ElementType(), merge));
      return DataType::Array(std::move(element), table->ContainsNull());
    }
    case TypeId::kMap: {
      TRIBUTARY_ASSIGN_OR_RAISE(auto key,
                                MergeType(path + ".key", table->KeyType(), data->KeyType(), merge));
      TRIBUTARY_ASSIGN_OR_RAISE(
          auto value, MergeType(path + ".value", table->ValueType(), data->ValueType(), merge));
      return DataType::Map(std::move(key), std::move(value), table->ContainsNull());
    }
    default:
      if (!table->SameShape(*data)) {
        return mismatch();
      }
      return table;
  }
}

// The table schema after writing data of schema `data` into a table of schema `table`: see
// MergeType; top-level columns are named without a prefix.
Result<columnar::SchemaPtr> MergeSchemas(const columnar::Schema& table,
                                         const columnar::Schema& data, bool merge) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto merged, MergeType("", DataType::Struct(table.Fields()),
                                                   DataType::Struct(data.Fields()), merge));
  std::vector<Field> fields = merged->Fields();
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

// `column` as a column of `type`, which MergeType made from the column's type: struct fields
// the data lacks become nulls, fields are put in the table's order, untyped nulls get the type.
Result<columnar::ColumnPtr> ConformColumn(const columnar::ColumnPtr& column,
                                          const columnar::DataTypePtr& type) {
  if (column->Type()->SameShape(*type)) {
    return column;
  }
  const int64_t length = column->Length();
  if (column->Type()->Id() == TypeId::kNull) {
    return columnar::Column::MakeAllNull(type, length);
  }
  std::vector<columnar::ColumnPtr> children;
  switch (type->Id()) {
    case TypeId::kStruct:
      for (const Field& field : type->Fields()) {
        const int index = column->Type()->FieldIndex(field.Name());
        columnar::ColumnPtr child;
        if (index < 0) {
          TRIBUTARY_ASSIGN_OR_RAISE(child, columnar::Column::MakeAllNull(field.Type(), length));
        } else {
          TRIBUTARY_ASSIGN_OR_RAISE(child, ConformColumn(column->Child(index), field.Type()));
        }
        children.push_back(std::move(child));
      }
      break;
    case TypeId::kArray: {
      TRIBUTARY_ASSIGN_OR_RAISE(auto element, ConformColumn(column->Child(0), type->ElementType()));
      children.push_back(std::move(element));
      break;
    }
    case TypeId::kMap: {
      TRIBUTARY_ASSIGN_OR_RAISE(auto key, ConformColumn(column->Child(0), type->KeyType()));
      TRIBUTARY_ASSIGN_OR_RAISE(auto value, ConformColumn(column->Child(1), type->ValueType()));
      children.push_back(std::move(key));
      children.push_back(std::move(value));
      break;
    }
    default:
      return Status::Internal(
          fmt::format("cannot write {} data as {}", column->Type()->ToString(), type->ToString()));
  }
  return columnar::Column::Make(type, length, column->ValidityBuffer(), nullptr,
                                column->OffsetsBuffer(), std::move(children));
}

// Table features this writer can create tables with, and whether readers must know them
// (reader-writer features) or only writers.
struct FeatureInfo {
  const char* name;
  bool reader_writer;
};
constexpr FeatureInfo kCreatableFeatures[] = {
    {"appendOnly", false},         {"invariants", false},     {"domainMetadata", false},
    {"vacuumProtocolCheck", true}, {"timestampNtz", true},    {"v2Checkpoint", true},
    {"deletionVectors", true},     {"changeDataFeed", false},
};

// `protocol` with `features` (names from kCreatableFeatures) added: table features (writer
// version 7, reader version 3 when one is a reader-writer feature), listing what the legacy
// versions implied (PROTOCOL.md "Table Features": writer 2 = appendOnly + invariants, reader 2
// = columnMapping). nullopt when `protocol` already has them all.
std::optional<Protocol> WithFeatures(const Protocol& protocol,
                                     const std::vector<std::string>& features) {
  Protocol upgraded = protocol;
  bool changed = false;
  if (protocol.min_writer_version < 7) {
    static const std::vector<std::string> kLegacyWriterFeatures = {
        "appendOnly",       "invariants",    "checkConstraints", "changeDataFeed",
        "generatedColumns", "columnMapping", "identityColumns"};
    static const int kMinWriterVersion[] = {2, 2, 3, 4, 4, 5, 6};
    upgraded.writer_features.emplace();
    for (size_t i = 0; i < kLegacyWriterFeatures.size(); ++i) {
      if (protocol.min_writer_version >= kMinWriterVersion[i]) {
        upgraded.writer_features->push_back(kLegacyWriterFeatures[i]);
      }
    }
  }
  auto add = [&](std::optional<std::vector<std::string>>& list, const std::string& feature) {
    if (!list) {
      list.emplace();
    }
    if (std::find(list->begin(), list->end(), feature) == list->end()) {
      list->push_back(feature);
      changed = true;
    }
  };
  for (const std::string& feature : features) {
    add(upgraded.writer_features, feature);
    const bool reader_writer =
        std::any_of(std::begin(kCreatableFeatures), std::end(kCreatableFeatures),
                    [&](const FeatureInfo& f) { return f.reader_writer && feature == f.name; });
    if (reader_writer) {
      if (upgraded.min_reader_version < 3) {
        upgraded.reader_features.emplace();
        if (upgraded.min_reader_version == 2) {
          upgraded.reader_features->push_back("columnMapping");
        }
        upgraded.min_reader_version = 3;
      }
      add(upgraded.reader_features, feature);
    }
  }
  if (!changed) {
    return std::nullopt;
  }
  upgraded.min_writer_version = 7;
  return upgraded;
}

// Appends "path: type" for every column whose type Delta and Parquet cannot store: Spark's
// interval types (ANSI and calendar), which exist only in expressions.
void CollectIntervalColumns(const std::string& path, const columnar::DataType& type,
                            std::vector<std::string>* found) {
  switch (type.Id()) {
    case columnar::TypeId::kDayTimeInterval:
    case columnar::TypeId::kYearMonthInterval:
    case columnar::TypeId::kCalendarInterval:
      found->push_back(fmt::format("{}: {}", path, type.ToString()));
      return;
    case columnar::TypeId::kStruct:
      for (const columnar::Field& field : type.Fields()) {
        CollectIntervalColumns(path + "." + field.Name(), *field.Type(), found);
      }
      return;
    case columnar::TypeId::kArray:
      CollectIntervalColumns(path + ".element", *type.ElementType(), found);
      return;
    case columnar::TypeId::kMap:
      CollectIntervalColumns(path + ".key", *type.KeyType(), found);
      CollectIntervalColumns(path + ".value", *type.ValueType(), found);
      return;
    default:
      return;
  }
}

// Spark's Delta writer refuses interval columns (DeltaErrors.unsupportedDataTypes): no Parquet
// type holds them, so no other reader could read the table.
Status RejectIntervalColumns(const columnar::Schema& schema, const std::string& table_root) {
  std::vector<std::string> found;
  for (int i = 0; i < schema.NumFields(); ++i) {
    CollectIntervalColumns(schema.FieldAt(i).Name(), *schema.FieldAt(i).Type(), &found);
  }
  if (found.empty()) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      fmt::format("[DELTA_UNSUPPORTED_DATA_TYPES] Found columns using unsupported data types: "
                  "[{}] in the write to {}",
                  fmt::join(found, ", "), table_root));
}

// Properties that turn on a table feature this writer does not write yet. Set, they would be
// recorded with no protocol upgrade: a table other engines misread and this one refuses to
// write. Refused before anything is written, whatever the table's state.
Status CheckFeatureProperties(const std::map<std::string, std::string>& properties,
                              const std::string& table_root) {
  struct Gate {
    const char* key;
    const char* feature;
    const char* off;  // the value that leaves the feature off
  };
  static constexpr Gate kUnwritable[] = {
      {"delta.columnMapping.mode", "columnMapping", "none"},
      {"delta.enableInCommitTimestamps", "inCommitTimestamp", "false"},
      {"delta.enableRowTracking", "rowTracking", "false"},
  };
  for (const auto& [key, value] : properties) {
    for (const Gate& gate : kUnwritable) {
      // Delta matches delta.* keys ignoring case (DeltaConfigs), and the values too.
      if (!EqualsIgnoreAsciiCase(key, gate.key)) {
        continue;
      }
      if (!EqualsIgnoreAsciiCase(value, gate.off)) {
        return Status::NotImplemented(fmt::format(
            "{}: table property {} = '{}' is not supported for writing yet (it turns on the "
            "{} table feature, which this writer does not write); leave it unset or '{}'",
            table_root, key, value, gate.feature, gate.off));
      }
    }
  }
  return Status::OK();
}

// The protocol of a new table of `schema` with `properties`: the minimal one, plus the features
// the properties ask for: `delta.feature.<name>` = "supported" (Spark's way to add a feature)
// and `delta.checkpointPolicy` = "v2" (v2Checkpoint). A feature this writer cannot honour is a
// NotImplemented error naming it, before anything is written.
Result<Protocol> NewTableProtocol(const columnar::Schema& schema,
                                  const std::map<std::string, std::string>& properties) {
  std::vector<std::string> features;
  bool change_data_feed = false;
  constexpr std::string_view kFeaturePrefix = "delta.feature.";
  for (const auto& [key, value] : properties) {
    if (key.rfind(kFeaturePrefix, 0) == 0) {
      const std::string name = key.substr(kFeaturePrefix.size());
      if (value != "supported" && value != "enabled") {
        return Status::InvalidArgument(
            fmt::format("table property {} must be 'supported', not '{}'", key, value));
      }
      const bool creatable =
          std::any_of(std::begin(kCreatableFeatures), std::end(kCreatableFeatures),
                      [&](const FeatureInfo& f) { return name == f.name; });
      if (!creatable) {
        return Status::NotImplemented(
            fmt::format("table feature '{}' ({}) is not supported by this writer", name, key));
      }
      features.push_back(name);
    } else if (EqualsIgnoreAsciiCase(key, "delta.enableDeletionVectors") &&
               EqualsIgnoreAsciiCase(value, "true")) {
      features.emplace_back("deletionVectors");
    } else if (EqualsIgnoreAsciiCase(key, "delta.enableChangeDataFeed") &&
               EqualsIgnoreAsciiCase(value, "true")) {
      change_data_feed = true;
    } else if (key == "delta.checkpointPolicy") {
      if (value == "v2") {
        features.emplace_back("v2Checkpoint");
      } else if (value != "classic") {
        return Status::InvalidArgument(fmt::format(
            "table property delta.checkpointPolicy must be 'classic' or 'v2', not '{}'", value));
      }
    }
  }
  Protocol protocol = MinimalProtocol(schema);
  if (change_data_feed) {
    // PROTOCOL.md "Change Data Feed": writer version 4, or 7 with the changeDataFeed feature
    // when the table is on table features anyway.
    if (features.empty() && protocol.min_writer_version < 7) {
      protocol.min_writer_version = std::max(protocol.min_writer_version, 4);
    } else {
      features.emplace_back("changeDataFeed");
    }
  }
  if (auto upgraded = WithFeatures(protocol, features)) {
    protocol = std::move(*upgraded);
  }
  return protocol;
}

}  // namespace

Result<columnar::RecordBatchPtr> ConformToSchema(const columnar::RecordBatch& batch,
                                                 const columnar::SchemaPtr& schema) {
  std::vector<columnar::ColumnPtr> columns;
  for (const Field& field : schema->Fields()) {
    auto column = batch.ColumnByName(field.Name());
    if (column == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(column,
                                columnar::Column::MakeAllNull(field.Type(), batch.NumRows()));
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(column, ConformColumn(column, field.Type()));
    }
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(schema, batch.NumRows(), std::move(columns));
}

std::optional<Protocol> ProtocolForSchema(const columnar::Schema& schema,
                                          const Protocol& protocol) {
  const Protocol needed = MinimalProtocol(schema);
  if (!needed.reader_features) {
    return std::nullopt;
  }
  return WithFeatures(protocol, *needed.reader_features);
}

Protocol MinimalProtocol(const columnar::Schema& schema) {
  Protocol protocol;
  for (const Field& field : schema.Fields()) {
    if (HasNtz(*field.Type())) {
      protocol.min_reader_version = 3;
      protocol.min_writer_version = 7;
      protocol.reader_features = std::vector<std::string>{"timestampNtz"};
      protocol.writer_features = std::vector<std::string>{"timestampNtz"};
      break;
    }
  }
  return protocol;
}

Result<TableWriteResult> WriteTable(storage::FileSystem& fs, const std::string& table_root,
                                    const columnar::SchemaPtr& schema,
                                    const std::vector<columnar::RecordBatchPtr>& batches,
                                    const TableWriteOptions& options) {
  size_t next = 0;
  return WriteTableFrom(
      fs, table_root, schema,
      [&]() -> Result<columnar::RecordBatchPtr> {
        return next < batches.size() ? batches[next++] : nullptr;
      },
      options);
}

Result<TableWriteResult> WriteTableFrom(storage::FileSystem& fs, const std::string& table_root,
                                        const columnar::SchemaPtr& schema, const BatchSource& next,
                                        const TableWriteOptions& options) {
  TRIBUTARY_RETURN_NOT_OK(CheckFeatureProperties(options.properties, table_root));
  TRIBUTARY_RETURN_NOT_OK(RejectIntervalColumns(*schema, table_root));
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto txn, options.read_snapshot != nullptr
                    ? Transaction::Begin(fs, table_root, options.read_snapshot, options.transaction)
                    : Transaction::Begin(fs, table_root, options.transaction));
  const Snapshot* snapshot = txn->ReadSnapshot();
  TableWriteResult result;
  result.version = txn->ReadVersion();
  if (snapshot != nullptr) {
    if (options.txn) {
      auto it = snapshot->Transactions().find(options.txn->first);
      if (it != snapshot->Transactions().end() && it->second >= options.txn->second) {
        return result;  // this application version is already in the table
      }
    }
    if (options.mode == SaveMode::kErrorIfExists) {
      return Status::AlreadyExists(
          fmt::format("{}: table already exists (version {})", table_root, snapshot->Version()));
    }
    if (options.mode == SaveMode::kIgnore) {
      return result;
    }
    if (options.overwrite_schema &&
        (options.mode != SaveMode::kOverwrite || options.replace_where)) {
      return Status::InvalidArgument(
          fmt::format("{}: overwriteSchema needs mode overwrite without replaceWhere", table_root));
    }
    if (!options.overwrite_schema && !options.partition_by.empty() &&
        options.partition_by != snapshot->GetMetadata().partition_columns) {
      return Status::InvalidArgument(
          fmt::format("{}: partitioning [{}] differs from the table's [{}]; set overwriteSchema "
                      "with mode overwrite to replace it",
                      table_root, fmt::join(options.partition_by, ", "),
                      fmt::join(snapshot->GetMetadata().partition_columns, ", ")));
    }
  }
  // overwriteSchema replaces the schema and the partitioning with the data's (Spark's
  // DataFrameWriter option): no partitionBy makes the table unpartitioned.
  const bool replace_schema = snapshot != nullptr && options.overwrite_schema;
  const std::vector<std::string> partition_columns = snapshot && !replace_schema
                                                         ? snapshot->GetMetadata().partition_columns
                                                         : options.partition_by;
  columnar::SchemaPtr table_schema = schema;
  if (snapshot != nullptr) {
    if (!replace_schema) {
      auto merged = MergeSchemas(*snapshot->Schema(), *schema, options.merge_schema);
      if (!merged.ok()) {
        return merged.status().WithContext(table_root);
      }
      table_schema = *merged;
    }
    if (SchemaToJson(*table_schema) != SchemaToJson(*snapshot->Schema()) ||
        partition_columns != snapshot->GetMetadata().partition_columns) {
      Metadata metadata = snapshot->GetMetadata();
      metadata.schema_string = SchemaToJson(*table_schema);
      metadata.partition_columns = partition_columns;
      txn->SetMetadata(std::move(metadata));
      if (auto upgraded = ProtocolForSchema(*table_schema, snapshot->GetProtocol())) {
        txn->SetProtocol(std::move(*upgraded));
      }
    } else {
      table_schema = snapshot->Schema();
    }
  } else {
    Metadata metadata;
    metadata.id = NewUuid();
    metadata.schema_string = SchemaToJson(*schema);
    metadata.partition_columns = options.partition_by;
    metadata.configuration = options.properties;
    metadata.created_time = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
    TRIBUTARY_ASSIGN_OR_RAISE(Protocol protocol, NewTableProtocol(*schema, options.properties));
    txn->SetProtocol(std::move(protocol));
    txn->SetMetadata(std::move(metadata));
  }
  std::function<bool(const PartitionValues&)> replaced;
  expr::BoundExprPtr replace_check;
  if (options.replace_where) {
    if (options.mode != SaveMode::kOverwrite) {
      return Status::InvalidArgument("replaceWhere needs mode overwrite");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        replaced, PartitionPredicate(*table_schema, partition_columns, options.replace_where));
    TRIBUTARY_ASSIGN_OR_RAISE(replace_check, expr::Bind(*options.replace_where, *table_schema));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto files, DataFileWriter::Make(fs, table_root, table_schema,
                                                             partition_columns, options.data));
  // Each batch is written as it comes; on an error the files stay unpublished.
  int64_t first_row = 0;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch, next());
    if (batch == nullptr) {
      break;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(*batch, table_schema));
    if (replace_check != nullptr) {
      // Spark refuses data outside the partitions it replaces.
      TRIBUTARY_ASSIGN_OR_RAISE(auto mask, expr::Evaluate(*replace_check, *conformed));
      for (int64_t row = 0; row < mask->Length(); ++row) {
        if (mask->IsNull(row) || mask->Values<uint8_t>()[row] == 0) {
          return Status::InvalidArgument(
              fmt::format("row {} of the data does not match replaceWhere {}", first_row + row,
                          options.replace_where->ToString()));
        }
      }
    }
    first_row += conformed->NumRows();
    TRIBUTARY_RETURN_NOT_OK(files->Append(conformed));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto adds, files->Finish());
  if (snapshot != nullptr && options.mode == SaveMode::kOverwrite) {
    if (replaced) {
      txn->ReadPartitions(replaced);
    } else {
      txn->ReadWholeTable();
    }
    for (const AddFile& existing : snapshot->Files()) {
      if (replaced && !replaced(existing.partition_values)) {
        continue;
      }
      RemoveFile remove;
      remove.path = existing.path;
      remove.data_change = true;
      remove.partition_values = existing.partition_values;
      remove.size = existing.size;
      remove.deletion_vector = existing.deletion_vector;
      txn->RemoveFile(std::move(remove));
      ++result.files_removed;
    }
  }
  result.files_added = static_cast<int64_t>(adds.size());
  for (AddFile& add : adds) {
    txn->AddFile(std::move(add));
  }
  if (options.txn) {
    txn->SetTransaction(options.txn->first, options.txn->second);
  }
  std::map<std::string, std::string> parameters = {{"mode", ModeName(options.mode)}};
  if (options.replace_where) {
    parameters["predicate"] = options.replace_where->ToString();
  }
  if (!partition_columns.empty()) {
    parameters["partitionBy"] = fmt::format("[\"{}\"]", fmt::join(partition_columns, "\",\""));
  }
  if (!options.operation.empty()) {
    txn->SetOperation(options.operation, options.operation_parameters);
  } else {
    txn->SetOperation(snapshot ? "WRITE" : "CREATE TABLE AS SELECT", std::move(parameters));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(result.version, txn->Commit());
  result.committed = true;
  return result;
}

}  // namespace tributary::delta
