#include "delta/stats_parsed.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "columnar/bitmap.h"
#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "expr/kernels.h"

namespace tributary::delta {

using columnar::Column;
using columnar::ColumnPtr;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::TypeId;
using nlohmann::json;

namespace {

bool HasMinMax(const DataType& type) {
  return type.IsNumeric() || type.Id() == TypeId::kDate || type.Id() == TypeId::kTimestamp ||
         type.Id() == TypeId::kTimestampNtz || type.Id() == TypeId::kString;
}

// The name statistics and partition values use for `field`.
std::string StatsName(const Field& field, ColumnMappingMode mode) {
  if (mode != ColumnMappingMode::kNone) {
    if (const std::string* physical = field.MetadataValue("delta.columnMapping.physicalName")) {
      return *physical;
    }
  }
  return field.Name();
}

// minValues/maxValues type of `fields`, or nullptr when none has min/max statistics.
DataTypePtr MinMaxType(const std::vector<Field>& fields, ColumnMappingMode mode) {
  std::vector<Field> out;
  for (const Field& field : fields) {
    const DataTypePtr& type = field.Type();
    if (type->Id() == TypeId::kStruct) {
      if (DataTypePtr nested = MinMaxType(type->Fields(), mode)) {
        out.emplace_back(StatsName(field, mode), nested);
      }
    } else if (HasMinMax(*type)) {
      out.emplace_back(StatsName(field, mode), type);
    }
  }
  return out.empty() ? nullptr : DataType::Struct(std::move(out));
}

DataTypePtr NullCountType(const std::vector<Field>& fields, ColumnMappingMode mode) {
  std::vector<Field> out;
  for (const Field& field : fields) {
    out.emplace_back(StatsName(field, mode), field.Type()->Id() == TypeId::kStruct
                                                 ? NullCountType(field.Type()->Fields(), mode)
                                                 : DataType::Int64());
  }
  return DataType::Struct(std::move(out));
}

// The column of `type` whose row i comes from the JSON value nodes[i] (nullptr: absent).
Result<ColumnPtr> ColumnFromJsonNodes(const DataTypePtr& type,
                                      const std::vector<const json*>& nodes) {
  const auto n = static_cast<int64_t>(nodes.size());
  if (type->Id() != TypeId::kStruct) {
    std::vector<std::optional<std::string>> texts;
    texts.reserve(nodes.size());
    for (const json* node : nodes) {
      if (node == nullptr || node->is_null() || node->is_structured()) {
        texts.emplace_back();
      } else {
        texts.emplace_back(node->is_string() ? node->get<std::string>() : node->dump());
      }
    }
    return ColumnFromTexts(texts, type);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto validity, columnar::Buffer::Allocate(columnar::BitmapBytes(n)));
  for (int64_t i = 0; i < n; ++i) {
    const json* node = nodes[static_cast<size_t>(i)];
    if (node != nullptr && node->is_object()) {
      columnar::SetBit(validity->mutable_data(), i);
    }
  }
  std::vector<ColumnPtr> children;
  std::vector<const json*> child_nodes(nodes.size());
  for (const Field& field : type->Fields()) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      child_nodes[i] = nullptr;
      if (nodes[i] != nullptr && nodes[i]->is_object()) {
        auto it = nodes[i]->find(field.Name());
        child_nodes[i] = it == nodes[i]->end() ? nullptr : &*it;
      }
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto child, ColumnFromJsonNodes(field.Type(), child_nodes));
    children.push_back(std::move(child));
  }
  return Column::Make(type, n, columnar::BufferPtr(std::move(validity)), nullptr, nullptr,
                      std::move(children));
}

}  // namespace

Result<ColumnPtr> ColumnFromTexts(const std::vector<std::optional<std::string>>& texts,
                                  const DataTypePtr& type, const expr::EvalContext& context) {
  columnar::ColumnBuilder builder(DataType::String(), context.pool);
  for (const auto& text : texts) {
    if (text) {
      builder.AppendBytes(*text);
    } else {
      builder.AppendNull();
    }
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto strings, builder.Finish());
  if (type->Id() == TypeId::kString) {
    return strings;
  }
  return expr::CastKernel(*strings, type, /*safe=*/true, context);
}

DataTypePtr StatsParsedType(const Snapshot& snapshot) {
  const auto& partitions = snapshot.GetMetadata().partition_columns;
  std::vector<Field> data;
  for (const Field& field : snapshot.Schema()->Fields()) {
    if (std::find(partitions.begin(), partitions.end(), field.Name()) == partitions.end()) {
      data.push_back(field);
    }
  }
  const ColumnMappingMode mode = snapshot.MappingMode();
  std::vector<Field> fields = {Field("numRecords", DataType::Int64())};
  if (DataTypePtr min_max = MinMaxType(data, mode)) {
    fields.emplace_back("minValues", min_max);
    fields.emplace_back("maxValues", min_max);
  }
  fields.emplace_back("nullCount", NullCountType(data, mode));
  // With deletion vectors the bounds may be wide (PROTOCOL.md "Per-file Statistics").
  const auto& features = snapshot.GetProtocol().reader_features;
  if (features &&
      std::find(features->begin(), features->end(), "deletionVectors") != features->end()) {
    fields.emplace_back("tightBounds", DataType::Boolean());
  }
  return DataType::Struct(std::move(fields));
}

Result<ColumnPtr> StatsParsedColumn(const DataTypePtr& type,
                                    const std::vector<std::optional<std::string>>& stats) {
  std::vector<json> parsed(stats.size());
  std::vector<const json*> nodes(stats.size(), nullptr);
  for (size_t i = 0; i < stats.size(); ++i) {
    if (stats[i]) {
      parsed[i] = json::parse(*stats[i], nullptr, /*allow_exceptions=*/false);
      if (parsed[i].is_object()) {
        nodes[i] = &parsed[i];
      }
    }
  }
  return ColumnFromJsonNodes(type, nodes);
}

DataTypePtr PartitionValuesParsedType(const Snapshot& snapshot) {
  const auto& partitions = snapshot.GetMetadata().partition_columns;
  if (partitions.empty()) {
    return nullptr;
  }
  std::vector<Field> fields;
  for (const std::string& name : partitions) {
    const int index = snapshot.Schema()->FieldIndex(name);
    if (index >= 0) {
      const Field& field = snapshot.Schema()->FieldAt(index);
      fields.emplace_back(StatsName(field, snapshot.MappingMode()), field.Type());
    }
  }
  return DataType::Struct(std::move(fields));
}

Result<ColumnPtr> PartitionValuesParsedColumn(const DataTypePtr& type,
                                              const std::vector<const PartitionValues*>& values) {
  const auto n = static_cast<int64_t>(values.size());
  TRIBUTARY_ASSIGN_OR_RAISE(auto validity, columnar::Buffer::Allocate(columnar::BitmapBytes(n)));
  for (int64_t i = 0; i < n; ++i) {
    if (values[static_cast<size_t>(i)] != nullptr) {
      columnar::SetBit(validity->mutable_data(), i);
    }
  }
  std::vector<ColumnPtr> children;
  for (const Field& field : type->Fields()) {
    std::vector<std::optional<std::string>> texts;
    texts.reserve(values.size());
    for (const PartitionValues* row : values) {
      std::optional<std::string> text;
      if (row != nullptr) {
        auto it = row->find(field.Name());
        // An empty string is null (PROTOCOL.md "Partition Value Serialization").
        if (it != row->end() && it->second && !it->second->empty()) {
          text = it->second;
        }
      }
      texts.push_back(std::move(text));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(auto child, ColumnFromTexts(texts, field.Type()));
    children.push_back(std::move(child));
  }
  return Column::Make(type, n, columnar::BufferPtr(std::move(validity)), nullptr, nullptr,
                      std::move(children));
}

std::optional<std::string> StatsJsonFromParsed(const Column& stats_parsed, int64_t row) {
  if (stats_parsed.IsNull(row) || stats_parsed.Type()->Id() != TypeId::kStruct) {
    return std::nullopt;
  }
  std::string out;
  columnar::AppendCanonicalJsonValue(stats_parsed, row, &out);
  return out;
}

}  // namespace tributary::delta
