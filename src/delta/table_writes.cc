#include "delta/table_writes.h"

#include <chrono>

#include <fmt/format.h>

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

// The table schema after an append with mergeSchema: new top-level columns are added
// (nullable); a column present in both must keep its type.
Result<columnar::SchemaPtr> MergeSchemas(const columnar::Schema& table,
                                         const columnar::Schema& data, bool merge) {
  std::vector<Field> fields = table.Fields();
  for (const Field& field : data.Fields()) {
    const int index = table.FieldIndex(field.Name());
    if (index < 0) {
      if (!merge) {
        return Status::InvalidArgument(
            fmt::format("column '{}' ({}) is not in the table schema; set mergeSchema to add it",
                        field.Name(), field.Type()->ToString()));
      }
      fields.push_back(field.WithNullable(true));
      continue;
    }
    const Field& existing = table.FieldAt(index);
    if (!existing.Type()->SameShape(*field.Type())) {
      return Status::InvalidArgument(
          fmt::format("column '{}' is {} in the table but {} in the data", field.Name(),
                      existing.Type()->ToString(), field.Type()->ToString()));
    }
  }
  return std::make_shared<const columnar::Schema>(std::move(fields));
}

// `batch` in `schema`'s column order, with columns it lacks as nulls.
Result<columnar::RecordBatchPtr> Conform(const columnar::RecordBatch& batch,
                                         const columnar::SchemaPtr& schema) {
  std::vector<columnar::ColumnPtr> columns;
  for (const Field& field : schema->Fields()) {
    auto column = batch.ColumnByName(field.Name());
    if (column == nullptr) {
      TRIBUTARY_ASSIGN_OR_RAISE(column,
                                columnar::Column::MakeAllNull(field.Type(), batch.NumRows()));
    }
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(schema, batch.NumRows(), std::move(columns));
}

}  // namespace

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
  TRIBUTARY_ASSIGN_OR_RAISE(auto txn, Transaction::Begin(fs, table_root, options.transaction));
  const Snapshot* snapshot = txn->ReadSnapshot();
  TableWriteResult result;
  result.version = txn->ReadVersion();
  if (snapshot != nullptr) {
    if (options.mode == SaveMode::kErrorIfExists) {
      return Status::AlreadyExists(
          fmt::format("{}: table already exists (version {})", table_root, snapshot->Version()));
    }
    if (options.mode == SaveMode::kIgnore) {
      return result;
    }
    if (options.txn) {
      auto it = snapshot->Transactions().find(options.txn->first);
      if (it != snapshot->Transactions().end() && it->second >= options.txn->second) {
        return result;  // this application version is already in the table
      }
    }
    if (!options.partition_by.empty() &&
        options.partition_by != snapshot->GetMetadata().partition_columns) {
      return Status::InvalidArgument(
          fmt::format("{}: partitioning [{}] differs from the table's [{}]", table_root,
                      fmt::join(options.partition_by, ", "),
                      fmt::join(snapshot->GetMetadata().partition_columns, ", ")));
    }
  }
  const std::vector<std::string> partition_columns =
      snapshot ? snapshot->GetMetadata().partition_columns : options.partition_by;
  columnar::SchemaPtr table_schema = schema;
  if (snapshot != nullptr) {
    const bool overwrite = options.mode == SaveMode::kOverwrite;
    TRIBUTARY_ASSIGN_OR_RAISE(table_schema, MergeSchemas(*snapshot->Schema(), *schema,
                                                         options.merge_schema && !overwrite));
    if (table_schema->NumFields() != snapshot->Schema()->NumFields()) {
      Metadata metadata = snapshot->GetMetadata();
      metadata.schema_string = SchemaToJson(*table_schema);
      txn->SetMetadata(std::move(metadata));
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
    txn->SetProtocol(MinimalProtocol(*schema));
    txn->SetMetadata(std::move(metadata));
  }
  std::vector<columnar::RecordBatchPtr> conformed;
  for (const auto& batch : batches) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto c, Conform(*batch, table_schema));
    conformed.push_back(std::move(c));
  }
  std::function<bool(const PartitionValues&)> replaced;
  if (options.replace_where) {
    if (options.mode != SaveMode::kOverwrite) {
      return Status::InvalidArgument("replaceWhere needs mode overwrite");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        replaced, PartitionPredicate(*table_schema, partition_columns, options.replace_where));
    // Spark refuses data outside the partitions it replaces.
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*options.replace_where, *table_schema));
    for (const auto& batch : conformed) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto mask, expr::Evaluate(*bound, *batch));
      for (int64_t row = 0; row < mask->Length(); ++row) {
        if (mask->IsNull(row) || mask->Values<uint8_t>()[row] == 0) {
          return Status::InvalidArgument(
              fmt::format("row {} of the data does not match replaceWhere {}", row,
                          options.replace_where->ToString()));
        }
      }
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto adds, WriteDataFiles(fs, table_root, table_schema,
                                                      partition_columns, conformed, options.data));
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
  txn->SetOperation(snapshot ? "WRITE" : "CREATE TABLE AS SELECT", std::move(parameters));
  TRIBUTARY_ASSIGN_OR_RAISE(result.version, txn->Commit());
  result.committed = true;
  return result;
}

}  // namespace tributary::delta
