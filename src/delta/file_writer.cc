// Data files of a Delta table (PROTOCOL.md "Add File and Remove File", "Per-file Statistics"):
//
//   file path = *( escaped-column "=" escaped-value "/" ) prefix "-" n5 "-" uuid ".c000." codec
//               ".parquet"                 ; Hive-style directories are convention only
//   stats     = {"numRecords":n,"minValues":{...},"maxValues":{...},"nullCount":{...}}
//               nested structs nest; min/max for numbers, dates, timestamps and strings
//               (strings cut to a prefix; a cut max gets a tie-breaker so it stays an upper
//               bound); timestamps as ISO-8601 UTC cut to milliseconds

#include "delta/file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "columnar/calendar.h"
#include "columnar/decimal.h"
#include "columnar/take.h"
#include "common/uuid.h"
#include "delta/schema_json.h"
#include "expr/kernels.h"
#include "storage/path.h"

namespace tributary::delta {

using columnar::Column;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::Field;
using columnar::TypeId;
using nlohmann::json;

namespace {

// Characters Hive escapes in partition directory names (FileUtils.escapePathName).
bool NeedsEscape(unsigned char c) {
  if (c < 0x20 || c == 0x7F) {
    return true;
  }
  return std::strchr("\"#%'*/:=?\\{[]^", c) != nullptr;
}

// Min/max of one leaf as JSON, or null when the type has none (booleans, binary, nested).
// clang-tidy's exception analysis reaches into nlohmann::json's constructors, which only throw
// on allocation failure here (as every container does).
struct Bounds {  // NOLINT(bugprone-exception-escape)
  json min;
  json max;
  int64_t nulls = 0;
};

std::string CutUtf8(std::string_view text, int chars, bool* cut) {
  size_t pos = 0;
  int count = 0;
  while (pos < text.size() && count < chars) {
    const auto c = static_cast<unsigned char>(text[pos]);
    pos += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    ++count;
  }
  *cut = pos < text.size();
  return std::string(text.substr(0, std::min(pos, text.size())));
}

// Types with min/max statistics.
bool HasBounds(const DataType& type) {
  const TypeId id = type.Id();
  return type.IsNumeric() || id == TypeId::kDate || id == TypeId::kTimestamp ||
         id == TypeId::kTimestampNtz || id == TypeId::kString;
}

// One bound of a leaf: the member its type uses.
struct BoundValue {
  int64_t integer = 0;  // integers, dates, timestamps
  double real = 0;      // float, double
  columnar::Int128 decimal = 0;
  std::string_view bytes;  // strings
};

// A bound as the stats JSON holds it: dates and timestamps as text (timestamps cut to
// milliseconds), decimals as numbers, strings cut to `string_prefix` characters.
json RenderBound(const DataType& type, const BoundValue& value, bool is_max, int string_prefix) {
  std::string text;
  switch (type.Id()) {
    case TypeId::kDate:
      columnar::AppendDate(static_cast<int32_t>(value.integer), &text);
      return text;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      // Milliseconds, as Spark: readers widen the max by 1 ms.
      const bool utc = type.Id() == TypeId::kTimestamp;
      const int64_t ms = columnar::FloorDiv(value.integer, 1000) * 1000;
      columnar::AppendTimestampIso(ms, utc, &text);
      text.erase(text.size() - (utc ? 4 : 3), 3);  // .ffffff -> .fff
      return text;
    }
    case TypeId::kDecimal: {
      columnar::AppendDecimal(value.decimal, type.Scale(), &text);
      return json::parse(text, nullptr, false).is_discarded() ? json(text) : json::parse(text);
    }
    case TypeId::kString: {
      bool cut = false;
      text = CutUtf8(value.bytes, string_prefix, &cut);
      if (cut && is_max) {
        text += "\xF4\x8F\xBF\xBF";  // U+10FFFF keeps a cut max an upper bound
      }
      return text;
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return value.real;
    default:
      return value.integer;
  }
}

BoundValue BoundAt(const Column& column, int64_t row) {
  BoundValue v;
  switch (column.Type()->Id()) {
    case TypeId::kInt8:
      // A byte column's values are numbers, not characters: sign extension is the point.
      v.integer = int64_t{column.Values<int8_t>()[row]};
      break;
    case TypeId::kInt16:
      v.integer = column.Values<int16_t>()[row];
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      v.integer = column.Values<int32_t>()[row];
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      v.integer = column.Values<int64_t>()[row];
      break;
    case TypeId::kFloat32:
      v.real = column.Values<float>()[row];
      break;
    case TypeId::kFloat64:
      v.real = column.Values<double>()[row];
      break;
    case TypeId::kDecimal:
      v.decimal = column.Values<columnar::Int128>()[row];
      break;
    case TypeId::kString:
      v.bytes = column.BytesAt(row);
      break;
    default:
      break;
  }
  return v;
}

template <typename T>
T LoadLittleEndian(std::string_view bytes) {
  T v{};
  std::memcpy(&v, bytes.data(), std::min(sizeof(T), bytes.size()));
  return v;
}

// A bound of a column of `type` from the PLAIN bytes of the Parquet writer's statistics
// (parquet/writer_schema.cc has the physical type of each).
BoundValue BoundFromParquet(const DataType& type, std::string_view bytes) {
  BoundValue v;
  switch (type.Id()) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kDate:
      v.integer = LoadLittleEndian<int32_t>(bytes);
      break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      v.integer = LoadLittleEndian<int64_t>(bytes);
      break;
    case TypeId::kFloat32:
      v.real = LoadLittleEndian<float>(bytes);
      break;
    case TypeId::kFloat64:
      v.real = LoadLittleEndian<double>(bytes);
      break;
    case TypeId::kDecimal:
      if (type.Precision() <= 9) {
        v.decimal = LoadLittleEndian<int32_t>(bytes);
      } else if (type.Precision() <= 18) {
        v.decimal = LoadLittleEndian<int64_t>(bytes);
      } else {
        // Big-endian two's complement, sign-extended.
        columnar::Int128 d = !bytes.empty() && (static_cast<uint8_t>(bytes[0]) & 0x80) ? -1 : 0;
        for (char c : bytes) {
          d = static_cast<columnar::Int128>((static_cast<unsigned __int128>(d) << 8) |
                                            static_cast<uint8_t>(c));
        }
        v.decimal = d;
      }
      break;
    case TypeId::kString:
      v.bytes = bytes;
      break;
    default:
      break;
  }
  return v;
}

Bounds LeafBounds(const Column& column, int string_prefix) {
  Bounds b;
  b.nulls = column.NullCount();
  const int64_t n = column.Length();
  const TypeId id = column.Type()->Id();
  int64_t best_min = -1;
  int64_t best_max = -1;
  auto less = [&](int64_t a, int64_t c) -> bool {
    switch (id) {
      case TypeId::kInt8:
        return column.Values<int8_t>()[a] < column.Values<int8_t>()[c];
      case TypeId::kInt16:
        return column.Values<int16_t>()[a] < column.Values<int16_t>()[c];
      case TypeId::kInt32:
      case TypeId::kDate:
        return column.Values<int32_t>()[a] < column.Values<int32_t>()[c];
      case TypeId::kInt64:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        return column.Values<int64_t>()[a] < column.Values<int64_t>()[c];
      case TypeId::kFloat32:
        return column.Values<float>()[a] < column.Values<float>()[c];
      case TypeId::kFloat64:
        return column.Values<double>()[a] < column.Values<double>()[c];
      case TypeId::kDecimal:
        return column.Values<columnar::Int128>()[a] < column.Values<columnar::Int128>()[c];
      case TypeId::kString:
        return column.BytesAt(a) < column.BytesAt(c);
      default:
        return false;
    }
  };
  if (!HasBounds(*column.Type())) {
    return b;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (column.IsNull(i)) {
      continue;
    }
    if (column.Type()->IsFloatingPoint()) {
      const double v =
          id == TypeId::kFloat32 ? column.Values<float>()[i] : column.Values<double>()[i];
      if (std::isnan(v)) {
        continue;  // NaN has no place in an ordering; skipping stays correct (Spark does too)
      }
    }
    if (best_min < 0 || less(i, best_min)) {
      best_min = i;
    }
    if (best_max < 0 || less(best_max, i)) {
      best_max = i;
    }
  }
  if (best_min < 0) {
    return b;
  }
  b.min = RenderBound(*column.Type(), BoundAt(column, best_min), false, string_prefix);
  b.max = RenderBound(*column.Type(), BoundAt(column, best_max), true, string_prefix);
  return b;
}

void CollectStats(const Column& column, const std::string& name, int prefix, json* min, json* max,
                  json* nulls) {
  if (column.Type()->Id() == TypeId::kStruct) {
    json child_min = json::object();
    json child_max = json::object();
    json child_nulls = json::object();
    for (int i = 0; i < column.NumChildren(); ++i) {
      CollectStats(*column.Child(i), column.Type()->Fields()[static_cast<size_t>(i)].Name(), prefix,
                   &child_min, &child_max, &child_nulls);
    }
    if (!child_min.empty()) {
      (*min)[name] = child_min;
      (*max)[name] = child_max;
    }
    (*nulls)[name] = child_nulls;
    return;
  }
  Bounds b = LeafBounds(column, prefix);
  (*nulls)[name] = b.nulls;
  if (!b.min.is_null()) {
    (*min)[name] = b.min;
    (*max)[name] = b.max;
  }
}

}  // namespace

std::string EscapePartitionValue(const std::optional<std::string>& value) {
  if (!value || value->empty()) {
    return "__HIVE_DEFAULT_PARTITION__";
  }
  std::string out;
  for (unsigned char c : *value) {
    if (NeedsEscape(c)) {
      out += fmt::format("%{:02X}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::optional<std::string> SerializePartitionValue(const Column& column, int64_t row) {
  if (column.IsNull(row)) {
    return std::nullopt;
  }
  std::string text;
  switch (column.Type()->Id()) {
    case TypeId::kString:
    case TypeId::kBinary:
      return std::string(column.BytesAt(row));
    case TypeId::kBoolean:
      return column.Values<uint8_t>()[row] ? "true" : "false";
    case TypeId::kDate:
      columnar::AppendDate(column.Values<int32_t>()[row], &text);
      return text;
    case TypeId::kTimestamp:
      columnar::AppendTimestampIso(column.Values<int64_t>()[row], true, &text);
      return text;
    case TypeId::kTimestampNtz:
      columnar::AppendTimestampSpark(column.Values<int64_t>()[row], &text);
      return text;
    case TypeId::kDecimal:
      columnar::AppendDecimal(column.Values<columnar::Int128>()[row], column.Type()->Scale(),
                              &text);
      return text;
    default:
      if (!column.Type()->IsInteger() && !column.Type()->IsFloatingPoint()) {
        return std::nullopt;
      }
      return RenderBound(*column.Type(), BoundAt(column, row), false, 0).dump();
  }
}

std::string ComputeStats(const columnar::RecordBatch& batch, int string_prefix) {
  json min = json::object();
  json max = json::object();
  json nulls = json::object();
  for (int i = 0; i < batch.NumColumns(); ++i) {
    CollectStats(*batch.ColumnAt(i), batch.Schema()->FieldAt(i).Name(), string_prefix, &min, &max,
                 &nulls);
  }
  return json({{"numRecords", batch.NumRows()},
               {"minValues", min},
               {"maxValues", max},
               {"nullCount", nulls}})
      .dump();
}

namespace {

// The stats JSON of a data file of `rows` rows in `num_batches` batches (ComputeStats of
// their concatenation) from the statistics the Parquet writer gathered while encoding them: a
// primitive column is its own leaf, so its null count and bounds are the leaf's. Struct
// columns are read from `first_batch` when it is the only one; with several (which would need
// concatenating) the file gets numRecords only.
std::string FileStats(const columnar::Schema& schema, int64_t rows, int64_t num_batches,
                      const columnar::RecordBatchPtr& first_batch,
                      const std::vector<parquet::LeafStatistics>& leaves, int string_prefix) {
  json min = json::object();
  json max = json::object();
  json nulls = json::object();
  for (int c = 0; c < schema.NumFields(); ++c) {
    const Field& field = schema.FieldAt(c);
    if (field.Type()->IsNested()) {
      if (num_batches != 1 || first_batch == nullptr) {
        return json({{"numRecords", rows}}).dump();
      }
      CollectStats(*first_batch->ColumnAt(c), field.Name(), string_prefix, &min, &max, &nulls);
      continue;
    }
    const auto leaf = std::find_if(leaves.begin(), leaves.end(), [&](const auto& l) {
      return l.column == c && l.path.size() == 1;
    });
    if (leaf == leaves.end()) {
      return json({{"numRecords", rows}}).dump();
    }
    nulls[field.Name()] = leaf->null_count;
    if (HasBounds(*field.Type()) && leaf->min && leaf->max) {
      const DataType& type = *field.Type();
      min[field.Name()] =
          RenderBound(type, BoundFromParquet(type, *leaf->min), false, string_prefix);
      max[field.Name()] =
          RenderBound(type, BoundFromParquet(type, *leaf->max), true, string_prefix);
    }
  }
  return json({{"numRecords", rows}, {"minValues", min}, {"maxValues", max}, {"nullCount", nulls}})
      .dump();
}

}  // namespace

// A data file being written: one per partition directory.
struct DataFileWriter::OpenFile {
  std::string relative;
  std::string path;
  PartitionValues values;
  std::unique_ptr<parquet::ParquetWriter> writer;
  int64_t rows = 0;
  int64_t batches = 0;
  // Kept only when the schema has nested columns, whose stats FileStats reads from it.
  columnar::RecordBatchPtr first_batch;
};

DataFileWriter::DataFileWriter(storage::FileSystem& fs, std::string table_root,
                               columnar::SchemaPtr schema, columnar::SchemaPtr data_schema,
                               std::vector<std::string> partition_columns,
                               std::vector<int> partition_index, std::vector<int> data_index,
                               DataWriteOptions options)
    : fs_(fs),
      table_root_(std::move(table_root)),
      schema_(std::move(schema)),
      data_schema_(std::move(data_schema)),
      partition_columns_(std::move(partition_columns)),
      partition_index_(std::move(partition_index)),
      data_index_(std::move(data_index)),
      options_(std::move(options)) {
  has_nested_ = std::any_of(data_schema_->Fields().begin(), data_schema_->Fields().end(),
                            [](const Field& f) { return f.Type()->IsNested(); });
}

DataFileWriter::~DataFileWriter() = default;

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Make(
    storage::FileSystem& fs, std::string table_root, columnar::SchemaPtr schema,
    std::vector<std::string> partition_columns, DataWriteOptions options) {
  std::vector<int> partition_index;
  std::vector<int> data_index;
  std::vector<Field> data_fields;
  for (const std::string& name : partition_columns) {
    const int index = schema->FieldIndex(name);
    if (index < 0) {
      return Status::InvalidArgument(
          fmt::format("partition column '{}' is not in the schema", name));
    }
    if (schema->FieldAt(index).Type()->IsNested()) {
      return Status::InvalidArgument(fmt::format("partition column '{}' has nested type {}", name,
                                                 schema->FieldAt(index).Type()->ToString()));
    }
    partition_index.push_back(index);
  }
  for (int i = 0; i < schema->NumFields(); ++i) {
    if (std::find(partition_index.begin(), partition_index.end(), i) == partition_index.end()) {
      data_index.push_back(i);
      data_fields.push_back(schema->FieldAt(i));
    }
  }
  auto data_schema = std::make_shared<const columnar::Schema>(data_fields);
  return std::unique_ptr<DataFileWriter>(
      new DataFileWriter(fs, std::move(table_root), std::move(schema), std::move(data_schema),
                         std::move(partition_columns), std::move(partition_index),
                         std::move(data_index), std::move(options)));
}

Result<DataFileWriter::OpenFile*> DataFileWriter::FileFor(const std::string& dir,
                                                          const PartitionValues& values) {
  auto it = files_.find(dir);
  if (it != files_.end()) {
    return it->second.get();
  }
  const std::string codec = options_.parquet.codec == parquet::CompressionCodec::kZstd ? "zstd"
                            : options_.parquet.codec == parquet::CompressionCodec::kSnappy
                                ? "snappy"
                                : "uncompressed";
  auto file = std::make_unique<OpenFile>();
  file->relative = fmt::format("{}{}-{:05}-{}.c000.{}.parquet", dir, options_.file_prefix,
                               static_cast<int>(files_.size()), NewUuid(), codec);
  file->path = storage::JoinPath(table_root_, file->relative);
  file->values = values;
  TRIBUTARY_ASSIGN_OR_RAISE(auto out,
                            fs_.OpenOutputStream(file->path, storage::WriteMode::kPutIfAbsent));
  TRIBUTARY_ASSIGN_OR_RAISE(
      file->writer, parquet::ParquetWriter::Open(std::move(out), data_schema_, options_.parquet));
  OpenFile* opened = file.get();
  files_.emplace(dir, std::move(file));
  return opened;
}

Status DataFileWriter::AddRows(OpenFile* file, const columnar::RecordBatchPtr& rows) {
  TRIBUTARY_RETURN_NOT_OK(file->writer->Write(*rows));
  file->rows += rows->NumRows();
  ++file->batches;
  if (has_nested_ && file->first_batch == nullptr) {
    file->first_batch = rows;
  }
  return Status::OK();
}

Status DataFileWriter::Append(const columnar::RecordBatchPtr& batch) {
  if (!batch->Schema()->AsStruct()->SameShape(*schema_->AsStruct())) {
    return Status::InvalidArgument(fmt::format("batch schema {} does not match the table's {}",
                                               batch->Schema()->AsStruct()->ToString(),
                                               schema_->AsStruct()->ToString()));
  }
  if (batch->NumRows() == 0) {
    return Status::OK();
  }
  if (partition_index_.empty()) {
    TRIBUTARY_ASSIGN_OR_RAISE(OpenFile * file, FileFor("", {}));
    return AddRows(file, batch);
  }
  std::map<std::string, std::vector<int64_t>> rows_by_dir;
  std::map<std::string, PartitionValues> values_by_dir;
  for (int64_t row = 0; row < batch->NumRows(); ++row) {
    std::string dir;
    PartitionValues values;
    for (size_t p = 0; p < partition_index_.size(); ++p) {
      auto value = SerializePartitionValue(*batch->ColumnAt(partition_index_[p]), row);
      dir += partition_columns_[p] + "=" + EscapePartitionValue(value) + "/";
      values[partition_columns_[p]] = value;
    }
    rows_by_dir[dir].push_back(row);
    values_by_dir.emplace(dir, std::move(values));
  }
  for (auto& [dir, rows] : rows_by_dir) {
    std::vector<ColumnPtr> columns;
    for (int index : data_index_) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto taken, columnar::Take(*batch->ColumnAt(index), rows));
      columns.push_back(std::move(taken));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(
        auto part, columnar::RecordBatch::Make(data_schema_, static_cast<int64_t>(rows.size()),
                                               std::move(columns)));
    TRIBUTARY_ASSIGN_OR_RAISE(OpenFile * file, FileFor(dir, values_by_dir[dir]));
    TRIBUTARY_RETURN_NOT_OK(AddRows(file, part));
  }
  return Status::OK();
}

Result<std::vector<AddFile>> DataFileWriter::Finish() {
  std::vector<AddFile> adds;
  for (auto& [dir, file] : files_) {
    TRIBUTARY_RETURN_NOT_OK(file->writer->Close());
    TRIBUTARY_ASSIGN_OR_RAISE(storage::FileInfo info, fs_.GetFileInfo(file->path));
    AddFile add;
    add.path = file->relative;
    add.partition_values = file->values;
    add.size = info.size;
    add.modification_time = info.modification_time_ms;
    add.data_change = true;
    add.stats = FileStats(*data_schema_, file->rows, file->batches, file->first_batch,
                          file->writer->FileStatistics(), options_.stats_string_prefix);
    adds.push_back(std::move(add));
  }
  files_.clear();
  return adds;
}

Result<std::vector<AddFile>> WriteDataFiles(storage::FileSystem& fs, const std::string& table_root,
                                            const columnar::SchemaPtr& schema,
                                            const std::vector<std::string>& partition_columns,
                                            const std::vector<columnar::RecordBatchPtr>& batches,
                                            const DataWriteOptions& options) {
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto writer, DataFileWriter::Make(fs, table_root, schema, partition_columns, options));
  for (const auto& batch : batches) {
    TRIBUTARY_RETURN_NOT_OK(writer->Append(batch));
  }
  return writer->Finish();
}

}  // namespace tributary::delta
