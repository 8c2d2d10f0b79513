#include "delta/table_reader.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "delta/actions.h"
#include "delta/deletion_vector.h"
#include "expr/kernels.h"
#include "storage/local_path.h"
#include "storage/path.h"

namespace tributary::delta {

using columnar::Column;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;

namespace {

const std::string* MetadataOf(const Field& field, const char* key) {
  return field.MetadataValue(key);
}

// The name a logical field has in data files under the table's column mapping mode.
std::string PhysicalName(const Field& field, ColumnMappingMode mode) {
  if (mode != ColumnMappingMode::kNone) {
    if (const std::string* physical = MetadataOf(field, "delta.columnMapping.physicalName")) {
      return *physical;
    }
  }
  return field.Name();
}

std::optional<int32_t> FieldId(const Field& field) {
  const std::string* id = MetadataOf(field, "delta.columnMapping.id");
  int32_t value = 0;
  if (id != nullptr &&
      std::from_chars(id->data(), id->data() + id->size(), value).ec == std::errc()) {
    return value;
  }
  return std::nullopt;
}

}  // namespace

// Outside the anonymous namespace: DataFileReader::Impl, declared in the header, holds one.
class ColumnAdapter {
 public:
  ColumnAdapter(ColumnMappingMode mode, const expr::EvalContext& context, std::string file)
      : mode_(mode), context_(context), file_(std::move(file)) {}

  // Index of the file child matching `field`, or -1.
  int Match(const Field& field, const parquet::SchemaNode& node) const {
    if (mode_ == ColumnMappingMode::kId) {
      const auto id = FieldId(field);
      for (size_t i = 0; i < node.children.size(); ++i) {
        if (id && node.children[i]->field_id == id) {
          return static_cast<int>(i);
        }
      }
      return -1;
    }
    const std::string name = PhysicalName(field, mode_);
    for (size_t i = 0; i < node.children.size(); ++i) {
      if (node.children[i]->name == name) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // `column` (as the file has it, described by `node`) in the logical `type`.
  Result<ColumnPtr> Adapt(const ColumnPtr& column, const parquet::SchemaNode& node,
                          const DataTypePtr& type) {
    const TypeId id = type->Id();
    if (id == TypeId::kStruct) {
      if (column->Type()->Id() != TypeId::kStruct) {
        return Mismatch(node, *column->Type(), *type);
      }
      std::vector<ColumnPtr> children;
      for (const Field& field : type->Fields()) {
        const int index = Match(field, node);
        if (index < 0) {
          TRIBUTARY_ASSIGN_OR_RAISE(
              auto nulls, Column::MakeAllNull(field.Type(), column->Length(), context_.pool));
          children.push_back(std::move(nulls));
        } else {
          TRIBUTARY_ASSIGN_OR_RAISE(
              auto child, Adapt(column->Child(index), *node.children[static_cast<size_t>(index)],
                                field.Type()));
          children.push_back(std::move(child));
        }
      }
      return Column::Make(type, column->Length(), column->ValidityBuffer(), nullptr, nullptr,
                          std::move(children));
    }
    if (id == TypeId::kArray || id == TypeId::kMap) {
      if (column->Type()->Id() != id) {
        return Mismatch(node, *column->Type(), *type);
      }
      std::vector<ColumnPtr> children;
      for (int c = 0; c < column->NumChildren(); ++c) {
        const DataTypePtr& child_type = c == 0 ? type->ElementType() : type->ValueType();
        TRIBUTARY_ASSIGN_OR_RAISE(
            auto child,
            Adapt(column->Child(c), *node.children[static_cast<size_t>(c)], child_type));
        children.push_back(std::move(child));
      }
      return Column::Make(type, column->Length(), column->ValidityBuffer(), nullptr,
                          column->OffsetsBuffer(), std::move(children));
    }
    if (column->Type()->SameShape(*type)) {
      return column;
    }
    // Type widening (PROTOCOL.md "Type Widening") and void columns: upcast the file's values.
    auto cast = expr::CastKernel(*column, type, /*safe=*/false, context_);
    if (!cast.ok()) {
      return cast.status().WithContext(fmt::format("{}: column {}", file_, node.path));
    }
    return cast;
  }

 private:
  Status Mismatch(const parquet::SchemaNode& node, const DataType& got, const DataType& want) {
    return Status::Corruption(fmt::format("{}: column {} is {} in the file but {} in the table",
                                          file_, node.path, got.ToString(), want.ToString()));
  }

  ColumnMappingMode mode_;
  const expr::EvalContext& context_;
  std::string file_;
};

namespace {

Result<ColumnPtr> PartitionColumn(const Field& field, const std::optional<std::string>& value,
                                  int64_t rows, const expr::EvalContext& context,
                                  const std::string& file) {
  if (!value || value->empty()) {
    return Column::MakeAllNull(field.Type(), rows, context.pool);
  }
  columnar::ColumnBuilder builder(DataType::String(), context.pool);
  for (int64_t i = 0; i < rows; ++i) {
    builder.AppendBytes(*value);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto text, builder.Finish());
  if (field.Type()->Id() == TypeId::kString) {
    return text;
  }
  if (field.Type()->Id() == TypeId::kBinary) {
    return expr::CastKernel(*text, field.Type(), false, context);
  }
  auto typed = expr::CastKernel(*text, field.Type(), /*safe=*/false, context);
  if (!typed.ok()) {
    return typed.status().WithContext(
        fmt::format("{}: partition value '{}' of column {}", file, *value, field.Name()));
  }
  return typed;
}

}  // namespace

std::string DataFilePath(const std::string& table_root, const std::string& path) {
  if (storage::IsObjectStorePath(path)) {
    // An object's key is the decoded path the action was read as.
    Result<std::string> object = storage::StoragePath(path);
    return object.ok() ? *std::move(object) : path;
  }
  if (!storage::UriScheme(path).empty()) {
    // `path` was percent-decoded when the action was read; LocalPath decodes a URI's path
    // itself, so it is given the URI encoded again.
    Result<std::string> local = storage::LocalPath(EncodeUriPath(path));
    return local.ok() ? *std::move(local) : path;
  }
  if (!path.empty() && path[0] == '/') {
    return path;
  }
  // Relative to the root: the root's storage path, so a '%' in `path` (Hive's escaping of
  // partition values) is not taken for an escape of a file:// root.
  Result<std::string> root = storage::StoragePath(table_root);
  return storage::JoinPath(root.ok() ? *root : table_root, path);
}

class DataFileReader::Impl {
 public:
  Impl(storage::FileSystem& fs, const Snapshot& snapshot, const AddFile& add,
       const TableReadOptions& options)
      : fs_(fs),
        snapshot_(snapshot),
        add_(add),
        options_(options),
        path_(DataFilePath(snapshot.TableRoot(), add.path)),
        adapter_(snapshot.MappingMode(), context_, path_) {
    context_.session_time_zone = options.session_time_zone;
    context_.pool = options.pool;
  }

  Status Open() {
    if (!storage::UriScheme(path_).empty() && !storage::IsObjectStorePath(path_)) {
      // DataFilePath keeps a URI LocalPath refuses (another scheme or host, no path).
      return storage::LocalPath(EncodeUriPath(path_))
          .status()
          .WithContext(fmt::format("data file of {} version {}", snapshot_.TableRoot(),
                                   snapshot_.Version()));
    }
    if (options_.max_batch_rows <= 0) {
      return Status::InvalidArgument(
          fmt::format("table read of {}: batches of {} rows", path_, options_.max_batch_rows));
    }
    // The logical fields to produce: all, or the projection asked for.
    schema_ = snapshot_.Schema();
    if (!options_.columns.empty()) {
      std::vector<Field> selected;
      for (int index : options_.columns) {
        if (index < 0 || index >= schema_->NumFields()) {
          return Status::InvalidArgument(fmt::format(
              "table read: no column {} in a schema of {} columns", index, schema_->NumFields()));
        }
        selected.push_back(schema_->FieldAt(index));
      }
      schema_ = std::make_shared<columnar::Schema>(std::move(selected));
    }
    output_schema_ = schema_;
    if (!options_.row_index_column.empty()) {
      std::vector<Field> fields = schema_->Fields();
      fields.emplace_back(options_.row_index_column, DataType::Int64(), /*nullable=*/false);
      output_schema_ = std::make_shared<columnar::Schema>(std::move(fields));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(reader_, parquet::ParquetFileReader::Open(fs_, path_, options_.pool));
    if (add_.deletion_vector) {
      auto rows = LoadDeletedRows(fs_, snapshot_.TableRoot(), *add_.deletion_vector);
      if (!rows.ok()) {
        return rows.status().WithContext(fmt::format("deletion vector of {}", path_));
      }
      deleted_ = std::move(*rows);
    }
    const parquet::SchemaNode& root = *reader_->Tree().root;
    // Which top-level file columns to decode: those of the wanted data fields (at least one, for
    // the row count). Names with a dot would read as nested paths, so then every column is read.
    const auto& partition_columns = snapshot_.GetMetadata().partition_columns;
    project_ = !options_.columns.empty();
    for (const Field& field : schema_->Fields()) {
      const bool partition = std::find(partition_columns.begin(), partition_columns.end(),
                                       field.Name()) != partition_columns.end();
      is_partition_.push_back(partition);
      const int index = partition ? -1 : adapter_.Match(field, root);
      file_columns_.push_back(index);
      if (index >= 0) {
        const std::string& name = root.children[static_cast<size_t>(index)]->name;
        project_ = project_ && name.find('.') == std::string::npos;
        if (std::find(read_names_.begin(), read_names_.end(), name) == read_names_.end()) {
          read_names_.push_back(name);
        }
      }
    }
    if (read_names_.empty() && !root.children.empty()) {
      read_names_.push_back(root.children.front()->name);
      project_ = project_ && read_names_.front().find('.') == std::string::npos;
    }
    return Status::OK();
  }

  Result<columnar::RecordBatchPtr> Next() {
    while (true) {
      if (group_ == nullptr) {
        if (next_group_ >= reader_->NumRowGroups()) {
          return columnar::RecordBatchPtr();
        }
        TRIBUTARY_ASSIGN_OR_RAISE(
            group_, reader_->OpenRowGroup(next_group_++,
                                          project_ ? read_names_ : std::vector<std::string>{},
                                          options_.max_batch_rows));
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto batch, group_->Next());
      if (batch == nullptr) {
        group_.reset();
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto logical, Logical(*batch));
      if (logical->NumRows() > 0) {
        return logical;
      }
    }
  }

 private:
  // `batch` (the file's columns, rows first_row_.. of the file) in the logical schema, without
  // its deleted rows.
  Result<columnar::RecordBatchPtr> Logical(const columnar::RecordBatch& batch) {
    const parquet::SchemaNode& root = *reader_->Tree().root;
    const int64_t rows = batch.NumRows();
    std::vector<ColumnPtr> columns;
    for (size_t f = 0; f < file_columns_.size(); ++f) {
      const Field& field = schema_->FieldAt(static_cast<int>(f));
      if (is_partition_[f]) {
        const std::string key = PhysicalName(field, snapshot_.MappingMode());
        auto it = add_.partition_values.find(key);
        if (it == add_.partition_values.end()) {
          it = add_.partition_values.find(field.Name());
        }
        const std::optional<std::string> value =
            it == add_.partition_values.end() ? std::nullopt : it->second;
        TRIBUTARY_ASSIGN_OR_RAISE(auto column,
                                  PartitionColumn(field, value, rows, context_, path_));
        columns.push_back(std::move(column));
        continue;
      }
      const int index = file_columns_[f];
      if (index < 0) {
        TRIBUTARY_ASSIGN_OR_RAISE(auto nulls,
                                  Column::MakeAllNull(field.Type(), rows, options_.pool));
        columns.push_back(std::move(nulls));
        continue;
      }
      const parquet::SchemaNode& node = *root.children[static_cast<size_t>(index)];
      const int in_batch =
          project_ ? static_cast<int>(std::find(read_names_.begin(), read_names_.end(), node.name) -
                                      read_names_.begin())
                   : index;
      TRIBUTARY_ASSIGN_OR_RAISE(auto column,
                                adapter_.Adapt(batch.ColumnAt(in_batch), node, field.Type()));
      columns.push_back(std::move(column));
    }
    const uint64_t first_row = first_row_;
    first_row_ += static_cast<uint64_t>(rows);
    if (!options_.row_index_column.empty()) {
      columnar::ColumnBuilder indexes(DataType::Int64(), options_.pool);
      indexes.Reserve(rows);
      for (int64_t r = 0; r < rows; ++r) {
        indexes.AppendInt(static_cast<int64_t>(first_row) + r);
      }
      TRIBUTARY_ASSIGN_OR_RAISE(auto index_column, indexes.Finish());
      columns.push_back(std::move(index_column));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto logical, columnar::RecordBatch::Make(output_schema_, rows, std::move(columns)));
    while (next_deleted_ < deleted_.size() && deleted_[next_deleted_] < first_row) {
      ++next_deleted_;
    }
    if (next_deleted_ == deleted_.size() ||
        deleted_[next_deleted_] >= first_row + static_cast<uint64_t>(rows)) {
      return logical;  // no deleted row in this batch
    }
    // Keep rows whose file-wide index is not in the (sorted) deleted list.
    std::vector<int64_t> keep;
    keep.reserve(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      const uint64_t file_row = first_row + static_cast<uint64_t>(r);
      while (next_deleted_ < deleted_.size() && deleted_[next_deleted_] < file_row) {
        ++next_deleted_;
      }
      if (next_deleted_ < deleted_.size() && deleted_[next_deleted_] == file_row) {
        continue;
      }
      keep.push_back(r);
    }
    std::vector<ColumnPtr> kept;
    for (const ColumnPtr& column : logical->Columns()) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto taken, columnar::Take(*column, keep, options_.pool));
      kept.push_back(std::move(taken));
    }
    return columnar::RecordBatch::Make(output_schema_, static_cast<int64_t>(keep.size()),
                                       std::move(kept));
  }

  storage::FileSystem& fs_;
  const Snapshot& snapshot_;
  const AddFile& add_;
  const TableReadOptions options_;
  const std::string path_;
  expr::EvalContext context_;
  ColumnAdapter adapter_;
  columnar::SchemaPtr schema_;         // the logical fields read
  columnar::SchemaPtr output_schema_;  // schema_ plus the row index column, if asked for
  std::unique_ptr<parquet::ParquetFileReader> reader_;
  std::vector<uint64_t> deleted_;  // file-wide row indexes, sorted
  size_t next_deleted_ = 0;
  uint64_t first_row_ = 0;          // file-wide index of the next batch's first row
  std::vector<bool> is_partition_;  // per field of schema_
  std::vector<int> file_columns_;   // per field: its file column, -1 for partition/missing
  std::vector<std::string> read_names_;
  bool project_ = false;
  int next_group_ = 0;
  std::unique_ptr<parquet::RowGroupReader> group_;
};

DataFileReader::DataFileReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DataFileReader::~DataFileReader() = default;

Result<std::unique_ptr<DataFileReader>> DataFileReader::Open(storage::FileSystem& fs,
                                                             const Snapshot& snapshot,
                                                             const AddFile& add,
                                                             const TableReadOptions& options) {
  auto impl = std::make_unique<Impl>(fs, snapshot, add, options);
  TRIBUTARY_RETURN_NOT_OK(impl->Open());
  return std::make_unique<DataFileReader>(std::move(impl));
}

Result<columnar::RecordBatchPtr> DataFileReader::Next() {
  return impl_->Next();
}

Result<std::vector<columnar::RecordBatchPtr>> ReadDataFile(storage::FileSystem& fs,
                                                           const Snapshot& snapshot,
                                                           const AddFile& add,
                                                           const TableReadOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto reader, DataFileReader::Open(fs, snapshot, add, options));
  std::vector<columnar::RecordBatchPtr> out;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (batch == nullptr) {
      return out;
    }
    out.push_back(std::move(batch));
  }
}

Result<std::vector<columnar::RecordBatchPtr>> ReadTable(storage::FileSystem& fs,
                                                        const Snapshot& snapshot,
                                                        const TableReadOptions& options) {
  std::vector<columnar::RecordBatchPtr> out;
  for (const AddFile& add : snapshot.Files()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto batches, ReadDataFile(fs, snapshot, add, options));
    for (auto& batch : batches) {
      out.push_back(std::move(batch));
    }
  }
  return out;
}

}  // namespace tributary::delta
